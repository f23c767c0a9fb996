#!/usr/bin/env bash
# Packs a CUDA build (nvcc, -DEMBER_CUDA=ON) into a folder that runs on a bare GPU machine: the CUDA
# test programs, ember-charlm, bench_cuda, the distributed tests, every shared library they need that
# a bare Ubuntu 24.04 + CUDA 13 image lacks (Ember's own libraries and CUDA plugins among them), tiny Shakespeare, and the runner (run.sh, from
# scripts/gpu_run.sh, with scripts/gpu_steps.sh as steps.sh). Also writes OUT_DIR.tar.xz, which
# must stay under 60 MiB (what travels to the device machine is at most 64 MiB).
#
#   bash scripts/gpu_bundle.sh BUILD_DIR OUT_DIR      # then, there: bash OUT_DIR/run.sh
#
# Not carried: glibc, libstdc++ and libgcc_s (every Ubuntu has them; MANIFEST records the highest
# GLIBC_ / GLIBCXX_ / CXXABI_ versions the programs need, and run.sh checks them), the NVIDIA driver,
# and the CUDA libraries of the toolkit (cuBLAS and cuBLASLt alone are over 600 MiB), which run.sh
# finds on the target. The programs keep their build RUNPATH; run.sh's LD_LIBRARY_PATH comes first.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 64; }
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
out=$2
max_packed_mib=${MAX_PACKED_MIB:-60}

tests=$build/tests/ember_tests
[ -x "$tests" ] || { echo "gpu_bundle: no $tests: build the ember_tests target first" >&2; exit 1; }
# The CUDA backend's plugins (cuda/plugin.h), loaded at run time from beside libember.so; a build
# with -DEMBER_CUDA_PLUGIN=OFF links the CUDA libraries into the programs instead.
plugins=()
for so in libember_cuda.so libember_nccl.so; do
  if [ -f "$build/$so" ]; then plugins+=("$build/$so"); fi
done
if [ ${#plugins[@]} -eq 0 ] && ! readelf -d "$tests" | grep -q 'libcudart\.so'; then
  echo "gpu_bundle: no libember_cuda.so and $tests does not link libcudart: $build is not a CUDA build by nvcc" \
    "(configure with -DEMBER_CUDA=ON)" >&2
  exit 1
fi

# The programs, where they were built; ember_tests alone is required.
programs=("$tests")
for p in examples/charlm/ember-charlm bench/bench_cuda tests/distributed/ember_distributed_tests \
  tests/distributed/nccl_compat tests/distributed/dist_worker ember-run; do
  if [ -x "$build/$p" ]; then programs+=("$build/$p"); else echo "gpu_bundle: $p not built, not bundled"; fi
done

# Left to the target: the C and C++ runtimes, the driver, and the CUDA toolkit's libraries.
system_lib='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
target_lib='^(libcuda|libcublas|libcublasLt|libcurand|libnccl|libcufft|libcusparse|libcusolver|libnvJitLink|libnvrtc)\.so'

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/data"
declare -A carried=() left=()
for p in "${programs[@]}" "${plugins[@]}"; do
  case " ${plugins[*]} " in *" $p "*) cp "$p" "$out/lib/" ;; *) cp "$p" "$out/bin/" ;; esac
  # ldd lists the whole closure: each library's own needs too.
  while read -r name _ path _; do
    [ -n "$name" ] || continue
    if [[ $name =~ $system_lib ]] || [[ $name == linux-vdso* ]]; then continue; fi
    if [[ $name =~ $target_lib ]]; then left[$name]=1; continue; fi
    [ "$path" != "not" ] && [ -e "$path" ] || { echo "gpu_bundle: $(basename "$p") needs $name, not found here" >&2; exit 1; }
    carried[$name]=$path
  done < <(ldd "$p" | awk '/=>/ {print $1, $2, $3}')
done
for name in "${!carried[@]}"; do cp -L "${carried[$name]}" "$out/lib/$name"; done
# Debug sections are half of a Release binary's size here and nothing on the target reads them.
strip --strip-debug "$out"/bin/* "$out"/lib/* 2>/dev/null || true

cp "$repo/scripts/gpu_run.sh" "$out/run.sh"
cp "$repo/scripts/gpu_steps.sh" "$out/steps.sh"
cp "$repo/data/tinyshakespeare.txt" "$out/data/"
# ember_tests reads its JSON fixtures when it starts, from the source tree's path compiled into it
# (or EMBER_FIXTURE_DIR, which run.sh points at this copy).
cp -r "$repo/tests/fixtures" "$out/fixtures"

# The highest symbol versions of the C and C++ runtimes that anything carried asks for.
highest() { readelf -V --wide "$out"/bin/* "$out"/lib/* 2>/dev/null | grep -oE "Name: $1\.[0-9.]+" | awk '{print $2}' | sort -uV | tail -n 1; }
{
  echo "commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo '+changes')"
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "nvcc $(grep -h "CMAKE_CUDA_COMPILER_VERSION \"" "$build/CMakeFiles"/*/CMakeCUDACompiler.cmake 2>/dev/null | head -n 1 | grep -oE '[0-9][0-9.]+' || echo unknown)"
  echo "architectures $(grep -E '^EMBER_CUDA_ARCHITECTURES:' "$build/CMakeCache.txt" | cut -d= -f2)"
  echo "fixture-dir $(grep -E '^Ember_SOURCE_DIR:' "$build/CMakeCache.txt" | cut -d= -f2)/tests/fixtures"
  echo "needs-glibc $(highest GLIBC_2)"
  echo "needs-glibcxx $(highest GLIBCXX_3)"
  echo "needs-cxxabi $(highest CXXABI_1)"
  for p in "$out"/bin/*; do echo "program $(basename "$p")"; done
  for p in "${plugins[@]}"; do echo "plugin $(basename "$p")"; done
  for name in $(printf '%s\n' "${!carried[@]}" | sort); do echo "carried-lib $name"; done
  for name in $(printf '%s\n' "${!left[@]}" | sort); do echo "target-lib $name"; done
} >"$out/MANIFEST"

unpacked=$(du -sm "$out" | cut -f1)
packed=$out.tar.xz
tar -C "$(dirname "$out")" -cf - "$(basename "$out")" | xz -T"${XZ_THREADS:-2}" -6 >"$packed.tmp"
mv "$packed.tmp" "$packed"
packed_mib=$(( ($(stat -c %s "$packed") + 1048575) / 1048576 ))
echo "gpu_bundle: $out: ${#programs[@]} programs, ${#carried[@]} carried libraries, ${unpacked} MiB; $packed: ${packed_mib} MiB"
grep -E '^(needs|target-lib|architectures)' "$out/MANIFEST" | sed 's/^/  /'
if [ "$packed_mib" -gt "$max_packed_mib" ]; then
  echo "gpu_bundle: $packed is ${packed_mib} MiB, over the ${max_packed_mib} MiB that may travel" >&2
  exit 1
fi
