# The GPU check's steps, in priority order, for a machine with an NVIDIA GPU; sourced by the bundle's
# runner (scripts/gpu_run.sh, run.sh in the bundle) and by scripts/gpu_check.sh, which set where the
# programs are and call gpu_run_steps:
#
#   EMBER_TESTS CHARLM CHARLM_DATA BENCH_CUDA DIST_TESTS NCCL_COMPAT   the programs (absent ones skip)
#   WORK        a scratch folder for the step logs          LOG_DIR    where summary.txt and logs.tar.gz go
#   BUDGET_S    seconds for all steps together             GPU_ENV_FILE  optional: text the environment
#                                                                         step prints (library origins)
#
# Each step has a cap (the most it may take) and a floor (the least worth starting it with): a step
# runs under `timeout` for the smaller of its cap and what is left of the budget, and is skipped, with
# a line saying so, when less than its floor is left. After every step the summary and a tarball of
# the logs are rewritten, so a run killed at its limit still leaves them. The smoke step ends the run
# with exit code 2 when no CUDA device is seen (gpu_run_steps returns 2).
# shellcheck shell=bash

# name|cap s|floor s|function
GPU_STEPS=(
  "environment|20|1|gpu_step_environment"
  "smoke: one CUDA test on the device|60|5|gpu_step_smoke"
  "CUDA tests, one process per suite|200|30|gpu_step_cuda_tests"
  "failed tests again, CUDA_LAUNCH_BLOCKING=1|90|15|gpu_step_blocking_reruns"
  "charlm 20 steps: CUDA losses = CPU's|90|20|gpu_step_charlm_parity"
  "nccl backend, 1 rank on the GPU|60|15|gpu_step_nccl"
  "compute-sanitizer memcheck (+leaks)|120|30|gpu_step_memcheck"
  "compute-sanitizer racecheck|120|30|gpu_step_racecheck"
  "compute-sanitizer synccheck|90|30|gpu_step_synccheck"
  "bench_cuda|150|30|gpu_step_bench"
)

# The tests of the kernels that use shared memory, by kernel (compute-sanitizer's racecheck and
# synccheck see only what runs): attention.cu, norm.cu (LayerNorm), reduce.cu, loss.cu
# (cross-entropy), nn.cu (softmax), pool.cu (pooling, BatchNorm), optim.cu (clip_grad_norm_'s sums),
# attention_mma.cu (the tensor-core forward).
GPU_SHARED_MEMORY_TESTS=(
  "attention|*CudaAttention.*"
  "attention_mma|*CudaAttentionTensorCores.ForwardMatchesFloat64*"
  "layer_norm|*CudaFused.LayerNorm*"
  "reductions|*CudaFused.*Reductions*:*CudaParity*/*sum*:*CudaParity*/*amax*:*CudaParity*/*mean*"
  "cross_entropy|*CudaLoss.CrossEntropy*"
  "softmax|*CudaParity*/*softmax*"
  "pooling|*CudaPoolNorm.*"
  "clip_grad_norm|*CudaFused.ClipGradNorm*"
)
# Never under a sanitizer: it asks the device for 16 TiB on purpose.
GPU_SANITIZER_EXCLUDED="CudaDevice.OutOfMemoryIsAnErrorNotAnAbort"
GPU_SMOKE_TEST="CudaDevice.ScalarsAndEmptyTensors"

gpu_shared_memory_filter() {
  local entry filter=""
  for entry in "${GPU_SHARED_MEMORY_TESTS[@]}"; do filter+="${filter:+:}${entry#*|}"; done
  echo "$filter-$GPU_SANITIZER_EXCLUDED"
}

gpu_find_sanitizer() {
  command -v compute-sanitizer 2>/dev/null && return
  local c
  for c in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda-*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer/compute-sanitizer; do
    [ -x "$c" ] && { echo "$c"; return; }
  done
}

# ---- the steps: each writes its detail to stdout (the step's log) and returns 0 for PASS ----

