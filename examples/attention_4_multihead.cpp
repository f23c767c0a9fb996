// Attention walkthrough, part 4: multi-head attention (section 3.6 of "Build a Large Language Model
// (From Scratch)"). Prints the same tensors as the tutorial: the MultiHeadAttentionWrapper (heads
// as separate CausalAttention modules, concatenated), the efficient MultiHeadAttention (one
// projection split into heads), and then times a GPT-2-small-sized attention module on a
// (2, 1024, 768) batch.
#include <chrono>
#include <iostream>

#include <ember/ember.h>

using ember::Tensor;
namespace nn = ember::nn;

int main() {
  Tensor inputs = ember::tensor({{0.43, 0.15, 0.89},    // Your     (x^1)
                                 {0.55, 0.87, 0.66},    // journey  (x^2)
                                 {0.57, 0.85, 0.64},    // starts   (x^3)
                                 {0.22, 0.58, 0.33},    // with     (x^4)
                                 {0.77, 0.25, 0.10},    // one      (x^5)
                                 {0.05, 0.80, 0.55}});  // step     (x^6)
  Tensor batch = ember::stack({inputs, inputs}, 0);     // (2, 6, 3)
  int64_t context_length = batch.size(1), d_in = 3, d_out = 2;

  // ---- 3.6.1: stacking single-head attention layers ----
  ember::manual_seed(123);
  nn::MultiHeadAttentionWrapper wrapper(d_in, d_out, context_length, 0.0, /*num_heads=*/2);
  Tensor context_vecs = wrapper(batch);
  std::cout << "[3.6.1] context_vecs:\n" << context_vecs << "\n";
  std::cout << "context_vecs.shape: " << context_vecs.sizes() << "\n";

  // ---- 3.6.2: weight splits: one projection, viewed as heads ----
  ember::manual_seed(123);
  nn::MultiHeadAttention mha(d_in, d_out, context_length, 0.0, /*num_heads=*/2);
  context_vecs = mha(batch);
  std::cout << "[3.6.2] context_vecs:\n" << context_vecs << "\n";
  std::cout << "context_vecs.shape: " << context_vecs.sizes() << "\n";

  // Exercise 3.2: the wrapper with d_out = 1 per head gives 2-d context vectors.
  ember::manual_seed(123);
  nn::MultiHeadAttentionWrapper small(d_in, 1, context_length, 0.0, /*num_heads=*/2);
  context_vecs = small(batch);
  std::cout << "[Exercise 3.2] context_vecs:\n" << context_vecs << "\n";
  std::cout << "context_vecs.shape: " << context_vecs.sizes() << "\n";

  // Exercise 3.3: GPT-2 small's attention: 12 heads, 768-d embeddings, a context of 1024 tokens.
  ember::manual_seed(123);
  nn::MultiHeadAttention gpt2_mha(768, 768, 1024, 0.0, /*num_heads=*/12);
  std::cout << "GPT-2 small attention: " << gpt2_mha->num_heads << " heads of " << gpt2_mha->head_dim << " features\n";
  Tensor big = ember::rand({2, 1024, 768});
  ember::NoGradGuard no_grad;  // timing the forward pass alone
  auto start = std::chrono::steady_clock::now();
  Tensor out = gpt2_mha(big);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "output shape: " << out.sizes() << "\n";
  std::cout << "forward time: " << ms << " ms\n";
  return 0;
}
