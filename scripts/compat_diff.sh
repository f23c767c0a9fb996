#!/usr/bin/env bash
# Differential test of Ember against libtorch: builds every program in tests/compat/programs twice
# (Ember through Ember::torch_compat, and Debian's libtorch 1.13), runs both, and compares every
# printed number with compat_compare (1e-5 relative, plus one unit in the last printed digit).
#
#   scripts/compat_diff.sh                     # build dir build-compat, compare, summary
#   scripts/compat_diff.sh --update-expected   # also copy libtorch's outputs to tests/compat/expected/
#   BUILD_DIR=/tmp/b JOBS=2 scripts/compat_diff.sh
#
# Needs libtorch's CMake package (apt-get install libtorch-dev); no Python. Exits non-zero when any
# program fails or differs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-compat}
JOBS=${JOBS:-2}
TORCH_DIR=${TORCH_DIR:-/usr/lib/x86_64-linux-gnu/cmake/Torch}
UPDATE=0
[[ "${1:-}" == "--update-expected" ]] && UPDATE=1

mkdir -p "$BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=OFF -DEMBER_BUILD_TESTS=ON \
  -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_COMPAT_LIBTORCH=ON -DTorch_DIR="$TORCH_DIR" > "$BUILD_DIR/compat_configure.log"
cmake --build "$BUILD_DIR" -j"$JOBS" --target compat_compare compat_programs libtorch_programs

BIN="$BUILD_DIR/tests/compat"
OUT="$BUILD_DIR/compat_diff"
mkdir -p "$OUT/ember" "$OUT/libtorch"
failed=()
for source in "$ROOT"/tests/compat/programs/*.cpp; do
  name=$(basename "$source" .cpp)
  # Programs may write files (save_load): each side runs in its own directory.
  (cd "$OUT/libtorch" && OMP_NUM_THREADS=2 "$BIN/libtorch_$name" > "$name.txt") || { failed+=("$name (libtorch run)"); continue; }
  (cd "$OUT/ember" && OMP_NUM_THREADS=2 "$BIN/compat_$name" > "$name.txt") || { failed+=("$name (Ember run)"); continue; }
  if "$BIN/compat_compare" "$OUT/libtorch/$name.txt" "$OUT/ember/$name.txt"; then
    echo "same:    $name"
  else
    echo "DIFFERS: $name"
    failed+=("$name")
  fi
  if [[ $UPDATE == 1 ]]; then cp "$OUT/libtorch/$name.txt" "$ROOT/tests/compat/expected/$name.txt"; fi
done

if ((${#failed[@]})); then
  echo "compat_diff: ${#failed[@]} program(s) differ or fail: ${failed[*]}"
  exit 1
fi
echo "compat_diff: every program prints libtorch's numbers (outputs in $OUT)"
