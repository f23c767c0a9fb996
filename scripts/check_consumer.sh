#!/usr/bin/env bash
# Checks that another CMake project can use Ember: find_package(Ember) after `cmake --install`,
# and add_subdirectory of this checkout, each linking Ember::ember and Ember::torch_compat.
# Usage: check_consumer.sh BUILD_DIR (an already built tree).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/tests/consumer" -B "$work/fp" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/fp" -j "$(nproc)" >/dev/null
"$work/fp/consumer"
"$work/fp/compat_consumer"
grep -q 'Ember::torch_compat' "$work/prefix"/lib*/cmake/Ember/EmberTargets.cmake ||
  { echo "consumer: the installed package does not define Ember::torch_compat" >&2; exit 1; }
cmake -S "$root/tests/consumer" -B "$work/sub" -DEMBER_SOURCE_DIR="$root" -DEMBER_CUDA=OFF \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$work/sub" -j "$(nproc)" >/dev/null
"$work/sub/consumer"
"$work/sub/compat_consumer"
echo "consumer: find_package and add_subdirectory both work, for Ember::ember and Ember::torch_compat"
