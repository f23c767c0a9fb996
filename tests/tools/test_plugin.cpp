// A plugin library for tests/core/test_plugin.cpp: entry points returning a good table, a table of
// another interface version, and none.
#include <cstdint>

#include "core/plugin.h"

namespace {
struct Table {
  uint32_t abi_version;
  int answer;
};
}  // namespace

#define EMBER_TEST_EXPORT extern "C" __attribute__((visibility("default")))

EMBER_TEST_EXPORT const void* ember_test_plugin() {
  static const Table table{ember::kPluginAbiVersion, 42};
  return &table;
}

EMBER_TEST_EXPORT const void* ember_test_plugin_next_version() {
  static const Table table{ember::kPluginAbiVersion + 1, 0};
  return &table;
}

EMBER_TEST_EXPORT const void* ember_test_plugin_without_table() { return nullptr; }
