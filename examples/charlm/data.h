// Character-level data for the GPT example: read a UTF-8 text, build the vocabulary, encode,
// split 90/10, and draw random (B, T) batches the way nanoGPT's get_batch does.
//
// Characters are Unicode code points (a UTF-8 file with accents works); the vocabulary is the
// sorted set of distinct code points, as `sorted(set(text))` in the tutorials.
#pragma once

#include <string>
#include <utility>
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

struct Dataset {
  ember::Tensor train;  // (N_train,) int64
  ember::Tensor val;    // (N_val,) int64
};
// Encodes `text` and splits it at 90%; checks both parts can hold a block of block_size + 1.
Dataset make_dataset(const std::u32string& text, const Vocab& vocab, int64_t block_size);

// x, y: (B, T) int64, y shifted by one; starts drawn with randint(len - T, (B,)) from `gen`.
std::pair<ember::Tensor, ember::Tensor> get_batch(const ember::Tensor& data, int64_t batch_size, int64_t block_size,
                                                  ember::Generator& gen);

}  // namespace charlm
