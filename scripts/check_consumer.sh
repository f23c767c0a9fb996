#!/usr/bin/env bash
# Checks that another CMake project can use Ember: find_package(Ember) after `cmake --install`
# (built, linked and run), and add_subdirectory of this checkout (compiled, link lines checked), each
# with Ember::ember and Ember::torch_compat.
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
# add_subdirectory: the consumer's two programs compiled against the checkout's targets, and their
# link lines checked to name the library built there. Building that library again (a third compile of
# the whole library in CI, about 8 minutes on 2 cores) would test nothing the first build did not: the
# link interface is the same target's, the one the tests and examples link with.
cmake -S "$root/tests/consumer" -B "$work/sub" -DEMBER_SOURCE_DIR="$root" -DEMBER_CUDA=OFF \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
make -C "$work/sub" -j "$(nproc)" main.cpp.o compat_main.cpp.o >/dev/null
for program in consumer compat_consumer; do
  grep -q 'ember/libember\.a' "$work/sub/CMakeFiles/$program.dir/link.txt" ||
    { echo "consumer: add_subdirectory's $program does not link the checkout's libember.a" >&2; exit 1; }
done
echo "consumer: find_package (built and run) and add_subdirectory (compiled; link lines name the checkout's library) work, for Ember::ember and Ember::torch_compat"
