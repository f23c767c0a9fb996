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
data=${DATA:-../shared/data/tinyshakespeare.txt}
out=${OUT_DIR:-out-$preset}
if [ ! -f "$data" ]; then
  echo "run_main.sh: no text at $data." >&2
  echo "  Put tiny Shakespeare there (it is input.txt of Karpathy's char-rnn data, 1,115,394 characters)" >&2
  echo "  or point DATA at any UTF-8 text file." >&2
  exit 1
fi
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target ember-charlm
./build/examples/charlm/ember-charlm train --preset "$preset" --data "$data" --out_dir "$out" --plot
./build/examples/charlm/ember-charlm sample --out_dir "$out" --prompt $'ROMEO:\n' --num_chars 500
