#!/usr/bin/env bash
# Conv2d forward + backward, Ember against libtorch 1.13 on this machine, one after the other in one
# go (bench/bench_conv.cpp and bench/torch_conv.cpp, the shapes in bench/bench_conv_common.h).
#
#   bash scripts/bench_conv.sh              # 2 threads, 10 timed iterations per shape
#   THREADS=1 ITERS=5 bash scripts/bench_conv.sh
#
# Needs libtorch-dev for the peer; without it only Ember runs.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
ITERS=${ITERS:-10}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCH=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
targets=(bench_conv)
grep -q "torch_conv" build-bench/Makefile 2>/dev/null && targets+=(torch_conv)
cmake --build build-bench -j "$(nproc)" --target "${targets[@]}" >/dev/null
echo "# $(date -u +%Y-%m-%d) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); threads $THREADS"
EMBER_NO_PERF_WARNINGS=1 build-bench/bench/bench_conv --threads "$THREADS" --iters "$ITERS"
if [ -x build-bench/bench/torch_conv ]; then
  build-bench/bench/torch_conv --threads "$THREADS" --iters "$ITERS"
fi
