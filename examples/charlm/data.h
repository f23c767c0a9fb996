// Character-level data for the GPT example: read a UTF-8 text, build the vocabulary, encode,
// split 90/10, and draw random (B, T) batches the way nanoGPT's get_batch does.
//
// Characters are Unicode code points (a UTF-8 file with accents works); the vocabulary is the
// sorted set of distinct code points, as `sorted(set(text))` in the tutorials.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <ember/ember.h>

namespace charlm {

class Vocab {
 public:
  Vocab() = default;
  explicit Vocab(const std::u32string& text);  // the sorted distinct characters of `text`
  static Vocab from_chars(std::u32string chars);

  int64_t size() const { return static_cast<int64_t>(chars_.size()); }
  const std::u32string& chars() const { return chars_; }
  // Throws a clear error naming the first character that is not in the vocabulary.
  std::vector<int64_t> encode(const std::u32string& s) const;
  // The id of `c`, or -1 when it is not in the vocabulary.
  int32_t id_of(char32_t c) const { return c < index_.size() ? index_[c] : -1; }
  std::u32string decode(const std::vector<int64_t>& ids) const;

 private:
  std::u32string chars_;
  std::vector<int32_t> index_;  // code point -> id (dense table up to the largest code point)
};

std::string u32_to_utf8(const std::u32string& s);
// Strict UTF-8: overlong forms, UTF-16 surrogates and code points above U+10FFFF throw with the
// byte offset, like truncated or stray bytes. `what` starts the message ("data: 'x.txt'").
std::u32string utf8_to_u32(const std::string& s, const std::string& what);
// Reads the whole file. Missing, unreadable, empty or non-regular files (a directory, FIFO or
// device such as /dev/zero) and files over 2 GiB throw with the path in the message.
std::u32string read_text(const std::string& path);
// The text used without --data: data/tinyshakespeare.txt under the current directory, else the copy
// installed beside the program (<prefix>/share/ember/tinyshakespeare.txt); throws saying to pass
// --data when neither exists.
std::string default_data_path();

// Token ids in the narrowest unsigned type the vocabulary allows (1 byte for up to 256 characters,
// 2 for up to 65,536, else 4), so a text costs one or two bytes per character in memory rather than
// int64's eight. Only the batch being built is widened to int64. Slices share the storage.
class TokenArray {
 public:
  TokenArray() = default;
  // Encodes `text` with `vocab`; throws naming the first character that is not in it.
  TokenArray(const std::u32string& text, const Vocab& vocab);
  // The width encoding a text with a vocabulary of `vocab_size` characters uses.
  static int bytes_per_token(int64_t vocab_size);

  int64_t size() const { return size_; }
  // ids [begin, end) of this one.
  TokenArray slice(int64_t begin, int64_t end) const;
  // Copies ids [start, start + n) into out, widened.
  void copy_to(int64_t start, int64_t n, int64_t* out) const;

 private:
  using Storage = std::variant<std::vector<uint8_t>, std::vector<uint16_t>, std::vector<uint32_t>>;
  std::shared_ptr<const Storage> ids_;
  int64_t begin_ = 0, size_ = 0;
};

struct Dataset {
  TokenArray train;  // (N_train,)
  TokenArray val;    // (N_val,)
};
// Encodes `text` and splits it at 90%; checks both parts can hold a block of block_size + 1.
Dataset make_dataset(const std::u32string& text, const Vocab& vocab, int64_t block_size);

// x, y: (B, T) int64, y shifted by one; starts drawn with randint(len - T, (B,)) from `gen`.
std::pair<ember::Tensor, ember::Tensor> get_batch(const TokenArray& data, int64_t batch_size, int64_t block_size,
                                                  ember::Generator& gen);

}  // namespace charlm
