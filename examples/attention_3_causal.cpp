// Attention walkthrough, part 3: causal attention (section 3.5 of "Build a Large Language Model (From
// Scratch)"). Prints the same tensors as the tutorial: the attention weights of SelfAttentionV2,
// hiding future tokens with a simple mask and renormalising, then the -inf mask before softmax,
// dropout on the weights, and the batched CausalAttention class.
#include <cmath>
#include <iostream>
#include <limits>

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
  int64_t d_in = 3, d_out = 2;
  ember::manual_seed(789);
  nn::SelfAttentionV2 sa_v2(d_in, d_out);  // the module of part 2, same weights

  // ---- 3.5.1: the simple mask ----
  Tensor queries = sa_v2->W_query(inputs);
  Tensor keys = sa_v2->W_key(inputs);
  Tensor attn_scores = queries.matmul(keys.t());
  double scale = std::sqrt(static_cast<double>(keys.size(-1)));
  Tensor attn_weights = ember::softmax(attn_scores / scale, -1);
  std::cout << "[3.5.1] attn_weights:\n" << attn_weights << "\n";

  int64_t context_length = attn_scores.size(0);
  Tensor mask_simple = ember::tril(ember::ones({context_length, context_length}));
  std::cout << "[3.5.1] mask_simple:\n" << mask_simple << "\n";

  Tensor masked_simple = attn_weights * mask_simple;
  std::cout << "[3.5.1] masked_simple:\n" << masked_simple << "\n";

  Tensor row_sums = masked_simple.sum({-1}, /*keepdim=*/true);
  Tensor masked_simple_norm = masked_simple / row_sums;
  std::cout << "[3.5.1] masked_simple_norm:\n" << masked_simple_norm << "\n";

  // The same result in one softmax: -inf scores get weight exactly 0.
  Tensor mask = ember::triu(ember::ones({context_length, context_length}), 1);
  Tensor masked = attn_scores.masked_fill(mask.to(ember::kBool), -std::numeric_limits<double>::infinity());
  std::cout << "[3.5.1] masked:\n" << masked << "\n";

  attn_weights = ember::softmax(masked / scale, -1);
  std::cout << "[3.5.1] attn_weights:\n" << attn_weights << "\n";

  // ---- 3.5.2: dropout; the kept values are scaled by 1 / (1 - p) = 2 ----
  ember::manual_seed(123);
  nn::Dropout dropout(0.5);
  Tensor example = ember::ones({6, 6});
  std::cout << "[3.5.2] dropout(example):\n" << dropout(example) << "\n";

  ember::manual_seed(123);
  std::cout << "[3.5.2] dropout(attn_weights):\n" << dropout(attn_weights) << "\n";

  // ---- 3.5.3: the CausalAttention class on a batch of two copies of the input ----
  Tensor batch = ember::stack({inputs, inputs}, 0);
  std::cout << "batch.shape: " << batch.sizes() << "\n";  // 2 inputs of 6 tokens, each 3-d

  ember::manual_seed(123);
  nn::CausalAttention ca(d_in, d_out, batch.size(1), 0.0);
  Tensor context_vecs = ca(batch);
  std::cout << "[3.5.3] context_vecs:\n" << context_vecs << "\n";
  std::cout << "context_vecs.shape: " << context_vecs.sizes() << "\n";
  return 0;
}
