// Guards around the JSON Ember reads and writes (safetensors headers, optimizer checkpoints), so
// that hostile input is an ember::Error and never a crash:
//
//   ember::check_json_depth(text, "load_safetensors: f.safetensors");  // before nlohmann parses it
//   EMBER_CHECK(ok, "...: got {}", ember::excerpt(value.dump()));         // never a whole value
//   if (size_t at = ember::first_invalid_utf8(name); at != std::string::npos)
//     EMBER_FAIL("{}: {}", what, ember::describe_invalid_utf8(name, at));
//
// nlohmann's parser keeps its own stack, but copying, comparing and dumping a value recurse once
// per level, so a header nested 100,000 deep would overflow the C++ stack there. The depth check
// scans the text once, without recursion, before any value exists. These helpers know nothing of
// nlohmann itself: they work on text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ember {

// Safetensors headers nest 3 deep and optimizer options 2; 64 leaves room and bounds recursion.
inline constexpr int kMaxJsonDepth = 64;
// Characters of user data quoted in an error message.
inline constexpr size_t kExcerptChars = 80;

// Throws ember::Error starting with `what` when arrays and objects in `text` (outside strings)
// nest deeper than `max_depth`. Malformed text is left for the parser to report.
void check_json_depth(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

// The byte offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF), or std::string::npos when it all is.
size_t first_invalid_utf8(std::string_view text);
// "invalid UTF-8 at byte N (why)" for the offset first_invalid_utf8 returned: a byte that cannot
// start a character, a character cut off by the end, a missing continuation byte (N is its offset
// then), an overlong form, a UTF-16 surrogate or a code point above U+10FFFF.
std::string describe_invalid_utf8(std::string_view text, size_t at);

// `text` made safe to quote in an error message: at most `max_chars` bytes of it, control
// characters and bytes that are not well-formed UTF-8 written as \xNN, and "... (N bytes in all)"
// when it was cut.
std::string excerpt(std::string_view text, size_t max_chars = kExcerptChars);

// excerpt() of a JSON value's text; invalid UTF-8 in its strings is replaced rather than thrown.
template <typename Json>
std::string json_excerpt(const Json& value) {
  return excerpt(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace ember
