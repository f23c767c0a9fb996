#!/usr/bin/env bash
# The main job on a fresh machine: install dependencies, build Ember, train the character-level
# GPT on tiny Shakespeare (preset "baby": nanoGPT's CPU config, 2000 steps), then sample from it.
#
#   bash scripts/run_main.sh                         # baby preset, output in out-baby/
#   PRESET=tiny bash scripts/run_main.sh             # the under-a-minute model
#   DATA=/path/to/input.txt bash scripts/run_main.sh # any UTF-8 text
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${PRESET:-baby}
data=${DATA:-data/tinyshakespeare.txt}
out=${OUT_DIR:-out-$preset}
if [ ! -f "$data" ]; then
  echo "run_main.sh: no text at $data." >&2
  echo "  The repository ships tiny Shakespeare as data/tinyshakespeare.txt (1,115,394 bytes);" >&2
  echo "  point DATA at any UTF-8 text file." >&2
  exit 1
fi
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target ember-charlm
# Run again after a Ctrl-C, it continues the run in $out (delete $out to start over).
if [ -f "$out/ckpt.safetensors" ]; then start=(--resume); else start=(--preset "$preset"); fi
./build/examples/charlm/ember-charlm train "${start[@]}" --data "$data" --out_dir "$out" --plot
./build/examples/charlm/ember-charlm sample --out_dir "$out" --prompt $'ROMEO:\n' --num_chars 500
