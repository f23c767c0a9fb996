// Tensor methods that libtorch programs reach for when they sort, rank, scan and reshape (issue 33):
// sort/argsort/topk (an accuracy@k, a ranking), cumsum/cumprod, flip/roll/repeat, the in-place views,
// new_zeros and its kin, isnan/isinf/isfinite, is_nonzero, var_mean/std_mean, max/min of two tensors
// and the unique family, in method and torch:: forms.
#include <cmath>
#include <iostream>
#include <limits>
#include <tuple>

#include <torch/torch.h>

int main() {
  torch::manual_seed(0);
  torch::Tensor logits = torch::randn({4, 6});
  torch::Tensor target = torch::tensor({2, 0, 5, 1}, torch::kLong);

  // Top-3 accuracy and the rank of the right class, as evaluation loops compute them.
  torch::Tensor top3 = std::get<1>(logits.topk(3, 1));
  torch::Tensor hit = top3.eq(target.unsqueeze(1)).any(1);
  std::cout << top3 << std::endl << hit << std::endl;
  torch::Tensor order = logits.argsort(1, /*descending=*/true);
  std::cout << order << std::endl;
  auto [sorted, indices] = torch::sort(logits, 0);
  std::cout << sorted << std::endl << indices << std::endl;
  auto [smallest, where] = torch::topk(logits, 2, 0, /*largest=*/false);
  std::cout << smallest << std::endl << where << std::endl;
  std::cout << std::get<0>(logits.sort(/*stable=*/true, 1)) << std::endl;

  // Scans.
  torch::Tensor probs = torch::softmax(logits, 1);
  std::cout << probs.cumsum(1) << std::endl << torch::cumprod(probs, 0) << std::endl;
  std::cout << target.cumsum(0) << std::endl << target.gt(0).cumsum(0) << std::endl;
  std::cout << (logits.cumsum(1, torch::kDouble).scalar_type() == torch::kDouble) << std::endl;

  // Reordering and tiling.
  torch::Tensor m = torch::arange(6, torch::kFloat).reshape({2, 3});
  std::cout << m.flip({0, 1}) << std::endl << torch::flip(m, {1}) << std::endl;
  std::cout << m.roll(1, 1) << std::endl << torch::roll(m, {1, -1}, {0, 1}) << std::endl << m.roll(4) << std::endl;
  std::cout << m.repeat({2, 2}) << std::endl << m.repeat({2, 1, 1}).sizes() << std::endl;

  // In-place views change the tensor itself.
  torch::Tensor v = m.clone();
  v.unsqueeze_(0);
  std::cout << v.sizes() << std::endl;
  v.squeeze_();
  v.t_();
  std::cout << v.sizes() << " " << v.stride(0) << std::endl;
  v.transpose_(0, 1);
  std::cout << v << std::endl;

  // New tensors like another one.
  torch::Tensor d = torch::ones({2}, torch::kDouble);
  std::cout << d.new_zeros({2, 2}) << std::endl << d.new_full({3}, 7) << std::endl << d.new_ones({1}, torch::kLong)
            << std::endl << d.new_empty({5}).sizes() << std::endl;

  // Floating-point classes and truth values.
  torch::Tensor special = torch::tensor({1.0, std::nan(""), -std::numeric_limits<double>::infinity(), 0.0});
  std::cout << special.isnan() << std::endl << torch::isinf(special) << std::endl << special.isfinite() << std::endl;
  std::cout << torch::tensor({3}).is_nonzero() << " " << torch::tensor(0.0).is_nonzero() << std::endl;
  try {
    torch::ones({2}).is_nonzero();
  } catch (const c10::Error&) {
    std::cout << "is_nonzero of two values throws" << std::endl;
  }

  // Statistics in one call; max and min of two tensors.
  auto [var, mean] = torch::var_mean(logits, {1});
  std::cout << var << std::endl << mean << std::endl;
  auto [std, mean0] = torch::std_mean(logits, {0}, /*unbiased=*/false, /*keepdim=*/true);
  std::cout << std << std::endl << mean0 << std::endl;
  std::cout << logits.var({1}) << std::endl << torch::max(logits, logits.flip({1})) << std::endl
            << logits.min(torch::zeros({6})) << std::endl;

  // unique.
  torch::Tensor labels = torch::tensor({3, 1, 3, 3, 0, 1}, torch::kLong);
  auto [values, inverse, counts] = torch::_unique2(labels, /*sorted=*/true, /*return_inverse=*/true, true);
  std::cout << values << std::endl << inverse << std::endl << counts << std::endl;
  std::cout << std::get<0>(torch::_unique(labels)) << std::endl;
  auto [runs, run_of, lengths] = torch::unique_consecutive(labels, true, true);
  std::cout << runs << std::endl << run_of << std::endl << lengths << std::endl;

  // Gradients through sort, topk and the scans.
  torch::Tensor x = torch::linspace(-1, 1, 5).requires_grad_();
  (std::get<0>(x.sort(0, true)) * torch::arange(5)).sum().backward();
  std::cout << x.grad() << std::endl;
  torch::Tensor y = torch::linspace(-1, 1, 5).requires_grad_();
  (y.cumprod(0).sum() + std::get<0>(y.topk(2)).sum() + y.cumsum(0).pow(2).sum()).backward();
  std::cout << y.grad() << std::endl;
  return 0;
}
