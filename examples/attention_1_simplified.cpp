// Attention walkthrough, part 1: simplified self-attention without trainable weights.
//
// The C++ twin of section 3.3 of "Build a Large Language Model (From Scratch)" (chapter 3): it
// prints the same tensors, in the same format, as the tutorial's PyTorch code, so the two can be
// read side by side. Build and run: `cmake --build build --target attention_1_simplified &&
// ./build/examples/attention_1_simplified`. No learning happens here: the attention weights come
// straight from dot products of the input embeddings.
#include <iostream>

#include <ember/ember.h>

using ember::Tensor;

// softmax written out: exp(x) / sum(exp(x)). Overflows for large inputs; ember::softmax does not.
Tensor softmax_naive(const Tensor& x) { return x.exp() / x.exp().sum({0}); }

int main() {
  // Six tokens of "Your journey starts with one step", each a 3-d embedding.
  Tensor inputs = ember::tensor({{0.43, 0.15, 0.89},    // Your     (x^1)
                                 {0.55, 0.87, 0.66},    // journey  (x^2)
                                 {0.57, 0.85, 0.64},    // starts   (x^3)
                                 {0.22, 0.58, 0.33},    // with     (x^4)
                                 {0.77, 0.25, 0.10},    // one      (x^5)
                                 {0.05, 0.80, 0.55}});  // step     (x^6)

  // ---- 3.3.1: attention scores of one query (the second token) against every input ----
  Tensor query = inputs[1];  // (3)
  Tensor attn_scores_2 = ember::empty({inputs.size(0)});
  for (int64_t i = 0; i < inputs.size(0); ++i) {
    attn_scores_2[i].copy_((inputs[i] * query).sum());  // the dot product x^i . x^2
  }
  std::cout << "[3.3.1] attn_scores_2:\n" << attn_scores_2 << "\n";

  // The dot product spelled out for the first token.
  Tensor res = ember::scalar_tensor(0.0);
  for (int64_t idx = 0; idx < inputs.size(1); ++idx) {
    res = res + inputs[0][idx] * query[idx];
  }
  std::cout << "[3.3.1] res:\n" << res << "\n";
  std::cout << "[3.3.1] (inputs[0] * query).sum():\n" << (inputs[0] * query).sum() << "\n";

  // Normalising so the weights sum to one: first naively, then with softmax.
  Tensor attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum();
  std::cout << "Attention weights: " << attn_weights_2_tmp << "\n";
  std::cout << "Sum: " << attn_weights_2_tmp.sum() << "\n";

  Tensor attn_weights_2_naive = softmax_naive(attn_scores_2);
  std::cout << "Attention weights: " << attn_weights_2_naive << "\n";
  std::cout << "Sum: " << attn_weights_2_naive.sum() << "\n";

  Tensor attn_weights_2 = ember::softmax(attn_scores_2, 0);
  std::cout << "Attention weights: " << attn_weights_2 << "\n";
  std::cout << "Sum: " << attn_weights_2.sum() << "\n";

  // The context vector of token 2: the inputs weighted by the attention weights.
  Tensor context_vec_2 = ember::zeros(query.sizes());
  for (int64_t i = 0; i < inputs.size(0); ++i) {
    context_vec_2 += attn_weights_2[i] * inputs[i];
  }
  std::cout << "[3.3.1] context_vec_2:\n" << context_vec_2 << "\n";

  // ---- 3.3.2: all queries at once ----
  Tensor attn_scores = ember::empty({6, 6});
  for (int64_t i = 0; i < inputs.size(0); ++i) {
    for (int64_t j = 0; j < inputs.size(0); ++j) {
      attn_scores[i][j].copy_((inputs[i] * inputs[j]).sum());
    }
  }
  std::cout << "[3.3.2] attn_scores:\n" << attn_scores << "\n";

  attn_scores = inputs.matmul(inputs.t());  // the same (6, 6) scores as one matrix product
  std::cout << "[3.3.2] attn_scores:\n" << attn_scores << "\n";

  Tensor attn_weights = ember::softmax(attn_scores, -1);  // each row sums to 1
  std::cout << "[3.3.2] attn_weights:\n" << attn_weights << "\n";
  std::cout << "All row sums: " << attn_weights.sum({-1}) << "\n";

  Tensor all_context_vecs = attn_weights.matmul(inputs);  // (6, 3)
  std::cout << "[3.3.2] all_context_vecs:\n" << all_context_vecs << "\n";
  std::cout << "Previous 2nd context vector: " << context_vec_2 << "\n";
  return 0;
}
