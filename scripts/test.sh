#!/usr/bin/env bash
# Builds Ember and runs every test. This is the README's test command. The default stage also compiles
# the kernels with nvcc for sm_80/86/89/90 and checks ptxas's report (scripts/check_cuda_build.sh), and
# packs the GPU bundle from its build and runs it in a bare root (scripts/test_gpu_bundle.sh); both
# skipped without nvcc.
#   --sanitize  the suite built by Clang under ASan + UBSan, with the CUDA backend run by the CPU
#               emulator (cuda/emu/), so its kernels run under the sanitizers too, and its CUDA tests in
#               all three thread orders. This is also CI's compiler check.
#   --emulate   the emulated suite built by g++ (build-emu), without sanitizers.
#   --clang     the emulated suite built by Clang (build-clang), without sanitizers.
# CI (.ci/run) calls it, then --sanitize: two builds from scratch, the g++/nvcc one and the Clang one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc)
run_suite() {  # build dir, extra cmake flags...
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=ON -DEMBER_BUILD_EXAMPLES=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j "$jobs")
}
emulated_suite() {  # build dir, extra cmake flags...: the emulated CUDA tests in all three thread orders
  local dir=$1
  EMBER_EMU_ORDER=forward run_suite "$@" -DEMBER_CUDA=EMULATE
  # The CUDA tests again (barriers must not depend on thread order), both orders at once: the
  # emulator runs a kernel's threads on one core.
  local order pids=() failed=0 i=0
  for order in reverse shuffle; do
    EMBER_EMU_ORDER=$order "$dir"/tests/ember_tests --gtest_filter='*Cuda*' --gtest_brief=1 >"$dir/emu_$order.log" 2>&1 &
    pids+=($!)
  done
  for order in reverse shuffle; do
    wait "${pids[$i]}" || failed=1
    i=$((i + 1))
    echo "CUDA tests, emulated, threads resumed in $order order"
    cat "$dir/emu_$order.log"
  done
  return $failed
}
if [ "${1:-}" = "--sanitize" ]; then
  # The library at -O1 -g1 (line tables: enough for the reports' stack traces), as ASan's documentation
  # suggests; the test drivers at -O0 (EMBER_TEST_OPT). Clang compiles this about twice as fast as g++,
  # and the library's precompiled header (EMBER_LIBRARY_PCH) halves its parsing; the default stage
  # compiles without it, so that each file's includes are still checked there.
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    emulated_suite build-sanitize -DCMAKE_CXX_COMPILER=clang++ -DEMBER_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DEMBER_LIBRARY_PCH=ON
elif [ "${1:-}" = "--emulate" ]; then
  emulated_suite build-emu
elif [ "${1:-}" = "--clang" ]; then
  emulated_suite build-clang -DCMAKE_CXX_COMPILER=clang++
else
  # No GPU runs this build's kernels here: one architecture is enough to link and pack it, and
  # check_cuda_build.sh compiles every shipped architecture once more with ptxas's report (the default,
  # all five, would make nvcc generate each architecture twice: about 4 minutes of CI on 2 cores).
  run_suite build -DEMBER_CUDA_ARCHITECTURES=90-real
  bash scripts/check_consumer.sh build
  bash scripts/check_cuda_build.sh  # nvcc for every shipped GPU arch: warnings, spills, registers
  bash scripts/test_gpu_bundle.sh build  # the GPU bundle from this build, run in a bare root without a GPU
fi
