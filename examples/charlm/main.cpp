// ember-charlm: train a character-level GPT on a text file (tiny Shakespeare by default) and sample
// from it, nanoGPT-style, on the command line (the flags: cli.cpp; the model: gpt_family.cpp).
//
//   ember-charlm train --preset baby --out_dir out-baby      # --data defaults to data/tinyshakespeare.txt
//   ember-charlm train --out_dir out-baby --resume           # continue an interrupted run exactly
//   ember-charlm train --out_dir out-baby --resume --max_iters 4000   # or make it longer
//   ember-charlm sample --out_dir out-baby --prompt "ROMEO:" --num_chars 300 --temperature 0.8
#include "family.h"

int main(int argc, char** argv) { return charlm::run_cli(charlm::gpt_family(), argc, argv); }
