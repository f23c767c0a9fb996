#!/usr/bin/env bash
# Ember against libtorch on this machine: the same GPT training step (bench/bench_gpt.cpp and
# bench/torch_gpt.cpp), the same presets and threads, run one after the other in one go, under
# both OpenBLAS settings the issue names: OPENBLAS_CORETYPE=Haswell (what these machines set,
# AVX2 kernels) and unset (OpenBLAS picks its AVX-512 kernels). Prints ms/step, tokens/s,
# GFLOP/s, peak RSS and Ember's speed-up over libtorch.
#
# libtorch runs as found (its OpenMP threads spin, and on 2 cores they fight OpenBLAS's), with
# OMP_WAIT_POLICY=passive, and, when more than one thread is asked for, on one thread. "speedup"
# is Ember's over libtorch as found, "vs best" over the fastest of libtorch's runs.
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
steps_for() { case $1 in baby) echo "--steps 30 --warmup 3" ;; *) echo "--steps 3 --warmup 1" ;; esac; }
field() { echo "$1" | awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b / a }'; }
echo "# $(date -u +%Y-%m-%d) $(uname -m) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf "%-9s %-6s %-7s %-22s %10s %9s %9s %9s %8s %8s\n" coretype preset threads run ms/step tok/s GFLOP/s rss_MiB speedup "vs best"
for coretype in Haswell unset; do
  for preset in $PRESETS; do
    for t in $THREADS; do
      run() {  # [VAR=value ...] binary args -> its result line, under this coretype
        if [ "$coretype" = unset ]; then env -u OPENBLAS_CORETYPE EMBER_NO_PERF_WARNINGS=1 "$@" 2>/dev/null
        else env OPENBLAS_CORETYPE=$coretype EMBER_NO_PERF_WARNINGS=1 "$@" 2>/dev/null; fi
      }
      # shellcheck disable=SC2046
      e=$(run build-bench/bench/bench_gpt --preset "$preset" --threads "$t" $(steps_for "$preset"))
      lines=("ember|$e")
      best=""
      if [ -x build-bench/bench/torch_gpt ]; then
        # shellcheck disable=SC2046
        p=$(run build-bench/bench/torch_gpt --preset "$preset" --threads "$t" $(steps_for "$preset"))
        # shellcheck disable=SC2046
        q=$(run OMP_WAIT_POLICY=passive build-bench/bench/torch_gpt --preset "$preset" --threads "$t" $(steps_for "$preset"))
        lines+=("torch|$p" "torch passive|$q")
        faster() { awk -v a="$(field "$1" ms/step)" -v b="$(field "$2" ms/step)" 'BEGIN { exit !(a < b) }'; }
        best=$p
        faster "$q" "$best" && best=$q
        if [ "$t" -gt 1 ]; then
          # shellcheck disable=SC2046
          o=$(run build-bench/bench/torch_gpt --preset "$preset" --threads 1 $(steps_for "$preset"))
          lines+=("torch 1 thread|$o")
          faster "$o" "$best" && best=$o
        fi
      fi
      for entry in "${lines[@]}"; do
        name=${entry%%|*}
        line=${entry#*|}
        [ -z "$line" ] && continue
        speed="" vsbest=""
        if [ "$name" = ember ] && [ -n "$best" ]; then
          speed=$(ratio "$(field "$e" ms/step)" "$(field "$p" ms/step)")
          vsbest=$(ratio "$(field "$e" ms/step)" "$(field "$best" ms/step)")
        fi
        printf "%-9s %-6s %-7s %-22s %10s %9s %9s %9s %8s %8s\n" "$coretype" "$preset" "$t" "$name" \
          "$(field "$line" ms/step)" "$(field "$line" tok/s)" "$(field "$line" GFLOP/s)" \
          "$(field "$line" peak_rss_mib)" "$speed" "$vsbest"
      done
    done
  done
done