gpu_step_environment() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(uname -srm)"
  [ -r /etc/os-release ] && grep -E '^PRETTY_NAME=' /etc/os-release
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 | head -n 9
    nvidia-smi 2>&1 | head -n 12
  else
    echo "nvidia-smi: not found"
  fi
  [ -r /proc/driver/nvidia/version ] && head -n 1 /proc/driver/nvidia/version
  [ -n "${GPU_ENV_FILE:-}" ] && [ -r "$GPU_ENV_FILE" ] && cat "$GPU_ENV_FILE"
  local sanitizer
  sanitizer=$(gpu_find_sanitizer)
  echo "compute-sanitizer: ${sanitizer:-not found}"
  if command -v ldd >/dev/null && [ -x "$EMBER_TESTS" ]; then
    # The CUDA libraries are the plugins' (cuda/plugin.h), loaded beside libember.so at the first CUDA
    # call; a plugin that cannot load would look like a machine without a GPU, so they are checked here.
    local object objects=("$EMBER_TESTS") missing=0
    for object in "$(dirname "$EMBER_TESTS")"/../lib/libember_cuda.so "$(dirname "$EMBER_TESTS")"/../lib/libember_nccl.so; do
      if [ -f "$object" ]; then objects+=("$object"); fi
    done
    local needs
    for object in "${objects[@]}"; do
      echo "ldd $(basename "$object") (CUDA libraries and anything missing):"
      needs=$(ldd "$object" 2>&1)  # read whole: `ldd | grep -q` fails under pipefail when grep stops early
      grep -E 'not found|cublas|cudart|curand|nccl|libcuda|libember' <<<"$needs" | sed 's/^/  /'
      if grep -q 'not found' <<<"$needs"; then missing=1; fi
    done
    [ "$missing" = 0 ]
  fi
}

gpu_step_smoke() {
  local out status plugin
  # The tests start without the CUDA libraries, which only the CUDA plugin needs (cuda/plugin.h), and
  # a plugin that cannot load looks like a machine without a GPU: that is "cannot start" too.
  plugin="$(dirname "$EMBER_TESTS")/../lib/libember_cuda.so"
  if [ -f "$plugin" ] && grep -q 'not found' <<<"$(ldd "$plugin" 2>&1)"; then
    ldd "$plugin" 2>&1 | grep 'not found' | sed 's/^/  /'
    echo "SMOKE: the CUDA plugin cannot start (a library is missing: see the environment step)"
    return 3
  fi
  out=$("$EMBER_TESTS" --gtest_filter="$GPU_SMOKE_TEST" 2>&1)
  status=$?
  echo "$out"
  if [ "$status" = 127 ] || grep -q 'error while loading shared libraries' <<<"$out"; then
    echo "SMOKE: the test binary cannot start (a library is missing: see the environment step)"
    return 3
  fi
  if grep -q 'no CUDA device' <<<"$out"; then
    local why="the CUDA tests skip"
    if [ -x "${CHARLM:-}" ]; then  # the trainer prints why: "CUDA: no CUDA device available (cudaError...)"
      why=$("$CHARLM" train --preset tiny --max_iters 1 --device cuda --data "$CHARLM_DATA" \
        --out_dir "$WORK/smoke-charlm" 2>&1 | grep -o 'no CUDA device available.*' | head -n 1)
    fi
    echo "SMOKE: no CUDA device: ${why:-the CUDA tests skip}"
    return 2
  fi
  grep -q "OK \] $GPU_SMOKE_TEST" <<<"$out" && [ "$status" = 0 ]
}

# The test suites the filter selects, as gtest names them ("Dtypes/CudaFused").
gpu_list_suites() {
  "$EMBER_TESTS" --gtest_list_tests --gtest_filter="$1" | grep -E '^[^ ].*\.$' | sed 's/\.$//'
}

gpu_step_cuda_tests() {
  local suite log failed=0 start status
  mkdir -p "$WORK/cuda_tests"
  : >"$WORK/failed_tests.txt"
  for suite in $(gpu_list_suites '*Cuda*'); do
    log="$WORK/cuda_tests/${suite//\//_}.log"
    start=$SECONDS
    "$EMBER_TESTS" --gtest_filter="$suite.*" >"$log" 2>&1
    status=$?
    grep -E '^\[  FAILED  \] [^ ]+\.[^ ]+' "$log" | grep -v ' tests\?,' | awk '{sub(/,$/, "", $4); print $4}' | sort -u \
      >>"$WORK/failed_tests.txt"
    if grep -q 'no CUDA device' "$log"; then
      echo "FAIL $suite: skipped 'no CUDA device' ($((SECONDS - start)) s)"
      failed=1
    elif [ "$status" != 0 ]; then
      echo "FAIL $suite: exit $status, $(grep -cE '^\[  FAILED  \] [^ ]+\.' "$log") failed lines ($((SECONDS - start)) s)"
      tail -n 30 "$log" | sed 's/^/    /'
      grep -q "$suite" "$WORK/failed_tests.txt" || echo "$suite.*" >>"$WORK/failed_tests.txt"  # crashed
      failed=1
    else
      echo "PASS $suite: $(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | awk '{print $4}') tests ($((SECONDS - start)) s)"
    fi
  done
  sort -u -o "$WORK/failed_tests.txt" "$WORK/failed_tests.txt"
  return "$failed"
}

