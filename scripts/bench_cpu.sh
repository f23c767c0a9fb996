#!/usr/bin/env bash
# Ember against libtorch on this machine: the same GPT training step (bench/bench_gpt.cpp and
# bench/torch_gpt.cpp), the same presets and threads, run one after the other in one go, under
# both OpenBLAS settings the issue names: OPENBLAS_CORETYPE=Haswell (what these machines set,
# AVX2 kernels) and unset (OpenBLAS picks its AVX-512 kernels). Prints ms/step, tokens/s,
# GFLOP/s, peak RSS and Ember's speed-up over libtorch.
#
#   bash scripts/bench_cpu.sh                      # baby and video, 2 threads
#   PRESETS=baby THREADS="1 2" bash scripts/bench_cpu.sh
#
# Needs libtorch-dev (apt-get install libtorch-dev) for the peer; without it only Ember runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESETS=${PRESETS:-"baby video"}
THREADS=${THREADS:-2}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
targets=(bench_gpt)
grep -q "torch_gpt" build-bench/Makefile 2>/dev/null && targets+=(torch_gpt)
cmake --build build-bench -j "$(nproc)" --target "${targets[@]}" >/dev/null
steps_for() { case $1 in baby) echo "--steps 30 --warmup 3" ;; *) echo "--steps 4 --warmup 1" ;; esac; }
echo "# $(date -u +%Y-%m-%d) $(uname -m) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf "%-9s %-6s %-7s %-7s %10s %9s %9s %9s %8s\n" coretype preset threads fw ms/step tok/s GFLOP/s rss_MiB speedup
for coretype in Haswell unset; do
  for preset in $PRESETS; do
    for t in $THREADS; do
      run() {  # framework binary -> its result line
        if [ "$coretype" = unset ]; then env -u OPENBLAS_CORETYPE EMBER_NO_PERF_WARNINGS=1 "$@"
        else OPENBLAS_CORETYPE=$coretype EMBER_NO_PERF_WARNINGS=1 "$@"; fi
      }
      # shellcheck disable=SC2046
      e=$(run build-bench/bench/bench_gpt --preset "$preset" --threads "$t" $(steps_for "$preset"))
      p=""
      # shellcheck disable=SC2046
      [ -x build-bench/bench/torch_gpt ] && p=$(run build-bench/bench/torch_gpt --preset "$preset" --threads "$t" $(steps_for "$preset") 2>/dev/null)
      field() { echo "$1" | awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
      for line in "$e" "$p"; do
        [ -z "$line" ] && continue
        fw=$(echo "$line" | cut -d' ' -f1)
        speed=""
        [ "$fw" = ember ] && [ -n "$p" ] && speed=$(awk -v a="$(field "$e" ms/step)" -v b="$(field "$p" ms/step)" 'BEGIN { printf "%.2fx", b / a }')
        printf "%-9s %-6s %-7s %-7s %10s %9s %9s %9s %8s\n" "$coretype" "$preset" "$t" "$fw" "$(field "$line" ms/step)" \
          "$(field "$line" tok/s)" "$(field "$line" GFLOP/s)" "$(field "$line" peak_rss_mib)" "$speed"
      done
    done
  done
done
