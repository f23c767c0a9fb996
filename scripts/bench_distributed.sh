#!/usr/bin/env bash
# Data-parallel speed on this machine, printed as markdown to paste into docs/PERFORMANCE.md:
#  1. ember-charlm training as 1 process x 2 threads and as 2 processes x 1 thread (ember-run, DDP
#     over gloo), the same sequences per step in both (the single process takes the two ranks' batches
#     as 2 micro-batches): the baby preset, and the video preset with batch_size 8 (a few steps).
#  2. bench_allreduce: all-reduce time against bytes (4 KiB .. 64 MiB, 2 ranks on the loopback) and
#     for the two presets' gradients as DDP reduces them, with the share of a 2-process step it takes.
#   bash scripts/bench_distributed.sh          # BABY_STEPS=60 VIDEO_STEPS=8; about 2 minutes when idle
# Run it on an otherwise idle machine: the load average is printed before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
BABY_STEPS=${BABY_STEPS:-60}
VIDEO_STEPS=${VIDEO_STEPS:-8}
VIDEO_BATCH=${VIDEO_BATCH:-8}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=ON >/dev/null
cmake --build build-bench -j "$(nproc)" --target ember-charlm ember-run bench_allreduce >/dev/null
charlm=build-bench/examples/charlm/ember-charlm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "Data-parallel training, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, commit $(git rev-parse --short HEAD), load average before: $(load)"
echo
echo "| preset | run | steps | tokens/step | median tokens/s | ms/step | final train loss |"
echo "|---|---|---|---|---|---|---|"
declare -A ms_per_step
# train PRESET STEPS TOKENS_PER_STEP EXTRA_ARGS...: one row per layout.
train() {
  local preset=$1 steps=$2 tokens=$3
  shift 3
  local common=(train --data data/tinyshakespeare.txt --preset "$preset" --max_iters "$steps" --eval_interval 100000
    --eval_iters 1 --overwrite "$@")
  local one two
  one=$(OMP_NUM_THREADS=2 $charlm "${common[@]}" --threads 2 --gradient_accumulation_steps 2 --out_dir "$tmp/one" |
    grep summary:)
  two=$(OMP_NUM_THREADS=1 build-bench/ember-run --nproc_per_node 2 --master_port 29611 \
    $charlm "${common[@]}" --threads 1 --out_dir "$tmp/two" | grep summary:)
  local label summary
  for label in "1 process x 2 threads" "2 processes x 1 thread"; do
    summary=$one
    [ "$label" = "2 processes x 1 thread" ] && summary=$two
    local tps loss ms
    tps=$(sed -E 's/.*median ([0-9]+) tokens\/s.*/\1/' <<<"$summary")
    loss=$(sed -E 's/.*train loss ([0-9.]+),.*/\1/' <<<"$summary")
    ms=$(awk -v t="$tokens" -v r="$tps" 'BEGIN { printf "%.0f", (r > 0 ? 1000 * t / r : 0) }')
    echo "| $preset | $label | $steps | $tokens | $tps | $ms | $loss |"
  done
  ms_per_step[$preset]=$ms  # the 2-process step, for the all-reduce's share below
}
# Tokens per step: 2 micro-batches (or 2 ranks) x batch_size x block_size.
train baby "$BABY_STEPS" $((2 * 12 * 64))
train video "$VIDEO_STEPS" $((2 * VIDEO_BATCH * 256)) --batch_size "$VIDEO_BATCH"
echo
echo "video: batch_size $VIDEO_BATCH per micro-batch (the preset's 64 makes each step 8x longer); dropout 0.2 as the preset."
echo
echo "All-reduce over gloo, 2 processes on the loopback (bench_allreduce):"
echo
OMP_NUM_THREADS=1 build-bench/ember-run --nproc_per_node 2 --master_port 29612 build-bench/bench/bench_allreduce |
  tee "$tmp/allreduce.md"
echo
for preset in baby video; do
  ar=$(grep "^| $preset:" "$tmp/allreduce.md" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
  awk -v p="$preset" -v a="$ar" -v s="${ms_per_step[$preset]}" \
    'BEGIN { if (s > 0) printf "%s: all-reduce %.1f ms against a %.0f ms 2-process step (%.1f%%; DDP overlaps it with backward)\n", p, a, s, 100 * a / s }'
done
echo "load average after: $(load)"
