#!/usr/bin/env bash
# Compiles every cuda/*.cu with the real nvcc for each GPU architecture Ember ships (sm_80, sm_86,
# sm_89, sm_90), with warnings as errors (nvcc's, ptxas's and the host compiler's), and checks what
# ptxas reports for every kernel: no spills (its own or its device functions'; a stack frame for local
# arrays is fine), registers within what its block size allows (65536 per SM / threads per block, at
# most 255), and a __launch_bounds__ on every kernel, so that ptxas knows that block size. It checks
# the kernels only: no GPU is needed, and nothing is linked.
#
#   bash scripts/check_cuda_build.sh            # NVCC=/usr/local/cuda/bin/nvcc JOBS=$(nproc)
#
# Run by scripts/test.sh's default stage (CI) when nvcc is there; prints one line per file and arch.
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
jobs=${JOBS:-$(nproc)}
archs=(80 86 89 90)
if ! [ -x "$nvcc" ]; then
  echo "check_cuda_build: no nvcc at $nvcc; skipped"
  exit 0
fi
command -v python3 >/dev/null || { echo "check_cuda_build: needs python3 to read ptxas's report"; exit 1; }
work=${KEEP_DIR:-$(mktemp -d)}  # KEEP_DIR: keep nvcc's logs and PTX there
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

# One nvcc run per .cu file, every architecture in it; the PTX is kept for the launch bounds (.maxntid).
compile() {
  local cu=$1 work=$2 nvcc=$3
  shift 3
  local name gencode=() arch
  name=$(basename "$cu" .cu)
  mkdir -p "$work/$name"
  for arch in "$@"; do gencode+=(-gencode "arch=compute_$arch,code=sm_$arch"); done
  if ! "$nvcc" -c "$cu" -o "$work/$name/$name.o" -I. -Iinclude -std=c++20 -O3 --expt-relaxed-constexpr \
      --extended-lambda -DEMBER_WITH_CUDA=1 -DFMT_CONSTEVAL= "${gencode[@]}" -Xptxas -v -Werror all-warnings \
      -Xcompiler -Wall,-Wextra,-Werror -keep -keep-dir "$work/$name" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log"
    echo "check_cuda_build: nvcc failed on $cu"
    return 1
  fi
}
export -f compile
start=$SECONDS
printf '%s\n' cuda/*.cu | xargs -P "$jobs" -I{} bash -c 'compile "$@"' _ {} "$work" "$nvcc" "${archs[@]}"

# ptxas -v prints, per kernel and architecture: "Compiling entry function 'K' for 'sm_80'", then
# "N bytes stack frame, N bytes spill stores, N bytes spill loads", then "Used N registers".
python3 - "$work" <<'EOF'
import glob, os, re, sys

work = sys.argv[1]
failures, lines = [], []
for log in sorted(glob.glob(os.path.join(work, "*.log"))):
    name = os.path.basename(log)[:-4]
    threads = {}  # (kernel, arch) -> threads per block from the PTX's .maxntid
    for ptx in glob.glob(os.path.join(work, name, "*.ptx")):
        arch = re.search(r"compute_(\d+)", ptx).group(1)
        kernel = None
        for line in open(ptx):
            m = re.match(r"\s*(?:\.visible\s+)?\.entry\s+(\S+?)\(", line)
            if m:
                kernel = m.group(1)
                threads[(kernel, arch)] = None
            m = re.match(r"\s*\.maxntid\s+(\d+),\s*(\d+),\s*(\d+)", line)
            if m and kernel:
                threads[(kernel, arch)] = int(m.group(1)) * int(m.group(2)) * int(m.group(3))
    kernel = arch = function = None
    worst = {}  # arch -> (most registers, kernels)
    for line in open(log):
        m = re.search(r"Compiling entry function '(\S+)' for 'sm_(\d+)'", line)
        if m:
            kernel, arch = m.groups()
            worst.setdefault(arch, [0, 0])[1] += 1
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            function = m.group(1)  # the kernel itself, or a device function it calls
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            frame, stores, loads = map(int, m.groups())
            if stores or loads:
                failures.append(f"{name}.cu sm_{arch}: {function} spills ({stores} bytes stored, {loads} loaded)")
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and kernel and arch:
            regs = int(m.group(1))
            block = threads.get((kernel, arch))
            if block is None:
                failures.append(f"{name}.cu sm_{arch}: {kernel} has no __launch_bounds__ (its block size is unknown)")
                block = 1024
            limit = min(255, 65536 // block)
            if regs > limit:
                failures.append(f"{name}.cu sm_{arch}: {kernel} uses {regs} registers; {block} threads per block allow {limit}")
            worst[arch][0] = max(worst[arch][0], regs)
            kernel = None
    for arch, (regs, count) in sorted(worst.items()):
        lines.append(f"  {name}.cu sm_{arch}: {count} kernels, at most {regs} registers")
if not lines:
    failures.append("ptxas reported no kernels: was -Xptxas -v passed?")
print("\n".join(lines))
for f in failures:
    print("check_cuda_build: " + f)
sys.exit(1 if failures else 0)
EOF
echo "check_cuda_build: ${#archs[@]} architectures, warnings as errors, ptxas limits: OK ($((SECONDS - start)) s)"
