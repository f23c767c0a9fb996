#!/usr/bin/env bash
# Ember against PyTorch on this machine: ember-charlstm's LSTM language-model training step
# (bench/bench_lstm.cpp and bench/torch_lstm_step.py) at the same shapes and threads, with
# OPENBLAS_CORETYPE unset (on a CPU this OpenBLAS does not know, its pre-AVX kernels) and, on AVX-512
# CPUs, SkylakeX (its AVX-512 kernels). Prints the CPU ms per step of each (the fair number on a
# machine others are using too) and PyTorch's time over Ember's.
#
#   bash scripts/bench_lstm.sh                          # build-bench, 2 threads
#   THREADS=1 PYTHON=/work/venv-torch2/bin/python bash scripts/bench_lstm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
PYTHON=${PYTHON:-python3}
BENCH=${BENCH:-build-bench/bench/bench_lstm}
if [ ! -x "$BENCH" ]; then
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
    -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build build-bench -j "$(nproc)" --target bench_lstm >/dev/null
fi
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); $($PYTHON -c 'import torch; print("PyTorch", torch.__version__)')"
printf "%-9s %-7s %12s %12s %14s\n" coretype shape ember_cpu_ms torch_cpu_ms "torch/ember"
# SkylakeX only where the CPU has AVX-512 (its kernels would stop with SIGILL elsewhere, e.g. on AMD
# Zen 3, where OpenBLAS recognises the CPU by itself).
coretypes=${CORETYPES:-unset $(grep -q avx512f /proc/cpuinfo && echo SkylakeX || true)}
for coretype in $coretypes; do
  if [ "$coretype" = unset ]; then run=(env -u OPENBLAS_CORETYPE); else run=(env OPENBLAS_CORETYPE=$coretype); fi
  ember=$("${run[@]}" "$BENCH" --threads "$THREADS" --benchmark_format=csv 2>/dev/null | grep '^"lstm_step')
  torch=$("${run[@]}" "$PYTHON" bench/torch_lstm_step.py --threads "$THREADS")
  for shape in small wide long; do
    e=$(echo "$ember" | awk -F, -v s="\"lstm_step/$shape/" 'index($1, s) == 1 { print $4 }')
    t=$(echo "$torch" | awk -v s="lstm_step/$shape" '$3 == s { for (i = 1; i < NF; i++) if ($i == "cpu_ms/step") print $(i + 1) }')
    printf "%-9s %-7s %12.1f %12.1f %13.2fx\n" "$coretype" "$shape" "$e" "$t" "$(awk -v a="$e" -v b="$t" 'BEGIN { print b / a }')"
  done
done
