#!/usr/bin/env bash
# The runner of the GPU bundle (scripts/gpu_bundle.sh copies it in as run.sh): checks Ember's CUDA
# backend on a bare machine with an NVIDIA GPU, the CUDA 13 libraries and nothing of Ember's build.
#
#   bash ember-gpu/run.sh       # GPU_BUDGET_S=450 (all steps), LOG_DIR=$OUT/ember-gpu or ember-gpu/logs
#
# Finds the CUDA libraries the bundle does not carry (cuBLAS, cuBLASLt, NCCL, ...) in EMBER_CUDA_LIBS,
# the CUDA toolkit's lib64, `ldconfig -p`, or pip's nvidia/*/lib folders, says which it used or that
# one is missing, checks the glibc and libstdc++ the programs need against the system's, then runs
# scripts/gpu_steps.sh's steps within the budget. Exit status: 0 every step that ran passed, 1 a step
# failed, 2 no CUDA device, 3 the programs cannot start (a library is missing or too old).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUDGET_S=${GPU_BUDGET_S:-450}
LOG_DIR=${LOG_DIR:-${OUT:+$OUT/ember-gpu}}
LOG_DIR=${LOG_DIR:-$here/logs}
WORK=${GPU_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ember-gpu.XXXXXX")}
GPU_START=$SECONDS
# shellcheck source=gpu_steps.sh
source "$here/steps.sh"

manifest() { grep -E "^$1 " "$here/MANIFEST" | cut -d' ' -f2-; }

# Folders that may hold pip's nvidia-* wheels (nvidia/<name>/lib).
site_packages() {
  if command -v python3 >/dev/null; then
    python3 -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null
  fi
  local d
  for d in ${VIRTUAL_ENV:+"$VIRTUAL_ENV"/lib/python3*/site-packages} /opt/*/.venv/lib/python3*/site-packages \
    /opt/*/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
    /usr/lib/python3/dist-packages; do
    [ -d "$d" ] && echo "$d"
  done
}

# "label|folder" for each place a CUDA library may be, in the order they are tried.
candidate_dirs() {
  local d sp
  if [ -n "${EMBER_CUDA_LIBS:-}" ]; then
    local IFS=:
    for d in $EMBER_CUDA_LIBS; do echo "EMBER_CUDA_LIBS|$d"; done
  fi
  for d in ${CUDA_HOME:+"$CUDA_HOME"/lib64} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    /usr/local/cuda-*/lib64; do
    [ -d "$d" ] && echo "CUDA toolkit|$d"
  done
  echo "ldconfig|"
  for sp in $(site_packages | awk '!seen[$0]++'); do
    for d in "$sp"/nvidia/*/lib "$sp"/nvidia/*/lib64; do
      [ -d "$d" ] && echo "pip wheel|$d"
    done
  done
}

# Resolves every library the bundle left to the target; sets CUDA_LIB_PATH, writes the report.
find_cuda_libs() {
  local lib label dir found missing=0 candidates
  candidates=$(candidate_dirs)
  CUDA_LIB_PATH=""
  for lib in $(manifest target-lib); do
    found=""
    while IFS='|' read -r label dir; do
      if [ "$label" = ldconfig ]; then
        command -v ldconfig >/dev/null || continue
        dir=$(ldconfig -p 2>/dev/null | awk -v n="$lib" '$1 == n && /x86-64/ {print $NF; exit}')
        [ -n "$dir" ] || continue
        dir=$(dirname "$dir")
      fi
      if [ -e "$dir/$lib" ]; then
        found="$dir ($label)"
        case ":$CUDA_LIB_PATH:" in *":$dir:"*) ;; *) CUDA_LIB_PATH+="${CUDA_LIB_PATH:+:}$dir" ;; esac
        break
      fi
    done <<<"$candidates"
    if [ -n "$found" ]; then
      printf '  %-22s %s\n' "$lib" "$found"
    else
      printf '  %-22s MISSING: not in EMBER_CUDA_LIBS, the CUDA toolkit (/usr/local/cuda/lib64), ldconfig -p, or pip nvidia/*/lib\n' "$lib"
      missing=1
    fi
  done
  return "$missing"
}

