// Character data: UTF-8 decoding, vocabulary, dataset split and batches (see data.h).
#include "data.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include <sys/stat.h>

#include "nn/json_guard.h"
#include "rundir.h"

namespace charlm {

using ember::Tensor;

namespace {
constexpr int64_t kMaxTextBytes = int64_t{2} << 30;
}  // namespace

std::u32string utf8_to_u32(const std::string& s, const std::string& what) {
  if (const size_t at = ember::first_invalid_utf8(s); at != std::string::npos)
    EMBER_FAIL("{}: {}", what, ember::describe_invalid_utf8(s, at));
  // Well-formed from here on: each lead byte says how many continuation bytes follow.
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string u32_to_utf8(const std::u32string& s) {
  std::string out;
  for (char32_t cp : s) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

std::u32string read_text(const std::string& path) {
  // Stat before opening: a FIFO would block the open, /dev/zero would never end.
  struct stat st {};
  EMBER_CHECK(::stat(path.c_str(), &st) == 0,
              "data: cannot open '{}' ({}). Pass --data PATH to a UTF-8 text file, e.g. data/tinyshakespeare.txt", path,
              std::strerror(errno));
  EMBER_CHECK(!S_ISDIR(st.st_mode), "data: '{}' is a directory; --data takes a UTF-8 text file", path);
  EMBER_CHECK(S_ISREG(st.st_mode),
              "data: '{}' is not a regular file (a FIFO, device or socket); --data takes a UTF-8 text file", path);
  EMBER_CHECK(st.st_size <= kMaxTextBytes,
              "data: '{}' has {} bytes, more than the {} (2 GiB) that {} reads into memory; use a shorter text", path,
              static_cast<int64_t>(st.st_size), kMaxTextBytes, program_name());
  // O_NONBLOCK: if the path was swapped for a FIFO since the stat, the open still returns.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "data: cannot open '{}': {}", path, std::strerror(errno));
  std::string bytes;
  try {
    EMBER_CHECK(::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxTextBytes,
                "data: '{}' changed while opening it (no longer a regular file of at most 2 GiB)", path);
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n >= 0, "data: error while reading '{}': {}", path, std::strerror(errno));
      if (n == 0) break;  // the file shrank meanwhile
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  EMBER_CHECK(!bytes.empty(), "data: '{}' is empty; a character model needs text to learn from", path);
  return utf8_to_u32(bytes, "data: '" + path + "'");
}

std::string default_data_path() {
  const std::string here = "data/tinyshakespeare.txt";
  if (std::filesystem::exists(here)) return here;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "ember" / "tinyshakespeare.txt";
  if (!ec && std::filesystem::exists(installed)) return installed.string();
  EMBER_FAIL(
      "data: no --data given, and neither {} (under the current directory) nor {} exists; pass --data PATH to a "
      "UTF-8 text file",
      here, ec ? std::string("<prefix>/share/ember/tinyshakespeare.txt") : installed.string());
}

Vocab::Vocab(const std::u32string& text) {
  std::set<char32_t> distinct(text.begin(), text.end());
  *this = from_chars(std::u32string(distinct.begin(), distinct.end()));
}

Vocab Vocab::from_chars(std::u32string chars) {
  EMBER_CHECK(!chars.empty(), "vocabulary: it is empty; a character model needs at least one character");
  // Sorted and distinct, as Vocab(text) makes it: a repeated character would have two ids.
  for (size_t i = 1; i < chars.size(); ++i)
    EMBER_CHECK(chars[i - 1] < chars[i],
                "vocabulary: characters must be sorted and distinct, but U+{:04X} at {} follows "
                "U+{:04X}",
                static_cast<uint32_t>(chars[i]), i, static_cast<uint32_t>(chars[i - 1]));
  Vocab v;
  v.chars_ = std::move(chars);
  char32_t top = 0;
  for (char32_t c : v.chars_) top = std::max(top, c);
  v.index_.assign(v.chars_.empty() ? 0 : top + 1, -1);
  for (size_t i = 0; i < v.chars_.size(); ++i) v.index_[v.chars_[i]] = static_cast<int32_t>(i);
  return v;
}

std::vector<int64_t> Vocab::encode(const std::u32string& s) const {
  std::vector<int64_t> ids;
  ids.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    const int32_t id = id_of(c);
    EMBER_CHECK(id >= 0, "encode: character '{}' (U+{:04X}) at position {} is not in the vocabulary of {} characters",
                u32_to_utf8(std::u32string(1, c)), static_cast<uint32_t>(c), i, chars_.size());
    ids.push_back(id);
  }
  return ids;
}

std::u32string Vocab::decode(const std::vector<int64_t>& ids) const {
  std::u32string s;
  for (int64_t id : ids) {
    EMBER_CHECK(id >= 0 && id < size(), "decode: id {} is outside the vocabulary of {} characters", id, size());
    s.push_back(chars_[id]);
  }
  return s;
}

int TokenArray::bytes_per_token(int64_t vocab_size) { return vocab_size <= 256 ? 1 : vocab_size <= 65536 ? 2 : 4; }

TokenArray::TokenArray(const std::u32string& text, const Vocab& vocab) {
  auto encode_as = [&](auto width) {
    using Id = decltype(width);
    std::vector<Id> ids(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      const int32_t id = vocab.id_of(text[i]);
      if (id < 0) vocab.encode(text.substr(i, 1));  // throws, naming the character
      ids[i] = static_cast<Id>(id);
    }
    ids_ = std::make_shared<const Storage>(std::move(ids));
  };
  switch (bytes_per_token(vocab.size())) {
    case 1:
      encode_as(uint8_t{});
      break;
    case 2:
      encode_as(uint16_t{});
      break;
    default:
      encode_as(uint32_t{});
  }
  size_ = static_cast<int64_t>(text.size());
}

TokenArray TokenArray::slice(int64_t begin, int64_t end) const {
  EMBER_CHECK(0 <= begin && begin <= end && end <= size_, "TokenArray::slice: [{}, {}) is outside [0, {})", begin, end,
              size_);
  TokenArray out = *this;
  out.begin_ = begin_ + begin;
  out.size_ = end - begin;
  return out;
}

void TokenArray::copy_to(int64_t start, int64_t n, int64_t* out) const {
  EMBER_CHECK(0 <= start && 0 <= n && n <= size_ - start, "TokenArray::copy_to: [{}, {}) is outside [0, {})", start,
              start + n, size_);
  std::visit([&](const auto& ids) { std::copy_n(ids.data() + begin_ + start, n, out); }, *ids_);
}

Dataset make_dataset(const std::u32string& text, const Vocab& vocab, int64_t block_size) {
  const TokenArray all(text, vocab);
  const int64_t n = all.size(), n_train = n * 9 / 10;
  Dataset d{all.slice(0, n_train), all.slice(n_train, n)};
  EMBER_CHECK(d.val.size() > block_size && d.train.size() > block_size,
              "data: the text has {} characters, so its 90/10 split gives {} train and {} val characters; each part "
              "needs more than block_size ({}) + 1. Use a longer text or a smaller --block_size",
              n, d.train.size(), d.val.size(), block_size);
  return d;
}

std::pair<Tensor, Tensor> get_batch(const TokenArray& data, int64_t batch_size, int64_t block_size,
                                    ember::Generator& gen) {
  Tensor ix = ember::randint(0, data.size() - block_size, {batch_size}, gen);
  const int64_t* starts = ix.data_ptr<int64_t>();
  Tensor x = ember::empty({batch_size, block_size}, ember::kInt64);
  Tensor y = ember::empty({batch_size, block_size}, ember::kInt64);
  int64_t* xp = x.data_ptr<int64_t>();
  int64_t* yp = y.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch_size; ++b) {
    data.copy_to(starts[b], block_size, xp + b * block_size);
    data.copy_to(starts[b] + 1, block_size, yp + b * block_size);
  }
  return {x, y};
}

}  // namespace charlm
