#!/usr/bin/env bash
# With the CUDA backend as a plugin (cuda/plugin.h): the programs given do not need the CUDA runtime,
# cuBLAS, cuRAND or NCCL (ldd, the whole closure), and the plugin does need the CUDA runtime and cuBLAS.
#   check_cuda_plugin_links.sh PLUGIN PROGRAM...
set -euo pipefail
plugin=$1
shift
cuda_libs='lib(cudart|cublas|cublasLt|curand|nccl)\.so'
status=0
# ldd's output is read whole first: with pipefail, `ldd | grep -q` fails when grep stops early.
for program in "$@"; do
  needs=$(ldd "$program")
  if grep -E "$cuda_libs" <<<"$needs"; then
    echo "FAIL: $(basename "$program") needs the CUDA libraries above; only $(basename "$plugin") should"
    status=1
  fi
done
plugin_needs=$(ldd "$plugin")
for lib in libcudart libcublas; do
  grep -q "$lib\.so" <<<"$plugin_needs" || { echo "FAIL: $(basename "$plugin") does not need $lib"; status=1; }
done
[ "$status" = 0 ] && echo "OK: $# programs start without the CUDA libraries; $(basename "$plugin") needs them"
exit "$status"
