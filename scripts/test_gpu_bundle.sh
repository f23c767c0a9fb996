#!/usr/bin/env bash
# Tests the GPU bundle (scripts/gpu_bundle.sh) without a GPU: it builds from a CUDA build, its packed
# form fits the 60 MiB that may travel, and, unpacked elsewhere, its runner ends within 10 s with
# "no CUDA device" and exit code 2 inside a bare root: a chroot (in a private mount namespace) that
# holds only the base system's libraries (glibc, libstdc++, libgcc_s and what the shell tools need),
# with the CUDA libraries of this machine's toolkit mounted where a CUDA 13 image keeps them, or only
# where pip's nvidia-* wheels keep them; with neither, the runner must say which library is missing
# and exit 3; and that, with the CUDA backend as a plugin (cuda/plugin.h), ember-charlm starts and
# trains on the CPU in that root without the CUDA libraries, while --device cuda names what is
# missing. Also checks that every group of the sanitizer steps' test filter selects tests.
#
#   bash scripts/test_gpu_bundle.sh [BUILD_DIR]   # default build (scripts/test.sh's); skipped without nvcc
#   KEEP_BUNDLE=/path/ember-gpu.tar.xz bash scripts/test_gpu_bundle.sh build-sm90   # and keep the bundle
#
# A BUILD_DIR that is not a CUDA build by nvcc is replaced by build-gpu-bundle, configured for sm_90
# only, with just the bundled targets built.
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cuda_lib=${CUDA_LIB_DIR:-/usr/local/cuda/lib64}
[ -x "$nvcc" ] || { echo "test_gpu_bundle: no nvcc at $nvcc; skipped"; exit 0; }
build=${1:-build}
cuda_build() {  # the CUDA backend by nvcc: its plugin (cuda/plugin.h), or linked in
  [ -x "$1/tests/ember_tests" ] && { [ -f "$1/libember_cuda.so" ] || readelf -d "$1/tests/ember_tests" | grep -q 'libcudart\.so'; }
}
if ! cuda_build "$build"; then
  echo "test_gpu_bundle: $build is not a CUDA build by nvcc; building the bundled targets in build-gpu-bundle (sm_90)"
  build="build-gpu-bundle"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DEMBER_CUDA_ARCHITECTURES=90-real \
    -DEMBER_BUILD_TESTS=ON -DEMBER_BUILD_EXAMPLES=ON >/dev/null
  plugin_targets=$(grep -q '^EMBER_CUDA_PLUGIN:BOOL=ON' "$build/CMakeCache.txt" && echo ember_cuda || true)
  cmake --build "$build" -j "$(nproc)" --target ember_tests ember-charlm $plugin_targets
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "test_gpu_bundle: FAIL: $*"; failures=$((failures + 1)); }

bash scripts/gpu_bundle.sh "$build" "$work/built/ember-gpu"
[ -z "${KEEP_BUNDLE:-}" ] || cp "$work/built/ember-gpu.tar.xz" "$KEEP_BUNDLE"  # the packed bundle, kept
mkdir -p "$work/unpacked"
xz -dc "$work/built/ember-gpu.tar.xz" | tar -C "$work/unpacked" -xf -  # elsewhere: it must be relocatable
rm -rf "$work/built/ember-gpu"
bundle=$work/unpacked/ember-gpu

# Every group of the sanitizer filter selects tests of this build.
# shellcheck source=gpu_steps.sh
source scripts/gpu_steps.sh
for entry in "${GPU_SHARED_MEMORY_TESTS[@]}"; do
  n=$(LD_LIBRARY_PATH="$bundle/lib:$cuda_lib" "$bundle/bin/ember_tests" --gtest_list_tests \
    --gtest_filter="${entry#*|}" | grep -c '^  ' || true)
  [ "$n" -gt 0 ] || fail "the sanitizer group ${entry%%|*} (${entry#*|}) selects no test"
done

# ---- a bare root: the shell tools the runner uses, their libraries, libstdc++ and libgcc_s ----
root=$work/root
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib64" "$root/etc" \
  "$root/tmp" "$root/dev" "$root/proc" "$root/bundle"
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
place() {  # copies a file into the root at its /usr path
  local dest=$root/usr/${1#/usr/}
  mkdir -p "$(dirname "$dest")"
  cp -L "$1" "$dest"
}
tools=(bash sh env date uname grep head tail sed cat ldd basename dirname mkdir mktemp rm mv ln tar gzip timeout
  awk sort cut tr getconf ls wc sleep)
for t in "${tools[@]}"; do
  path=$(command -v "$t") || { echo "test_gpu_bundle: no $t here" >&2; exit 1; }
  cp -L "$path" "$root/usr/bin/$t"
  for lib in $(ldd "$path" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*'); do place "$lib"; done
done
cp -L "$(command -v ldconfig || echo /sbin/ldconfig)" "$root/usr/sbin/ldconfig"
# glibc's libraries (libc6: every Ubuntu has them all), libstdc++ and libgcc_s.
for lib in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1 \
  libstdc++.so.6 libgcc_s.so.1; do
  place "$(ldconfig -p | awk -v n="$lib" '$1 == n && /x86-64/ {print $NF; exit}')"
done
printf '/usr/lib/x86_64-linux-gnu\n/usr/local/lib\n' >"$root/etc/ld.so.conf"
ldconfig -r "$root"
touch "$root/dev/null"
ln -s /proc/self/fd "$root/dev/fd"

# run_bare LAYOUT: runs the bundle's runner in the bare root with the CUDA libraries mounted as
# LAYOUT says (toolkit, pip or none); prints its output; sets status and seconds.
run_bare() {
  local layout=$1 mounts="mount --bind /dev/null '$root/dev/null' && mount --bind /proc '$root/proc'"
  mounts+=" && mount --bind '$bundle' '$root/bundle'"
  local pip=$root/opt/torch/.venv/lib/python3.12/site-packages/nvidia
  rm -rf "$root/usr/local/cuda" "$root/opt" "$root/tmp/logs"
  case $layout in
    toolkit)
      mkdir -p "$root/usr/local/cuda/lib64"
      mounts+=" && mount --bind '$cuda_lib' '$root/usr/local/cuda/lib64'" ;;
    pip)
      mkdir -p "$pip/cu13/lib" "$pip/nccl/lib"
      mounts+=" && mount --bind '$cuda_lib' '$pip/cu13/lib' && mount --bind '$cuda_lib' '$pip/nccl/lib'" ;;
  esac
  local start=$SECONDS
  set +e
  output=$(timeout 60 unshare --mount bash -c "$mounts && chroot '$root' /usr/bin/env -i PATH=/usr/bin:/usr/sbin \
    HOME=/tmp LOG_DIR=/tmp/logs /usr/bin/bash /bundle/run.sh" 2>&1)
  status=$?
  set -e
  seconds=$((SECONDS - start))
  echo "---- $layout layout: exit $status after $seconds s"
  echo "$output" | sed 's/^/  | /'
}

