// The character LSTM of ember-charlstm: Embedding -> LSTM -> Linear over the vocabulary, as
// torch_charlstm.py builds it in PyTorch (the same modules in the same order, so the same seed gives
// the same initial weights).
//
//   charlstm::CharLSTM model(65, charlstm::CharLSTMOptions{64, 128, 2, 0.0});
//   auto [logits, state] = model->forward(idx);          // idx (B, T) -> logits (B, T, 65)
//   auto [next, state2] = model->forward(one, state);   // carry (h, c) to the next characters
//
// Not a general sequence model: batch-first token ids in, logits out; training and sampling loops are
// the shared trainer's (examples/charlm/trainer.cpp).
#pragma once

#include <optional>
#include <tuple>

#include <ember/ember.h>

namespace charlstm {

// (h, c): each (num_layers, B, hidden_size), as nn::LSTM takes and returns them.
using LSTMState = std::tuple<ember::Tensor, ember::Tensor>;

struct CharLSTMOptions {
  int64_t embedding_dim = 64;  // n_embd
  int64_t hidden_size = 128;
  int64_t num_layers = 2;
  double dropout = 0.0;  // between LSTM layers
};

class CharLSTMImpl : public ember::nn::Module {
 public:
  CharLSTMImpl(int64_t vocab_size, const CharLSTMOptions& options);
  // idx (B, T) int64 -> logits (B, T, vocab_size) and the state after the last character; `state`
  // continues from earlier characters (none: zeros).
  std::tuple<ember::Tensor, LSTMState> forward(const ember::Tensor& idx, std::optional<LSTMState> state = {});

  ember::nn::Embedding wte{nullptr};
  ember::nn::LSTM lstm{nullptr};
  ember::nn::Linear lm_head{nullptr};
};
EMBER_MODULE(CharLSTM);

}  // namespace charlstm
