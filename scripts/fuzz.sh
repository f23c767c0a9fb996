#!/usr/bin/env bash
# Fuzzes the file readers and the TCP store's protocol (tests/fuzz): builds each target with Clang's
# libFuzzer, ASan and UBSan in build-fuzz and runs it for SECONDS (default 180) from its committed
# seeds, tests/fuzz/corpus/<target>. Inputs that reach new code collect in build-fuzz/corpus/<target>;
# a crash, a sanitizer report or an exception other than ember::Error stops that target and leaves
# its input in build-fuzz/findings/<target>/ (then this script fails). Further arguments go to libFuzzer, e.g.
#   scripts/fuzz.sh 600 -fork=2 -ignore_crashes=1     # keep going after a crash, two processes
# To keep a finding as a regression test once it is fixed, copy it into tests/fuzz/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
shift || true
bash scripts/setup.sh
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_FUZZ=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=ON -DEMBER_CUDA=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_safetensors fuzz_checkpoint_header fuzz_tcp_store
status=0
for target in safetensors checkpoint_header tcp_store; do
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/findings/$target"
  echo "== fuzz_$target for ${seconds}s"
  OMP_NUM_THREADS=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$target/" "$@" \
    "build-fuzz/corpus/$target" "tests/fuzz/corpus/$target" || status=1
done
ls -l build-fuzz/findings/*/ 2>/dev/null | grep -v '^total' || true
exit $status
