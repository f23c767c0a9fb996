// Memory formats and Tensor::to's flags as libtorch programs use them: contiguous(ChannelsLast),
// is_contiguous and suggest_memory_format, to(dtype, non_blocking, copy, memory_format) and
// to(other), Preserve's strides, empty with a memory_format option, layout/kStrided, a convolution and
// a gradient through a channels-last copy, and the error for a rank that has no channels-last form.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::arange(120, torch::kFloat).reshape({2, 3, 4, 5});
  torch::Tensor cl = x.contiguous(torch::MemoryFormat::ChannelsLast);
  std::cout << "channels_last strides " << cl.strides() << " contiguous " << cl.is_contiguous() << " channels_last "
            << cl.is_contiguous(at::MemoryFormat::ChannelsLast) << std::endl;
  std::cout << "suggested " << cl.suggest_memory_format() << " and " << x.suggest_memory_format() << std::endl;
  std::cout << "equal values " << cl.equal(x) << std::endl;
  std::cout << "to(kDouble) keeps " << cl.to(torch::kDouble).strides() << std::endl;
  std::cout << "to(kFloat, Contiguous) " << cl.to(torch::kFloat, false, false, torch::MemoryFormat::Contiguous).strides()
            << std::endl;
  std::cout << "to(ChannelsLast) of the same format is itself "
            << (cl.to(torch::kFloat, false, false, torch::MemoryFormat::ChannelsLast).data_ptr() == cl.data_ptr())
            << std::endl;
  std::cout << "non_blocking alone copies nothing " << (x.to(torch::kFloat, true).data_ptr() == x.data_ptr())
            << std::endl;
  std::cout << "copy=true copies " << (x.to(torch::kFloat, false, true).data_ptr() != x.data_ptr()) << std::endl;
  torch::Tensor as_double = x.to(torch::zeros({1}, torch::kDouble));
  std::cout << "to(other) is double " << (as_double.scalar_type() == torch::kDouble) << " sum "
            << as_double.sum().item<double>() << std::endl;
  torch::Tensor permuted = x.permute({0, 2, 3, 1});
  std::cout << "a dense permuted tensor copies with its strides " << permuted.to(torch::kDouble).strides() << std::endl;
  torch::Tensor sliced = x.reshape({24, 5}).t().slice(1, 0, 24, 3);
  std::cout << "a sliced transposed one densely, in its order " << sliced.sizes() << " " << sliced.strides() << " -> "
            << sliced.to(torch::kDouble).strides() << std::endl;

  torch::Tensor e = torch::empty({2, 3, 4, 5}, torch::TensorOptions().memory_format(torch::MemoryFormat::ChannelsLast));
  std::cout << "empty channels_last " << e.strides() << std::endl;
  torch::TensorOptions options = torch::TensorOptions().dtype(torch::kFloat).layout(torch::kStrided);
  std::cout << "layout " << x.layout() << " " << options.layout() << " " << (x.layout() == torch::kStrided)
            << std::endl;
  std::cout << "contiguous format " << c10::get_contiguous_memory_format() << std::endl;

  torch::manual_seed(0);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 2, 3).padding(1));
  torch::Tensor input = torch::randn({2, 3, 5, 4});
  torch::Tensor a = conv(input);
  torch::Tensor b = conv(input.contiguous(torch::MemoryFormat::ChannelsLast));
  std::cout << "conv sums " << a.sum().item<float>() << " " << b.sum().item<float>() << " allclose "
            << torch::allclose(a, b, 1e-5, 1e-5) << std::endl;

  torch::Tensor leaf = torch::randn({1, 2, 3, 3}, torch::requires_grad());
  torch::Tensor y = leaf.contiguous(torch::MemoryFormat::ChannelsLast);
  (y * y).sum().backward();
  std::cout << "gradient is 2 * input " << torch::allclose(leaf.grad(), 2 * leaf.detach()) << std::endl;
  try {
    torch::ones({3, 4}).contiguous(torch::MemoryFormat::ChannelsLast);
    std::cout << "no error" << std::endl;
  } catch (const c10::Error&) {
    std::cout << "a 2-d tensor has no channels_last form" << std::endl;
  }
}
