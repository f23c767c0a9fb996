// Scaled dot-product attention written out: causal masks with triu + masked_fill, a key padding
// mask, softmax, dropout off in eval, and gradients through all of it.
#include <cmath>
#include <iostream>

#include <torch/torch.h>

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& mask) {
  torch::Tensor scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(-1)));
  scores = scores.masked_fill(mask, -INFINITY);
  return torch::softmax(scores, -1).matmul(v);
}

int main() {
  torch::manual_seed(123);
  const int64_t B = 2, H = 2, T = 4, D = 3;
  torch::Tensor q = torch::randn({B, H, T, D}, torch::requires_grad());
  torch::Tensor k = torch::randn({B, H, T, D}, torch::requires_grad());
  torch::Tensor v = torch::randn({B, H, T, D}, torch::requires_grad());

  torch::Tensor causal = torch::ones({T, T}).triu(1).to(torch::kBool);
  std::cout << causal << std::endl;
  torch::Tensor out = attention(q, k, v, causal);
  std::cout << out[0][1] << std::endl;

  // Key padding: the last key of batch 1 is padding; combined with the causal mask.
  torch::Tensor padding = torch::zeros({B, 1, 1, T}, torch::kBool);
  padding.select(0, 1).select(-1, T - 1).fill_(true);
  torch::Tensor both = causal.logical_or(padding);
  torch::Tensor weights =
      torch::softmax((q.matmul(k.transpose(-2, -1)) / std::sqrt(3.0)).masked_fill(both, -INFINITY), -1);
  std::cout << weights[1][0] << std::endl;

  torch::Tensor y = attention(q, k, v, both);
  (y * y).sum().backward();
  std::cout << q.grad()[1][0] << std::endl << k.grad()[1][1] << std::endl << v.grad()[0][0] << std::endl;

  // A tril mask built another way gives the same output.
  torch::Tensor keep = torch::tril(torch::ones({T, T}));
  torch::Tensor out2 = attention(q, k, v, keep.eq(0));
  std::cout << torch::allclose(out, out2) << std::endl;
}
