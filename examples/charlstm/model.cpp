// The character LSTM (see model.h).
#include "model.h"

namespace charlstm {

CharLSTMImpl::CharLSTMImpl(int64_t vocab_size, const CharLSTMOptions& options) {
  // Registered (and so initialised) in torch_charlstm.py's order: embedding, LSTM, output layer.
  wte = register_module("wte", ember::nn::Embedding(vocab_size, options.embedding_dim));
  lstm = register_module("lstm", ember::nn::LSTM(ember::nn::LSTMOptions(options.embedding_dim, options.hidden_size)
                                                     .num_layers(options.num_layers)
                                                     .batch_first(true)
                                                     .dropout(options.dropout)));
  lm_head = register_module("lm_head", ember::nn::Linear(options.hidden_size, vocab_size));
}

std::tuple<ember::Tensor, LSTMState> CharLSTMImpl::forward(const ember::Tensor& idx, std::optional<LSTMState> state) {
  auto [out, next] = lstm->forward(wte->forward(idx), std::move(state));  // out: (B, T, hidden_size)
  return {lm_head->forward(out), next};
}

}  // namespace charlstm
