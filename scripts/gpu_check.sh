#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: everything about the CUDA backend that needs one.
#
#   bash scripts/gpu_check.sh            # build dir build-gpu; BUILD_DIR=... JOBS=... to change
#
# Configures with -DEMBER_CUDA=ON, builds, runs the CUDA tests (and fails if they skip: on a GPU
# machine a skip means the GPU was not seen), the whole suite, the CUDA tests again under
# CUDA_LAUNCH_BLOCKING=1 (each launch synchronous, so an error names the kernel that made it), under
# compute-sanitizer (memcheck, racecheck and synccheck on the shared-memory kernels) when it is installed,
# compiles the kernels for every shipped arch and checks ptxas's registers and spills
# (scripts/check_cuda_build.sh), trains `ember-charlm train --preset tiny --device cuda` and
# checks 20 steps' losses against the CPU's when that program was built, runs the nccl backend's
# one-rank tests (and its collectives on 2 ranks when there are 2 GPUs), and runs
# bench_cuda when benchmarks were built. Logs go to $BUILD_DIR/gpu_check/; a summary prints last
# (paste it into docs/GPU.md with the date). Exits non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gpu}
jobs=${JOBS:-$(nproc)}
logs=$build/gpu_check
mkdir -p "$logs"
summary=()
failed=0

# step NAME LOGFILE COMMAND...: runs the command with its output in the log, records PASS/FAIL and time.
step() {
  local name=$1 log=$2
  shift 2
  local start=$SECONDS status=PASS
  echo "== $name"
  if ! "$@" >"$log" 2>&1; then
    status=FAIL
    failed=1
    tail -n 20 "$log"
  fi
  summary+=("$(printf '%-4s  %-34s %5ss  %s' "$status" "$name" $((SECONDS - start)) "$log")")
  [ "$status" = PASS ]
}
skip() { summary+=("$(printf '%-4s  %-34s %5s   %s' SKIP "$1" - "$2")"); }

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu" ] || gpu="(nvidia-smi found no GPU)"

bench_flag=OFF
if compgen -G "/usr/lib/*/cmake/benchmark" >/dev/null || compgen -G "/usr/local/lib*/cmake/benchmark" >/dev/null; then
  bench_flag=ON
fi

tests=$build/tests/ember_tests
cuda_filter='*Cuda*'

