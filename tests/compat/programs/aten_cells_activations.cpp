// ATen's functional forms that libtorch programs call directly: one step of the LSTM, GRU and RNN
// cells with hand-held weights (the way custom recurrent loops are written), gelu with both
// approximations, hardswish and hardsigmoid (mobile networks), pixel_unshuffle, the reflection and
// replication pads, three margin losses with an integer reduction, and fill, zero, isreal, can_cast
// and the unsafe_ splits. Gradients flow through the cells.
#include <iostream>

#include <torch/torch.h>

torch::Tensor ramp(std::vector<int64_t> shape, double scale, double shift) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (torch::arange(n, torch::kDouble).sin() * scale + shift).reshape(shape);
}

int main() {
  torch::Tensor x = ramp({2, 3}, 1.0, 0.1).requires_grad_();
  torch::Tensor h = ramp({2, 4}, 0.5, -0.2), c = ramp({2, 4}, 0.3, 0.05);
  torch::Tensor w_ih = ramp({16, 3}, 0.4, 0.0), w_hh = ramp({16, 4}, 0.3, 0.01);
  torch::Tensor b_ih = ramp({16}, 0.2, 0.0), b_hh = ramp({16}, 0.1, 0.02);
  auto [hy, cy] = at::lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
  std::cout << hy << std::endl << cy << std::endl;
  torch::Tensor gh =
      torch::gru_cell(x, h, w_ih.slice(0, 0, 12), w_hh.slice(0, 0, 12), b_ih.slice(0, 0, 12), b_hh.slice(0, 0, 12));
  std::cout << gh << std::endl;
  torch::Tensor rh = at::rnn_tanh_cell(x, h, w_ih.slice(0, 0, 4), w_hh.slice(0, 0, 4));
  torch::Tensor rr = at::rnn_relu_cell(x, h, w_ih.slice(0, 0, 4), w_hh.slice(0, 0, 4), b_ih.slice(0, 0, 4));
  std::cout << rh << std::endl << rr << std::endl;
  (hy.sum() + cy.sum() + gh.sum() + rh.sum()).backward();
  std::cout << x.grad() << std::endl;

  torch::Tensor v = torch::linspace(-4, 4, 9, torch::kDouble);
  std::cout << at::gelu(v) << std::endl << torch::gelu(v, "tanh") << std::endl;
  std::cout << at::hardswish(v) << std::endl << at::hardsigmoid(v) << std::endl;
  torch::Tensor w = v.clone();
  at::hardswish_(w);
  std::cout << w.sum().item<double>() << std::endl;

  torch::Tensor img = torch::arange(32, torch::kFloat).reshape({1, 2, 4, 4});
  std::cout << at::pixel_unshuffle(img, 2).sizes() << " " << at::pixel_unshuffle(img, 2)[0][5] << std::endl;
  torch::Tensor row = torch::arange(5, torch::kFloat).reshape({1, 1, 5});
  std::cout << at::reflection_pad1d(row, {2, 1}) << std::endl << at::replication_pad1d(row, {1, 3}) << std::endl;
  std::cout << at::reflection_pad2d(img.slice(1, 0, 1), {1, 1, 2, 0}) << std::endl;
  std::cout << at::replication_pad2d(img.slice(1, 1, 2), {0, 2, 1, 1}).sum() << std::endl;

  torch::Tensor scores = ramp({3, 4}, 1.0, 0.0);
  torch::Tensor labels = torch::tensor({1, 3, 0});
  std::cout << at::multi_margin_loss(scores, labels) << std::endl;
  std::cout << at::multi_margin_loss(scores, labels, 2, 0.5, torch::tensor({1.0, 2.0, 0.5, 1.0}, torch::kDouble),
                                     at::Reduction::Sum)
            << std::endl;
  std::cout << at::soft_margin_loss(scores, scores.sign(), at::Reduction::None) << std::endl;
  std::cout << at::multilabel_margin_loss(scores, torch::tensor({{3, 0, -1, 1}, {1, -1, 0, 0}, {2, 1, 0, 3}}))
            << std::endl;

  std::cout << at::fill(scores, 2.5).sum() << " " << at::zero(scores).sum() << " " << at::isreal(scores).all()
            << std::endl;
  std::cout << at::can_cast(torch::kFloat, torch::kLong) << at::can_cast(torch::kLong, torch::kFloat)
            << at::can_cast(torch::kInt, torch::kBool) << at::can_cast(torch::kBool, torch::kInt)
            << at::can_cast(torch::kDouble, torch::kHalf) << std::endl;
  auto pieces = at::unsafe_chunk(scores, 2, 1);
  auto splits = at::unsafe_split(scores, 1, 0);
  std::cout << pieces.size() << " " << pieces[1] << " " << splits.size() << std::endl;
}