gpu_step_blocking_reruns() {
  local test failed=0
  if ! [ -s "$WORK/failed_tests.txt" ]; then
    echo "no test failed: nothing to rerun"
    return 0
  fi
  mkdir -p "$WORK/blocking"
  while read -r test; do
    echo "== $test, CUDA_LAUNCH_BLOCKING=1 EMBER_CUDA_SYNC=1"
    if CUDA_LAUNCH_BLOCKING=1 EMBER_CUDA_SYNC=1 "$EMBER_TESTS" --gtest_filter="$test" \
      >"$WORK/blocking/${test//[\/*]/_}.log" 2>&1; then
      echo "  passes when synchronous (an ordering or race problem?)"
    else
      failed=1
      grep -E 'CUDA error|Failure|FAILED|error:' "$WORK/blocking/${test//[\/*]/_}.log" | head -n 8 | sed 's/^/  /'
    fi
  done <"$WORK/failed_tests.txt"
  return "$failed"
}

# The emulator's CharlmTrainsToTheCpusLossesOnCuda on the GPU: 20 steps, every loss both runs print
# within 2e-3 (device math and cuBLAS's order differ from the CPU's in the last bits).
gpu_step_charlm_parity() {
  [ -x "$CHARLM" ] || { echo "ember-charlm was not built: skipped"; return 0; }
  local args=(train --preset tiny --max_iters 20 --eval_interval 10 --eval_iters 2 --data "$CHARLM_DATA")
  rm -rf "$WORK/charlm-cpu" "$WORK/charlm-cuda"
  "$CHARLM" "${args[@]}" --device cpu --out_dir "$WORK/charlm-cpu" >"$WORK/charlm_cpu.txt" 2>&1 || {
    cat "$WORK/charlm_cpu.txt"; return 1; }
  "$CHARLM" "${args[@]}" --device cuda --out_dir "$WORK/charlm-cuda" >"$WORK/charlm_cuda.txt" 2>&1 || {
    cat "$WORK/charlm_cuda.txt"; return 1; }
  # "step 10: train loss 4.0900, val loss 4.0853" and "step 12/20 loss 4.0556", by step and kind.
  awk '
    function keep(file, key, v) { if (file == ARGV[1]) cpu[key] = v; else gpu[key] = v }
    /^step [0-9]+: train loss/ { s = $2; sub(":", "", s); t = $5; sub(",", "", t)
                                keep(FILENAME, "train@" s, t); keep(FILENAME, "val@" s, $8) }
    /^step [0-9]+\/[0-9]+ loss/ { split($2, p, "/"); keep(FILENAME, "step@" p[1], $4) }
    END {
      n = 0; worst = 0
      for (k in cpu) if (k in gpu) { d = cpu[k] - gpu[k]; if (d < 0) d = -d; if (d > worst) worst = d; n++
                                      printf "%-10s cpu %s cuda %s\n", k, cpu[k], gpu[k] }
      printf "compared %d losses, largest difference %.5f (limit 0.002)\n", n, worst
      exit (n >= 6 && ("train@20" in gpu) && worst <= 0.002) ? 0 : 1
    }' "$WORK/charlm_cpu.txt" "$WORK/charlm_cuda.txt"
}

gpu_step_nccl() {
  [ -x "$DIST_TESTS" ] || { echo "the distributed tests were not built: skipped"; return 0; }
  local out status
  out=$("$DIST_TESTS" --gtest_filter='NcclBackend.*' 2>&1)
  status=$?
  echo "$out"
  grep -qF "OK ] NcclBackend.OneRankOnTheGpu" <<<"$out" || { echo "NcclBackend.OneRankOnTheGpu did not pass"; return 1; }
  if [ -x "$NCCL_COMPAT" ]; then
    "$NCCL_COMPAT" || return 1
  fi
  return "$status"
}

