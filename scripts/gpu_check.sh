#!/usr/bin/env bash
# The GPU check on a machine with an NVIDIA GPU and Ember's build dependencies: builds with
# -DEMBER_CUDA=ON, runs the bundle's steps (scripts/gpu_steps.sh: environment, smoke test, every CUDA
# test suite in its own process, failed tests again under CUDA_LAUNCH_BLOCKING=1, the charlm 20-step
# CPU-vs-CUDA loss parity, the nccl backend on one rank, compute-sanitizer memcheck / racecheck /
# synccheck on the shared-memory kernels, bench_cuda), then what needs the build tree: the whole
# suite, scripts/check_cuda_build.sh, the tiny charlm preset trained on CUDA, and the nccl collectives
# on 2 ranks when there are 2 GPUs. A bare GPU machine without the dependencies runs the bundle
# instead (scripts/gpu_bundle.sh, docs/GPU.md).
#
#   bash scripts/gpu_check.sh     # BUILD_DIR=build-gpu JOBS=$(nproc) GPU_BUDGET_S=3600 (the shared steps)
#
# Logs and summary.txt go to $BUILD_DIR/gpu_check/. Exit status: 0 all passed, 1 a step failed, 2 no
# CUDA device (nothing after the smoke test runs).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gpu}
jobs=${JOBS:-$(nproc)}
LOG_DIR=$build/gpu_check
WORK=$LOG_DIR/logs
BUDGET_S=${GPU_BUDGET_S:-3600}
mkdir -p "$WORK"

bench_flag=OFF
if compgen -G "/usr/lib/*/cmake/benchmark" >/dev/null || compgen -G "/usr/local/lib*/cmake/benchmark" >/dev/null; then
  bench_flag=ON
fi
echo "== configure and build ($build, -j$jobs)"
if ! { cmake -S . -B "$build" -DEMBER_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_BENCH=$bench_flag &&
  cmake --build "$build" -j "$jobs"; } >"$WORK/build.log" 2>&1; then
  tail -n 30 "$WORK/build.log"
  echo "RESULT: the build failed ($WORK/build.log)"
  exit 1
fi

EMBER_TESTS=$build/tests/ember_tests
CHARLM=$build/examples/charlm/ember-charlm
CHARLM_DATA=data/tinyshakespeare.txt
BENCH_CUDA=$build/bench/bench_cuda
DIST_TESTS=$build/tests/distributed/ember_distributed_tests
NCCL_COMPAT=$build/tests/distributed/nccl_compat
GPU_HEADER="commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), nvcc $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo '?')"
# shellcheck source=gpu_steps.sh
source scripts/gpu_steps.sh
gpu_run_steps
status=$?
[ "$status" = 2 ] && { cat "$LOG_DIR/summary.txt"; exit 2; }

# What only a build tree can run, after the shared steps.
extra() {  # name, command...
  local name=$1 log start
  shift
  log="$WORK/extra_$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log"
  start=$SECONDS
  echo "== $name"
  if "$@" >"$log" 2>&1; then
    GPU_SUMMARY+=("$(printf '%-4s  %-44s %4ss   %s' PASS "$name" $((SECONDS - start)) "${log#"$WORK"/}")")
  else
    tail -n 20 "$log" | sed 's/^/  | /'
    GPU_SUMMARY+=("$(printf '%-4s  %-44s %4ss   %s' FAIL "$name" $((SECONDS - start)) "${log#"$WORK"/}")")
    status=1
  fi
  gpu_write_summary
}
extra "whole test suite" "$EMBER_TESTS"
extra "nvcc sm_80-90, ptxas limits" bash scripts/check_cuda_build.sh
[ -x "$CHARLM" ] && extra "charlm tiny preset on CUDA" "$CHARLM" train --preset tiny --device cuda \
  --data "$CHARLM_DATA" --out_dir "$WORK/charlm-tiny"
if [ -x "$DIST_TESTS" ] && [ "$(nvidia-smi --list-gpus 2>/dev/null | wc -l)" -ge 2 ]; then
  extra "nccl collectives, 2 ranks x 1 GPU" env EMBER_DIST_BACKEND=nccl "$build/ember-run" --nproc_per_node 2 \
    --master_port 29731 "$build/tests/distributed/dist_worker" collectives 60000
fi
echo
cat "$LOG_DIR/summary.txt"
[ "$status" = 0 ] && echo "RESULT: all steps passed" || echo "RESULT: some steps FAILED (logs in $WORK)"
exit "$status"
