// Conv3d, ConvTranspose1d/3d, BatchNorm3d, InstanceNorm1d/3d and LocalResponseNorm: the layers'
// draws after manual_seed, their printouts, a small volume network trained for two SGD steps
// (losses, gradients, running statistics), eval, and the functional forms; then 3-d, adaptive and
// LP, fractional (samples drawn after manual_seed) pooling and max_unpool: printouts, values, max
// indices and gradients.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(0);
  // One module a statement: each draws its parameters in turn.
  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(2, 4, {2, 3, 3}).stride({1, 2, 1}).padding(1));
  torch::nn::BatchNorm3d bn(4);
  torch::nn::ConvTranspose3d up(torch::nn::ConvTranspose3dOptions(4, 2, 2).stride(2).groups(2).output_padding(1));
  torch::nn::InstanceNorm3d in3(torch::nn::InstanceNorm3dOptions(2).affine(true).track_running_stats(true));
  torch::nn::LocalResponseNorm lrn(torch::nn::LocalResponseNormOptions(3).alpha(0.2).k(2));
  std::cout << conv << std::endl << bn << std::endl << up << std::endl << in3 << std::endl << lrn << std::endl;
  std::cout << "conv.weight sum " << conv->weight.sum().item<float>() << std::endl;
  std::cout << "conv.bias " << conv->bias << std::endl;
  std::cout << "up.bias " << up->bias << std::endl;

  torch::Tensor x = torch::randn({2, 2, 3, 4, 3});
  torch::Tensor target = torch::randn({2, 2, 9, 5, 7});
  std::vector<torch::Tensor> params;
  for (auto* m : std::vector<torch::nn::Module*>{conv.get(), bn.get(), up.get(), in3.get()})
    for (const auto& p : m->parameters()) params.push_back(p);
  torch::optim::SGD optimizer(params, torch::optim::SGDOptions(0.05));
  auto forward = [&](const torch::Tensor& input) { return lrn(in3(up(torch::relu(bn(conv(input)))))); };
  for (int step = 1; step <= 2; ++step) {
    optimizer.zero_grad();
    torch::Tensor out = forward(x);
    torch::Tensor loss = torch::mse_loss(out, target);
    loss.backward();
    std::cout << "step " << step << " out " << out.sizes() << " loss " << loss.item<float>() << std::endl;
    std::cout << "conv.weight.grad sum " << conv->weight.grad().sum().item<float>() << " abs "
              << conv->weight.grad().abs().sum().item<float>() << std::endl;
    std::cout << "up.weight.grad[0] " << up->weight.grad()[0].flatten() << std::endl;
    std::cout << "bn.bias.grad " << bn->bias.grad() << std::endl;
    optimizer.step();
    std::cout << "bn.running_mean " << bn->running_mean << std::endl;
    std::cout << "in3.running_var " << in3->running_var << std::endl;
  }
  conv->eval();
  bn->eval();
  up->eval();
  in3->eval();
  {
    torch::NoGradGuard no_grad;
    std::cout << "eval " << forward(x.slice(0, 0, 1))[0][1][2] << std::endl;
  }

  // The functional forms, and the 1-d ones.
  torch::nn::ConvTranspose1d up1(torch::nn::ConvTranspose1dOptions(3, 2, 3).stride(2).padding(1).dilation(2));
  torch::nn::InstanceNorm1d in1(3);
  std::cout << up1 << std::endl << in1 << std::endl;
  torch::Tensor s = torch::randn({2, 3, 5}, torch::requires_grad());
  torch::Tensor y1 = up1(in1(s));
  y1.pow(2).sum().backward();
  std::cout << "conv_transpose1d " << y1 << std::endl;
  std::cout << "s.grad " << s.grad() << std::endl;
  torch::Tensor v = torch::randn({1, 3, 3, 3, 3});
  torch::Tensor w = torch::randn({2, 3, 2, 2, 2});
  std::cout << "conv3d " << F::conv3d(v, w, F::Conv3dFuncOptions().stride(2).padding({1, 0, 1})) << std::endl;
  std::cout << "conv_transpose3d sum "
            << F::conv_transpose3d(v, w.transpose(0, 1).contiguous(), F::ConvTranspose3dFuncOptions().dilation(2))
                   .sum()
                   .item<float>()
            << std::endl;
  std::cout << "local_response_norm " << F::local_response_norm(v, F::LocalResponseNormFuncOptions(2))[0][2][1]
            << std::endl;

  // Pooling over volumes and sequences.
  torch::nn::MaxPool3d max3(torch::nn::MaxPool3dOptions({2, 2, 3}).stride(2).padding(1).ceil_mode(true));
  torch::nn::AvgPool3d avg3(torch::nn::AvgPool3dOptions(2).stride(1).padding(1).count_include_pad(false));
  torch::nn::AdaptiveMaxPool3d amax3(torch::nn::AdaptiveMaxPool3dOptions({2, 3, 2}));
  torch::nn::AdaptiveAvgPool3d aavg3(torch::nn::AdaptiveAvgPool3dOptions({3, 2, 2}));
  torch::nn::AdaptiveAvgPool1d aavg1(3);
  torch::nn::AdaptiveMaxPool1d amax1(4);
  torch::nn::LPPool1d lp1(torch::nn::LPPool1dOptions(2, 3).stride(2));
  torch::nn::LPPool2d lp2(torch::nn::LPPool2dOptions(3, {2, 2}).ceil_mode(true));
  std::cout << max3 << std::endl << avg3 << std::endl << amax3 << std::endl << aavg3 << std::endl;
  std::cout << aavg1 << std::endl << amax1 << std::endl << lp1 << std::endl << lp2 << std::endl;
  torch::Tensor u = torch::randn({1, 2, 4, 5, 6}, torch::requires_grad());
  auto max_and_index = max3->forward_with_indices(u);
  std::cout << "max_pool3d " << std::get<0>(max_and_index).sizes() << " indices "
            << std::get<1>(max_and_index)[0][1].flatten() << std::endl;
  auto amax_and_index = amax3->forward_with_indices(u);
  std::cout << "adaptive_max_pool3d indices " << std::get<1>(amax_and_index)[0][0].flatten() << std::endl;
  torch::nn::MaxUnpool3d unpool3(torch::nn::MaxUnpool3dOptions({2, 2, 3}).stride(2).padding(1));
  std::cout << unpool3 << std::endl;
  torch::Tensor restored = F::max_unpool3d(
      std::get<0>(max_and_index), std::get<1>(max_and_index),
      F::MaxUnpool3dFuncOptions({2, 2, 3}).stride(2).padding(1).output_size(std::vector<int64_t>{1, 2, 4, 5, 6}));
  std::cout << "max_unpool3d " << restored.sizes() << " " << restored[0][1][2] << std::endl;
  torch::Tensor pooled = std::get<0>(max_and_index).sum() + avg3(u).pow(2).sum() + std::get<0>(amax_and_index).sum() +
                         aavg3(u).pow(2).sum();
  pooled.backward();
  std::cout << "pooled " << pooled.item<float>() << std::endl;
  std::cout << "u.grad " << u.grad()[0][0][1] << std::endl;
  torch::nn::FractionalMaxPool2d frac2(
      torch::nn::FractionalMaxPool2dOptions(2).output_size(std::vector<int64_t>{3, 4}));
  torch::nn::FractionalMaxPool3d frac3(
      torch::nn::FractionalMaxPool3dOptions({2, 2, 1}).output_ratio(std::vector<double>{0.5, 0.6, 0.7}));
  std::cout << frac2 << std::endl << frac3 << std::endl;
  auto frac = frac2->forward_with_indices(u[0][1]);  // the samples drawn with torch::rand
  std::cout << "fractional_max_pool2d " << std::get<0>(frac).sizes() << " indices " << std::get<1>(frac)[3].flatten()
            << std::endl;
  std::cout << "fractional_max_pool3d " << frac3(u.detach()).flatten().slice(0, 0, 12) << std::endl;
  torch::Tensor q = torch::randn({2, 3, 9});
  std::cout << "adaptive_avg_pool1d " << aavg1(q)[1] << std::endl;
  std::cout << "adaptive_max_pool1d indices " << std::get<1>(amax1->forward_with_indices(q))[0] << std::endl;
  std::cout << "lp_pool1d " << lp1(q)[0] << std::endl;
  std::cout << "lp_pool2d " << lp2(torch::randn({1, 2, 5, 5}).abs())[0][1] << std::endl;
  return 0;
}