gpu_sanitize() {  # tool, extra flags...
  local tool=$1 sanitizer
  shift
  sanitizer=$(gpu_find_sanitizer)
  [ -n "$sanitizer" ] || { echo "compute-sanitizer not found (it ships with the CUDA toolkit's bin/)"; return 1; }
  local entry
  for entry in "${GPU_SHARED_MEMORY_TESTS[@]}"; do
    echo "$(printf '%-15s' "${entry%%|*}") $("$EMBER_TESTS" --gtest_list_tests --gtest_filter="${entry#*|}" | grep -c '^  ') tests"
  done
  "$sanitizer" --tool "$tool" --error-exitcode 1 "$@" "$EMBER_TESTS" --gtest_filter="$(gpu_shared_memory_filter)"
}
gpu_step_memcheck() { gpu_sanitize memcheck --leak-check full; }
gpu_step_racecheck() { gpu_sanitize racecheck; }
gpu_step_synccheck() { gpu_sanitize synccheck; }

gpu_step_bench() {
  [ -x "$BENCH_CUDA" ] || { echo "bench_cuda was not built (needs Google Benchmark): skipped"; return 0; }
  "$BENCH_CUDA" --benchmark_min_time="${GPU_BENCH_MIN_TIME:-0.05}"
}

# ---- the driver ----

gpu_write_summary() {
  mkdir -p "$LOG_DIR"
  {
    echo "==== Ember GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'); budget ${BUDGET_S} s, $((SECONDS - GPU_START)) s used"
    [ -n "${GPU_HEADER:-}" ] && echo "$GPU_HEADER"
    printf '%s\n' "${GPU_SUMMARY[@]}"
  } >"$LOG_DIR/summary.txt.tmp" && mv "$LOG_DIR/summary.txt.tmp" "$LOG_DIR/summary.txt"
  tar -cf - -C "$WORK" . 2>/dev/null | gzip >"$LOG_DIR/logs.tar.gz.tmp" && mv "$LOG_DIR/logs.tar.gz.tmp" "$LOG_DIR/logs.tar.gz"
}

# Runs GPU_STEPS in order; returns 0 when every step that ran passed, 1 when one failed, 2 when no
# CUDA device was seen, 3 when the programs cannot start.
gpu_run_steps() {
  export EMBER_TESTS CHARLM CHARLM_DATA BENCH_CUDA DIST_TESTS NCCL_COMPAT WORK GPU_ENV_FILE GPU_SMOKE_TEST \
    GPU_SANITIZER_EXCLUDED
  export -f gpu_step_environment gpu_step_smoke gpu_list_suites gpu_step_cuda_tests gpu_step_blocking_reruns \
    gpu_step_charlm_parity gpu_step_nccl gpu_sanitize gpu_step_memcheck gpu_step_racecheck gpu_step_synccheck \
    gpu_step_bench gpu_find_sanitizer gpu_shared_memory_filter
  GPU_START=${GPU_START:-$SECONDS}
  GPU_SUMMARY=()
  mkdir -p "$WORK" "$LOG_DIR"
  local entry name cap floor fn left limit status verdict result=0 log start n=0
  for entry in "${GPU_STEPS[@]}"; do
    IFS='|' read -r name cap floor fn <<<"$entry"
    n=$((n + 1))
    log="$WORK/$(printf '%02d' "$n")_${fn#gpu_step_}.log"
    left=$((BUDGET_S - (SECONDS - GPU_START)))
    if [ "$left" -lt "$floor" ]; then
      echo "== SKIP $name: needs at least $floor s, $left s left of the $BUDGET_S s budget"
      GPU_SUMMARY+=("$(printf 'SKIP  %-44s %5s   %s' "$name" - "needs $floor s, $left s left")")
      gpu_write_summary
      continue
    fi
    limit=$((cap < left ? cap : left))
    echo "== $name (at most $limit s)"
    start=$SECONDS
    # The sanitizer steps read the test groups from this array; bash cannot export arrays.
    timeout -k 5 "$limit" bash -c "$(declare -p GPU_SHARED_MEMORY_TESTS); $fn" >"$log" 2>&1
    status=$?
    case $status in
      0) verdict=PASS ;;
      2) verdict=$([ "$fn" = gpu_step_smoke ] && echo NOGPU || echo FAIL) ;;
      124 | 137) verdict=TIME ;;
      *) verdict=FAIL ;;
    esac
    [ "$verdict" = PASS ] || tail -n 25 "$log" | sed 's/^/  | /'
    [ "$fn" = gpu_step_cuda_tests ] && sed 's/^/  /' "$log" | grep -E '^  (PASS|FAIL) ' | head -n 60
    GPU_SUMMARY+=("$(printf '%-4s  %-44s %4ss   %s' "$verdict" "$name" $((SECONDS - start)) "${log#"$WORK"/}")")
    gpu_write_summary
    if [ "$fn" = gpu_step_smoke ] && [ "$status" = 2 ]; then
      echo "no CUDA device: $(grep -o 'SMOKE: no CUDA device: .*' "$log" | tail -n 1 | sed 's/^SMOKE: no CUDA device: //')"
      return 2
    fi
    if [ "$fn" = gpu_step_smoke ] && [ "$status" != 0 ]; then
      grep -q 'cannot start' "$log" && return 3
      echo "the smoke test failed on the device: the later steps run anyway"
    fi
    [ "$verdict" = PASS ] || result=1
  done
  return "$result"
}
