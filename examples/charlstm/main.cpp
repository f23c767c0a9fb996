// ember-charlstm: train a character-level LSTM on a text file (tiny Shakespeare by default) and sample
// from it, with ember-charlm's command line, checkpoints and resume (examples/charlm's trainer).
//
//   ember-charlstm train --preset small --out_dir out-lstm    # torch_charlstm.py's reference run
//   ember-charlstm train --out_dir out-lstm --resume --max_iters 2000
//   ember-charlstm sample --out_dir out-lstm --prompt "ROMEO:" --num_chars 300 --temperature 0.8
#include "lstm_family.h"

int main(int argc, char** argv) { return charlm::run_cli(charlstm::lstm_family(), argc, argv); }
