// ParameterList and ParameterDict in a user module, nn::utils::parameters_to_vector and
// vector_to_parameters, and adaptive pooling with an output size of None (libtorch 1.13's API). The
// includes beside <torch/torch.h> are libtorch's own paths, which Ember forwards.
#include <c10/util/irange.h>
#include <torch/nn/modules/container/parameterdict.h>
#include <torch/nn/modules/container/parameterlist.h>
#include <torch/nn/utils/convert_parameters.h>
#include <torch/torch.h>
#include <torch/types.h>

#include <iostream>

struct TapsImpl : torch::nn::Module {
  TapsImpl() {
    taps = register_module("taps", torch::nn::ParameterList(torch::ones({2, 3}).requires_grad_(), torch::full({3}, 2.0)));
    taps->append(torch::arange(3, torch::kFloat).set_requires_grad(true));
    scales = register_module("scales", torch::nn::ParameterDict());
    scales->insert("alpha", torch::full({1}, 0.5, torch::requires_grad()));
    scales->insert("beta", torch::zeros({3}, torch::kDouble).set_requires_grad(false));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return (x * taps[0] + taps[1]) * scales["alpha"] + taps->at(2);
  }
  torch::nn::ParameterList taps{nullptr};
  torch::nn::ParameterDict scales{nullptr};
};
TORCH_MODULE(Taps);

int main() {
  torch::manual_seed(0);
  Taps net;
  for (const auto& item : net->named_parameters())
    std::cout << item.key() << " " << item.value().sizes() << " requires_grad=" << item.value().requires_grad()
              << "\n";
  std::cout << *net->taps << "\n" << *net->scales << "\n" << *net << "\n";
  std::cout << "size " << net->taps->size() << " " << net->scales->size() << " contains "
            << net->scales->contains("alpha") << net->scales->contains("gamma") << "\n";
  for (const auto& key : net->scales->keys()) std::cout << "key " << key << "\n";
  for (const auto i : c10::irange(net->taps->size())) std::cout << "tap " << i << " " << net->taps[i].numel() << "\n";

  auto x = torch::arange(6, torch::kFloat).reshape({2, 3});
  auto y = net->forward(x).sum();
  y.backward();
  std::cout << "y " << y.item<float>() << "\n";
  for (const auto& item : net->named_parameters())
    if (item.value().grad().defined()) std::cout << "grad " << item.key() << "\n" << item.value().grad() << "\n";

  torch::Tensor popped = net->scales->pop("beta");
  std::cout << "popped " << popped.sizes() << " left " << net->scales->size() << "\n";
  try {
    net->taps->at(7);
  } catch (const c10::Error& e) {
    std::cout << "at(7) throws\n";
  }
  try {
    net->scales->pop("gamma");
  } catch (const c10::Error& e) {
    std::cout << "pop(gamma) throws\n";
  }

  // The parameters as one vector and back.
  auto params = net->parameters();
  auto flat = torch::nn::utils::parameters_to_vector(params);
  std::cout << "flat " << flat.sizes() << " sum " << flat.sum().item<float>() << "\n";
  torch::nn::utils::vector_to_parameters(torch::arange(flat.numel(), torch::kFloat), params);
  std::cout << net->taps[0] << "\n" << net->scales["alpha"] << "\n";

  // Adaptive pooling that keeps a dim (None).
  auto image = torch::arange(2 * 3 * 4 * 5, torch::kFloat).reshape({2, 3, 4, 5});
  torch::nn::AdaptiveAvgPool2d keep_rows(torch::nn::AdaptiveAvgPool2dOptions({c10::nullopt, 2}));
  torch::nn::AdaptiveMaxPool2d keep_cols(torch::nn::AdaptiveMaxPool2dOptions({3, c10::nullopt}));
  std::cout << keep_rows << "\n" << keep_cols << "\n";
  std::cout << keep_rows(image)[1][2] << "\n" << keep_cols(image)[0][1] << "\n";
  auto volume = torch::arange(2 * 3 * 4 * 5, torch::kFloat).reshape({1, 2, 3, 4, 5});
  torch::nn::AdaptiveAvgPool3d pool3(torch::nn::AdaptiveAvgPool3dOptions({c10::nullopt, 2, c10::nullopt}));
  std::cout << pool3 << " " << pool3(volume).sizes() << "\n" << pool3(volume)[0][1][2] << "\n";
  namespace F = torch::nn::functional;
  std::cout << F::adaptive_max_pool3d(volume, F::AdaptiveMaxPool3dFuncOptions({1, c10::nullopt, 2})).sizes() << "\n";
}
