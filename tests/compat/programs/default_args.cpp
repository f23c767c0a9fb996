// FORWARD_HAS_DEFAULT_ARGS: a module whose forward has default arguments, called through AnyModule
// and Sequential with fewer arguments, as libtorch programs put an LSTM or their own modules in a
// Sequential; and libtorch's own modules that declare theirs (LSTM, GRU, LSTMCell, MultiheadAttention).
#include <iostream>
#include <string>
#include <tuple>

#include <torch/torch.h>

struct ScaleImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor& x, double factor = 2.0, torch::Tensor shift = {}) {
    return shift.defined() ? x * factor + shift : x * factor;
  }

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(2.0)}, {2, torch::nn::AnyValue(torch::Tensor())})
};
TORCH_MODULE(Scale);

int main() {
  torch::manual_seed(3);
  torch::Tensor x = torch::randn({2, 3});
  torch::nn::AnyModule scale(Scale{});
  std::cout << scale.forward(x) << std::endl << scale.forward(x, 0.5) << std::endl
            << scale.forward(x, 1.0, torch::ones({3})) << std::endl;
  try {
    scale.forward();
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    std::cout << "too few: " << (what.find("at least 1 argument(s) and at most 3 argument(s), but received 0.") !=
                                 std::string::npos)
              << std::endl;
  }
  torch::nn::Sequential scaled(Scale{}, torch::nn::ReLU());
  std::cout << scaled->forward(x) << std::endl;

  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 2));
  torch::nn::Sequential seq(lstm);
  torch::Tensor input = torch::randn({4, 1, 3});
  auto out = seq->forward<std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>>>(input);
  std::cout << std::get<0>(out) << std::endl << std::get<1>(std::get<1>(out)) << std::endl;
  torch::nn::AnyModule gru(torch::nn::GRU(torch::nn::GRUOptions(3, 2)));
  std::cout << std::get<1>(gru.forward<std::tuple<torch::Tensor, torch::Tensor>>(input)) << std::endl;
  torch::nn::AnyModule cell(torch::nn::LSTMCell(3, 2));
  std::cout << std::get<0>(cell.forward<std::tuple<torch::Tensor, torch::Tensor>>(input[0])) << std::endl;
  torch::nn::AnyModule attention(torch::nn::MultiheadAttention(4, 2));
  torch::Tensor q = torch::randn({3, 1, 4});
  std::cout << std::get<0>(attention.forward<std::tuple<torch::Tensor, torch::Tensor>>(q, q, q)) << std::endl;
  return 0;
}