if step "configure (EMBER_CUDA=ON)" "$logs/configure.log" \
    cmake -S . -B "$build" -DEMBER_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_BENCH=$bench_flag &&
   step "build (-j$jobs)" "$logs/build.log" cmake --build "$build" -j "$jobs"; then
  # The CUDA tests must run, not skip.
  cuda_tests() {
    "$tests" --gtest_filter="$cuda_filter" 2>&1 | tee "$logs/cuda_tests.out"
    local status=${PIPESTATUS[0]}
    if grep -q "no CUDA device" "$logs/cuda_tests.out"; then
      echo "CUDA tests skipped: the GPU was not seen (check nvidia-smi and the driver)"
      return 1
    fi
    return "$status"
  }
  step "CUDA tests (parity, device)" "$logs/cuda_tests.log" cuda_tests
  step "whole test suite" "$logs/all_tests.log" "$tests"
  step "nvcc sm_80-90, ptxas limits" "$logs/check_cuda_build.log" bash scripts/check_cuda_build.sh
  step "CUDA tests, CUDA_LAUNCH_BLOCKING=1" "$logs/cuda_blocking.log" \
    env CUDA_LAUNCH_BLOCKING=1 "$tests" --gtest_filter="$cuda_filter"

  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  if [ -n "$sanitizer" ]; then
    step "compute-sanitizer memcheck" "$logs/memcheck.log" \
      "$sanitizer" --tool memcheck --error-exitcode 1 --leak-check full "$tests" --gtest_filter="$cuda_filter"
    shared_kernels='*CudaParity*/*softmax*:*CudaParity*/*sum*:*CudaParity*/*max*:*CudaParity*/*norm*'
    step "compute-sanitizer racecheck" "$logs/racecheck.log" \
      "$sanitizer" --tool racecheck --error-exitcode 1 "$tests" --gtest_filter="$shared_kernels"
    step "compute-sanitizer synccheck" "$logs/synccheck.log" \
      "$sanitizer" --tool synccheck --error-exitcode 1 "$tests" --gtest_filter="$shared_kernels"
  else
    skip "compute-sanitizer" "not installed (ships with the CUDA Toolkit: /usr/local/cuda/bin)"
  fi

  charlm=$build/examples/charlm/ember-charlm
  if [ -x "$charlm" ]; then
    step "charlm tiny preset on CUDA" "$logs/charlm_tiny.log" \
      "$charlm" train --preset tiny --device cuda --out_dir "$logs/charlm-tiny"
    # The emulator's CharlmTrainsToTheCpusLossesOnCuda, on the GPU: 20 steps, the evaluations'
    # losses within 2e-3 of the CPU's (device math and cuBLAS's order differ in the last bits).
    charlm_parity() {
      local args=(train --preset tiny --max_iters 20 --eval_interval 10 --eval_iters 2)
      rm -rf "$logs/parity-cpu" "$logs/parity-cuda"
      "$charlm" "${args[@]}" --device cpu --out_dir "$logs/parity-cpu" | grep -E '^step [0-9]+:' >"$logs/parity_cpu.txt"
      "$charlm" "${args[@]}" --device cuda --out_dir "$logs/parity-cuda" | grep -E '^step [0-9]+:' >"$logs/parity_cuda.txt"
      paste -d'|' "$logs/parity_cpu.txt" "$logs/parity_cuda.txt"
      python3 - "$logs/parity_cpu.txt" "$logs/parity_cuda.txt" <<'PY'
import re, sys
cpu, gpu = ([float(x) for x in re.findall(r"loss (\d+\.\d+)", open(f).read())] for f in sys.argv[1:])
assert len(cpu) >= 6 and len(cpu) == len(gpu), (cpu, gpu)
worst = max(abs(a - b) for a, b in zip(cpu, gpu))
print(f"largest difference {worst:.5f}")
sys.exit(0 if worst <= 2e-3 else 1)
PY
    }
    step "charlm 20 steps: CUDA losses = CPU's" "$logs/charlm_parity.log" charlm_parity
  else
    skip "charlm tiny preset on CUDA" "ember-charlm was not built"
  fi

  # The nccl backend: one rank on this GPU (NCCL refuses two ranks on one GPU), then, with two GPUs
  # or more, the collectives over 2 processes under ember-run, one GPU each.
  dist_tests=$build/tests/distributed/ember_distributed_tests
  if [ -x "$dist_tests" ] && grep -q "nccl backend ON" "$logs/configure.log"; then
    nccl_one_rank() {
      "$dist_tests" --gtest_filter='NcclBackend.*' 2>&1 | tee "$logs/nccl_tests.out"
      local status=${PIPESTATUS[0]}
      grep -qF "OK ] NcclBackend.OneRankOnTheGpu" "$logs/nccl_tests.out" || { echo "OneRankOnTheGpu did not run"; return 1; }
      "$build/tests/distributed/nccl_compat" && return "$status"
    }
    step "nccl backend, 1 rank on the GPU" "$logs/nccl_one_rank.log" nccl_one_rank
    gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
    if [ "$gpus" -ge 2 ]; then
      step "nccl collectives, 2 ranks x 1 GPU" "$logs/nccl_two_ranks.log" env EMBER_DIST_BACKEND=nccl \
        "$build/ember-run" --nproc_per_node 2 --master_port 29731 "$build/tests/distributed/dist_worker" collectives 60000
    else
      skip "nccl collectives, 2 ranks x 1 GPU" "needs 2 GPUs ($gpus here)"
    fi
  else
    skip "nccl backend" "not built (needs Gloo, and NCCL in the CUDA toolkit)"
  fi

  if [ -x "$build/bench/bench_cuda" ]; then
    step "bench_cuda" "$logs/bench_cuda.log" "$build/bench/bench_cuda"
  else
    skip "bench_cuda" "not built (needs Google Benchmark and bench/bench_cuda.cpp)"
  fi
fi

echo
echo "==== Ember GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "GPU: $gpu"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
echo "nvcc: $("$nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'not found')"
printf '%s\n' "${summary[@]}"
if [ -f "$logs/cuda_tests.log" ]; then
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$logs/cuda_tests.log" | sed 's/^/  cuda tests: /'
fi
if [ -f "$logs/charlm_tiny.log" ]; then
  echo "  charlm (last lines):"
  tail -n 3 "$logs/charlm_tiny.log" | sed 's/^/    /'
fi
[ "$failed" = 0 ] && echo "RESULT: all steps passed" || echo "RESULT: some steps FAILED (see the logs above)"
exit "$failed"
