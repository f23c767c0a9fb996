#!/usr/bin/env bash
# float32 against bfloat16 (autocast) on this machine: the GPT training step of bench/bench_gpt.cpp
# for each preset, in float32 and in bfloat16 with each bf16 gemm kernel (Ember's AMX kernel where the
# CPU has AMX, its vdpbf16ps kernel where it has AVX512_BF16, OpenBLAS's sbgemm, the float32
# fallback; a kernel this machine lacks prints its error), then the kernels alone on the GPT's
# product shapes (bench/bench_bf16.cpp) at each thread count. OpenBLAS is left to pick its own kernels
# (OPENBLAS_CORETYPE unset), so sbgemm gets its AVX-512 BF16 code where it has one.
#
#   bash scripts/bench_bf16.sh                       # baby and video, 2 threads
#   PRESETS=video THREADS=1 bash scripts/bench_bf16.sh
#   TORCH_PYTHON=venv/bin/python bash scripts/bench_bf16.sh   # the PyTorch peer from a venv (2.x)
#
# The PyTorch peer (bench/torch_step.py: nanoGPT's step, float32 and under torch.autocast bfloat16; and
# bench/torch_gemm.py: its matmul on bench_bf16's shapes) runs in the same go with $TORCH_PYTHON
# (default /usr/bin/python3, Debian's torch 1.13) when it has torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESETS=${PRESETS:-"baby video"}
THREADS=${THREADS:-2}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-bench -j "$(nproc)" --target bench_gpt bench_bf16 >/dev/null
steps_for() { case $1 in baby) echo "--steps 20 --warmup 2" ;; *) echo "--steps 3 --warmup 1" ;; esac; }
field() { echo "$1" | awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %-8s %-22s %10s %9s %9s %8s\n" preset threads run ms/step tok/s loss "vs f32"
for preset in $PRESETS; do
  for t in $THREADS; do
    # shellcheck disable=SC2046
    f32=$(env -u OPENBLAS_CORETYPE build-bench/bench/bench_gpt --preset "$preset" --threads "$t" $(steps_for "$preset"))
    printf "%-6s %-8s %-22s %10s %9s %9s %8s\n" "$preset" "$t" float32 "$(field "$f32" ms/step)" \
      "$(field "$f32" tok/s)" "$(field "$f32" loss)" 1.00x
    for kernel in amx avx512bf16 openblas float32; do
      # shellcheck disable=SC2046
      line=$(env -u OPENBLAS_CORETYPE EMBER_BF16_GEMM=$kernel build-bench/bench/bench_gpt --preset "$preset" \
        --threads "$t" --dtype bfloat16 $(steps_for "$preset") 2>&1) || { echo "bfloat16 ($kernel): $line"; continue; }
      printf "%-6s %-8s %-22s %10s %9s %9s %8s\n" "$preset" "$t" "bfloat16 ($kernel)" "$(field "$line" ms/step)" \
        "$(field "$line" tok/s)" "$(field "$line" loss)" \
        "$(awk -v a="$(field "$line" ms/step)" -v b="$(field "$f32" ms/step)" 'BEGIN { printf "%.2fx", b / a }')"
    done
  done
done
for preset in $PRESETS; do
  for t in $THREADS; do env -u OPENBLAS_CORETYPE build-bench/bench/bench_bf16 --preset "$preset" --threads "$t"; done
done
peer=${TORCH_PYTHON:-/usr/bin/python3}
if "$peer" -c "import torch" 2>/dev/null; then
  for preset in $PRESETS; do
    for t in $THREADS; do
      env -u OPENBLAS_CORETYPE "$peer" bench/torch_gemm.py --preset "$preset" --threads "$t"
      for dtype in float32 bfloat16; do
        # shellcheck disable=SC2046
        env -u OPENBLAS_CORETYPE "$peer" bench/torch_step.py --preset "$preset" --threads "$t" --dtype "$dtype" \
          $(steps_for "$preset")
      done
    done
  done
fi
