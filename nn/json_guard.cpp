// Depth limit, UTF-8 validation and message excerpts for JSON text (nn/json_guard.h).
#include "nn/json_guard.h"

#include "core/error.h"

namespace ember {

namespace {

// The length of the well-formed UTF-8 sequence starting at text[i], or 0 when there is none
// (the table of RFC 3629, section 4: the second byte's range depends on the first).
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b == 0xE0)
    n = 3, lo = 0xA0;
  else if (b == 0xED)
    n = 3, hi = 0x9F;  // U+D800..U+DFFF are surrogates, not characters
  else if (b >= 0xE1 && b <= 0xEF)
    n = 3;
  else if (b == 0xF0)
    n = 4, lo = 0x90;
  else if (b >= 0xF1 && b <= 0xF3)
    n = 4;
  else if (b == 0xF4)
    n = 4, hi = 0x8F;  // nothing past U+10FFFF
  else
    return 0;
  if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

void check_json_depth(std::string_view text, const std::string& what, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      EMBER_CHECK(++depth <= max_depth, "{}: the JSON nests arrays and objects more than {} deep (at byte {})", what,
                  max_depth, i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

size_t first_invalid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

std::string describe_invalid_utf8(std::string_view text, size_t at) {
  // The smallest code point each sequence length may encode: anything below is an overlong form.
  constexpr char32_t kMinOfLength[5] = {0, 0, 0x80, 0x800, 0x10000};
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(at);
  const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0) return fmt::format("invalid UTF-8 at byte {} (0x{:02X} cannot start a character)", at, c);
  if (at + len > text.size())
    return fmt::format("invalid UTF-8 at byte {} (a {}-byte character cut off by the end)", at, len);
  char32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(at + k) >> 6) != 0x2)
      return fmt::format("invalid UTF-8 at byte {} (0x{:02X} is not a continuation byte)", at + k, byte(at + k));
    cp = (cp << 6) | (byte(at + k) & 0x3F);
  }
  const auto code = static_cast<uint32_t>(cp);
  if (cp < kMinOfLength[len])
    return fmt::format("invalid UTF-8 at byte {} (overlong {}-byte form of U+{:04X})", at, len, code);
  if (cp >= 0xD800 && cp <= 0xDFFF)
    return fmt::format("invalid UTF-8 at byte {} (U+{:04X} is a UTF-16 surrogate)", at, code);
  if (cp > 0x10FFFF) return fmt::format("invalid UTF-8 at byte {} (U+{:X} is above U+10FFFF)", at, code);
  return fmt::format("invalid UTF-8 at byte {}", at);  // well-formed after all: not an offset first_invalid_utf8 gives
}

std::string excerpt(std::string_view text, size_t max_chars) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && i < max_chars) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0 || b < 0x20 || b == 0x7F) {
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  if (i < text.size()) out += fmt::format("... ({} bytes in all)", text.size());
  return out;
}

}  // namespace ember
