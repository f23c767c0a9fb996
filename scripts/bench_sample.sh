#!/usr/bin/env bash
# Sampling speed: characters per second of `ember-charlm sample` from a `video`-preset model, with
# and without the KV cache, and nanoGPT's generate() on PyTorch (bench/torch_sample.py) at the
# same size, in one go. The Ember model is trained for one step (its weights are close to the
# initial ones: the speed does not depend on them). Past block_size (256) both Ember paths run the
# whole cropped window per character, as nanoGPT's context is; the cache saves work before that,
# so the first 255 characters are timed on their own too.
#
#   bash scripts/bench_sample.sh                 # 2000 characters, 1 thread
#   NUM_CHARS=500 THREADS=2 bash scripts/bench_sample.sh
#   TORCH_PYTHON=venv/bin/python bash scripts/bench_sample.sh   # the peer on PyTorch 2.x from a venv
set -euo pipefail
cd "$(dirname "$0")/.."
NUM_CHARS=${NUM_CHARS:-2000}
THREADS=${THREADS:-1}
BUILD=${BUILD:-build}
charlm=$BUILD/examples/charlm/ember-charlm
[ -x "$charlm" ] || { echo "build $charlm first (-DEMBER_BUILD_EXAMPLES=ON)"; exit 1; }
run_dir=$(mktemp -d)
trap 'rm -rf "$run_dir"' EXIT
"$charlm" train --preset video --max_iters 1 --eval_interval 1 --eval_iters 1 --batch_size 4 --threads "$THREADS" \
  --out_dir "$run_dir" >/dev/null
echo "# $(date -u +%Y-%m-%d) $(uname -m) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
time_sample() {  # chars use_cache -> chars/s
  local start end
  start=$(date +%s.%N)
  OMP_NUM_THREADS=$THREADS "$charlm" sample --out_dir "$run_dir" --num_chars "$1" --use_cache "$2" --seed 1337 \
    >"$run_dir/sample_$1_$2.txt"
  end=$(date +%s.%N)
  awk -v n="$1" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f chars/s (%.2f s)", n / (b - a), b - a }'
}
for n in 255 "$NUM_CHARS"; do
  echo "ember video, $n chars, threads $THREADS, cache on:  $(time_sample "$n" true)"
  echo "ember video, $n chars, threads $THREADS, cache off: $(time_sample "$n" false)"
  cmp -s "$run_dir/sample_${n}_true.txt" "$run_dir/sample_${n}_false.txt" && echo "  same characters with and without the cache" \
    || echo "  THE TEXTS DIFFER"
done
peer=${TORCH_PYTHON:-/usr/bin/python3}  # TORCH_PYTHON=venv/bin/python for PyTorch 2.x
if "$peer" -c "import torch" 2>/dev/null; then
  for n in 255 "$NUM_CHARS"; do
    echo "pytorch $("$peer" -c 'import torch; print(torch.__version__)') nanoGPT generate, $n chars:"
    "$peer" bench/torch_sample.py --num_chars "$n" --threads "$THREADS"
  done
else
  echo "no PyTorch for $peer (apt-get install python3-torch, or TORCH_PYTHON=venv/bin/python): no peer"
fi
