#!/usr/bin/env bash
# Data-parallel speed on this machine: ember-charlm's baby preset for STEPS steps as 1 process x 2
# threads and as 2 processes x 1 thread (ember-run, DDP), the same per-step work in both (the single
# process takes the two ranks' batches as 2 micro-batches), then all-reduce time against bytes.
#   bash scripts/bench_distributed.sh            # STEPS=60 by default
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${STEPS:-60}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=ON >/dev/null
cmake --build build-bench -j "$(nproc)" --target ember-charlm ember-run bench_allreduce >/dev/null
charlm=build-bench/examples/charlm/ember-charlm
common=(train --data data/tinyshakespeare.txt --preset baby --max_iters "$STEPS" --eval_interval 100000 --eval_iters 1 --overwrite)
tmp=$(mktemp -d)
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; baby preset, $STEPS steps of 2 x 12 sequences of 64 characters"
one=$(OMP_NUM_THREADS=2 $charlm "${common[@]}" --threads 2 --gradient_accumulation_steps 2 --out_dir "$tmp/one" | grep summary:)
echo "1 process x 2 threads:   $one"
two=$(OMP_NUM_THREADS=1 build-bench/ember-run --nproc_per_node 2 --master_port 29611 $charlm "${common[@]}" --threads 1 --out_dir "$tmp/two" | grep summary:)
echo "2 processes x 1 thread:  $two"
echo "# all-reduce, 2 processes on the loopback"
OMP_NUM_THREADS=1 build-bench/ember-run --nproc_per_node 2 --master_port 29612 build-bench/bench/bench_allreduce
rm -rf "$tmp"
