// The recurrent modules after manual_seed: a bidirectional two-layer LSTM (its printout, parameter
// names and shapes, outputs, final states and gradients), an LSTM with proj_size, batch_first and a
// given state, a GRU over a packed batch of unequal lengths, a ReLU RNN, the three cells, and an
// LSTM with dropout while training (the draws between layers).
#include <iostream>
#include <tuple>

#include <torch/torch.h>

namespace rnn = torch::nn::utils::rnn;

int main() {
  torch::manual_seed(0);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  std::cout << lstm << std::endl;
  for (const auto& p : lstm->named_parameters()) std::cout << p.key() << " " << p.value().sizes() << std::endl;
  torch::Tensor x = torch::randn({5, 2, 3}, torch::requires_grad());
  auto out = lstm(x);
  torch::Tensor y = std::get<0>(out);
  torch::Tensor h_n = std::get<0>(std::get<1>(out));
  torch::Tensor c_n = std::get<1>(std::get<1>(out));
  std::cout << "lstm output " << y << std::endl;
  std::cout << "lstm h_n " << h_n << std::endl << "lstm c_n " << c_n << std::endl;
  (y.pow(2).sum() + h_n.sum() + c_n.mul(0.5).sum()).backward();
  std::cout << "x.grad " << x.grad() << std::endl;
  std::cout << "weight_hh_l1_reverse.grad " << lstm->named_parameters()["weight_hh_l1_reverse"].grad() << std::endl;

  torch::nn::LSTM proj(torch::nn::LSTMOptions(3, 4).proj_size(2).batch_first(true));
  std::cout << proj << std::endl;
  torch::Tensor h0 = torch::randn({1, 5, 2});
  torch::Tensor c0 = torch::randn({1, 5, 4});
  auto proj_out = proj->forward(x.detach(), std::make_tuple(h0, c0));  // batch_first: 5 sequences of 2 steps
  std::cout << "proj output " << std::get<0>(proj_out) << std::endl;
  std::cout << "proj h_n " << std::get<0>(std::get<1>(proj_out)) << std::endl;

  torch::nn::GRU gru(torch::nn::GRUOptions(3, 4).num_layers(2));
  torch::Tensor lengths = torch::tensor({3, 5}, torch::kLong);
  rnn::PackedSequence packed = rnn::pack_padded_sequence(x.detach(), lengths, false, false);
  std::cout << "batch_sizes " << packed.batch_sizes() << std::endl;
  auto gru_out = gru->forward_with_packed_input(packed);
  auto padded = rnn::pad_packed_sequence(std::get<0>(gru_out));
  std::cout << "gru padded output " << std::get<0>(padded) << std::endl;
  std::cout << "gru lengths " << std::get<1>(padded) << std::endl;
  std::cout << "gru h_n " << std::get<1>(gru_out) << std::endl;

  torch::nn::RNN relu_rnn(torch::nn::RNNOptions(3, 2).nonlinearity(torch::kReLU).bias(false));
  std::cout << relu_rnn << std::endl;
  std::cout << "rnn output " << std::get<0>(relu_rnn(x.detach())) << std::endl;

  torch::nn::RNNCell rnn_cell(torch::nn::RNNCellOptions(3, 2).nonlinearity(torch::kReLU));
  torch::nn::LSTMCell lstm_cell(3, 2);
  torch::nn::GRUCell gru_cell(3, 2);
  std::cout << rnn_cell << " " << lstm_cell << " " << gru_cell << std::endl;
  torch::Tensor step = x.detach()[0];
  std::cout << "rnn_cell " << rnn_cell(step) << std::endl;
  auto hc = lstm_cell(step);
  std::cout << "lstm_cell " << std::get<0>(hc) << std::endl << std::get<1>(hc) << std::endl;
  std::cout << "gru_cell " << gru_cell(step, torch::ones({2, 2})) << std::endl;

  torch::nn::LSTM dropout_lstm(torch::nn::LSTMOptions(3, 3).num_layers(2).dropout(0.5));
  std::cout << "dropout train " << std::get<0>(dropout_lstm(x.detach())) << std::endl;
  dropout_lstm->eval();
  std::cout << "dropout eval " << std::get<0>(dropout_lstm(x.detach())) << std::endl;
  return 0;
}
