// Whether this translation unit is built under AddressSanitizer: EMBER_ASAN is defined (to 1) when
// it is. g++ says so with __SANITIZE_ADDRESS__; Clang (CI's sanitizer compiler) only through
// __has_feature(address_sanitizer). Test `#ifdef EMBER_ASAN`, never either spelling alone.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define EMBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_ASAN 1
#endif
#endif