if ! unshare --mount chroot "$root" /usr/bin/bash -c true; then
  fail "this machine permits no mount namespace or chroot as this user: the bare-image runs cannot be made here"
else
  for layout in toolkit pip; do
    run_bare "$layout"
    [ "$status" = 2 ] || fail "$layout layout: exit $status, expected 2 (no CUDA device)"
    grep -q '^no CUDA device' <<<"$output" || fail "$layout layout: no 'no CUDA device' line"
    [ "$seconds" -le 10 ] || fail "$layout layout: took $seconds s, more than 10"
    label=$([ "$layout" = toolkit ] && echo "/usr/local/cuda/lib64 (CUDA toolkit)" || echo "nvidia/cu13/lib (pip wheel)")
    grep -E '^ +libcublas\.so\.[0-9]+ ' <<<"$output" | grep -qF "$label" ||
      fail "$layout layout: libcublas not reported from $label"
    grep -q 'MISSING' <<<"$output" && fail "$layout layout: a library was reported missing"
    grep -q 'needs GLIBCXX_3.4.[0-9]* .*: OK' <<<"$output" || fail "$layout layout: no libstdc++ version check"
    [ -s "$root/tmp/logs/summary.txt" ] && [ -s "$root/tmp/logs/logs.tar.gz" ] ||
      fail "$layout layout: no summary.txt and logs.tar.gz in LOG_DIR"
  done
  run_bare none
  [ "$status" = 3 ] || fail "no CUDA libraries: exit $status, expected 3 (cannot start)"
  grep -qE 'libcublas\.so\.[0-9]+ +MISSING' <<<"$output" || fail "no CUDA libraries: libcublas not reported missing"
  # With the CUDA backend as a plugin, the programs start and train on the CPU without the CUDA
  # libraries (cuBLAS is not there), and asking for CUDA says which library is missing.
  if [ -f "$bundle/lib/libember_cuda.so" ] && [ -x "$bundle/bin/ember-charlm" ]; then
    head -c 3000 data/tinyshakespeare.txt >"$bundle/corpus.txt"
    bare() {  # runs a bundled program in the bare root, no CUDA libraries mounted; sets status and output
      set +e
      output=$(timeout 120 unshare --mount bash -c "mount --bind /dev/null '$root/dev/null' && \
        mount --bind /proc '$root/proc' && mount --bind '$bundle' '$root/bundle' && \
        chroot '$root' /usr/bin/env -i PATH=/usr/bin HOME=/tmp LD_LIBRARY_PATH=/bundle/lib $*" 2>&1)
      status=$?
      set -e
    }
    small="--data /bundle/corpus.txt --n_layer 1 --n_head 2 --n_embd 16 --block_size 8 --batch_size 4 --eval_iters 2"
    small+=" --eval_interval 2 --max_iters 2 --threads 1 --overwrite"
    bare /bundle/bin/ember-charlm --help
    [ "$status" = 0 ] || fail "ember-charlm --help without the CUDA libraries: exit $status: $output"
    bare /bundle/bin/ember-charlm train "$small" --device cpu --out_dir /tmp/cpu
    [ "$status" = 0 ] || fail "a CPU training run without the CUDA libraries: exit $status: $output"
    bare /bundle/bin/ember-charlm train "$small" --device cuda --out_dir /tmp/cuda
    { [ "$status" != 0 ] && grep -q "CUDA plugin could not be loaded" <<<"$output" &&
      grep -q "libember_cuda.so" <<<"$output" && grep -q "libcublas" <<<"$output"; } ||
      fail "--device cuda without the CUDA libraries: exit $status, expected an error naming the plugin and cuBLAS: $output"
    echo "test_gpu_bundle: without the CUDA libraries, ember-charlm --help and a CPU run work; --device cuda says: "
    grep -m1 "CUDA plugin" <<<"$output" | sed 's/^/  | /'
  fi
fi

[ "$failures" = 0 ] || { echo "test_gpu_bundle: $failures failures"; exit 1; }
echo "test_gpu_bundle: OK (bundle packed to $(du -m "$work/built/ember-gpu.tar.xz" | cut -f1) MiB; bare-root runs: toolkit and pip layouts exit 2 with 'no CUDA device', none exits 3, and without CUDA libraries the programs start)"