# Highest version of `prefix` (GLIBCXX_3.4) that file defines, from its version strings.
highest_version() { grep -aoE "$1\.[0-9]+" "$2" 2>/dev/null | sort -uV | tail -n 1; }

check_system_libs() {
  local need have lib
  need=$(manifest needs-glibc)
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print "GLIBC_" $2}')
  verdict "$need" "$have" "glibc"
  lib=$(ldconfig -p 2>/dev/null | awk '$1 == "libstdc++.so.6" && /x86-64/ {print $NF; exit}')
  [ -n "$lib" ] || lib=$(ls /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null | head -n 1)
  need=$(manifest needs-glibcxx)
  have=$([ -n "$lib" ] && highest_version 'GLIBCXX_3\.4' "$lib")
  verdict "$need" "$have" "libstdc++ (${lib:-not found})"
}
verdict() {  # needed, available, what
  if [ -z "$2" ]; then
    printf '  needs %-16s the system'"'"'s %s: unknown\n' "$1" "$3"
  elif [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$2" ]; then
    printf '  needs %-16s the system'"'"'s %s has %s: OK\n' "$1" "$3" "$2"
  else
    printf '  needs %-16s the system'"'"'s %s has only %s: TOO OLD\n' "$1" "$3" "$2"
  fi
}

mkdir -p "$WORK" "$LOG_DIR"
# ember_tests reads JSON fixtures at start-up: from EMBER_FIXTURE_DIR, or, in a binary built before it
# read that variable, from the build's source tree, which a link to the bundle's copy stands in for.
export EMBER_FIXTURE_DIR=$here/fixtures
compiled_fixtures=$(manifest fixture-dir)
if [ -n "$compiled_fixtures" ] && ! [ -e "$compiled_fixtures" ]; then
  mkdir -p "$(dirname "$compiled_fixtures")" 2>/dev/null && ln -s "$here/fixtures" "$compiled_fixtures" 2>/dev/null ||
    echo "cannot link $compiled_fixtures to $here/fixtures: a test binary that predates EMBER_FIXTURE_DIR will not start"
fi
GPU_ENV_FILE=$WORK/libraries.txt
{
  echo "bundle: $(manifest commit) built $(manifest built), nvcc $(manifest nvcc), architectures $(manifest architectures)"
  echo "libraries carried in $here/lib: $(manifest carried-lib | tr '\n' ' ')"
  echo "libraries from this machine:"
  find_cuda_libs
  echo "system libraries:"
  check_system_libs
} >"$GPU_ENV_FILE"
cat "$GPU_ENV_FILE"
export LD_LIBRARY_PATH="$here/lib${CUDA_LIB_PATH:+:$CUDA_LIB_PATH}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

EMBER_TESTS=$here/bin/ember_tests
CHARLM=$here/bin/ember-charlm
CHARLM_DATA=$here/data/tinyshakespeare.txt
BENCH_CUDA=$here/bin/bench_cuda
DIST_TESTS=$here/bin/ember_distributed_tests
NCCL_COMPAT=$here/bin/nccl_compat
GPU_HEADER="bundle $(manifest commit), logs in $LOG_DIR"
gpu_run_steps
status=$?
echo
cat "$LOG_DIR/summary.txt"
case $status in
  0) echo "RESULT: every step that ran passed" ;;
  2) echo "RESULT: no CUDA device (exit 2)" ;;
  3) echo "RESULT: the programs cannot start here (exit 3): see the libraries above" ;;
  *) echo "RESULT: some steps FAILED (logs: $LOG_DIR/logs.tar.gz)" ;;
esac
exit "$status"
