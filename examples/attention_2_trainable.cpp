// Attention walkthrough, part 2: self-attention with trainable weights (section 3.4 of "Build a Large
// Language Model (From Scratch)"). Prints the same tensors as the tutorial's PyTorch code: the
// projections of one query step by step, then the SelfAttentionV1 class (raw weight matrices,
// x @ W) and SelfAttentionV2 (Linear layers), and finally V2's weights copied into V1 so both agree.
// Nothing is trained here; "trainable" means the weights are parameters that backward would update.
#include <cmath>
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
  Tensor x_2 = inputs[1];                               // the second input element
  int64_t d_in = inputs.size(1);                        // the input embedding size, d = 3
  int64_t d_out = 2;                                    // the output embedding size

  // ---- 3.4.1: one query, step by step ----
  ember::manual_seed(123);
  Tensor W_query = ember::rand({d_in, d_out});  // (3, 2); requires_grad=False in the tutorial
  Tensor W_key = ember::rand({d_in, d_out});
  Tensor W_value = ember::rand({d_in, d_out});

  Tensor query_2 = x_2.matmul(W_query);
  std::cout << "[3.4.1] query_2:\n" << query_2 << "\n";

  Tensor keys = inputs.matmul(W_key);      // (6, 2)
  Tensor values = inputs.matmul(W_value);  // (6, 2)
  std::cout << "keys.shape: " << keys.sizes() << "\n";
  std::cout << "values.shape: " << values.sizes() << "\n";

  Tensor keys_2 = keys[1];
  Tensor attn_score_22 = (query_2 * keys_2).sum();  // query_2.dot(keys_2)
  std::cout << "[3.4.1] attn_score_22:\n" << attn_score_22 << "\n";

  Tensor attn_scores_2 = query_2.matmul(keys.t());  // all scores for query 2
  std::cout << "[3.4.1] attn_scores_2:\n" << attn_scores_2 << "\n";

  int64_t d_k = keys.size(1);
  Tensor attn_weights_2 = ember::softmax(attn_scores_2 / std::sqrt(static_cast<double>(d_k)), -1);
  std::cout << "[3.4.1] attn_weights_2:\n" << attn_weights_2 << "\n";

  Tensor context_vec_2 = attn_weights_2.matmul(values);
  std::cout << "[3.4.1] context_vec_2:\n" << context_vec_2 << "\n";

  // ---- 3.4.2: the same as a module ----
  ember::manual_seed(123);
  nn::SelfAttentionV1 sa_v1(d_in, d_out);
  std::cout << "[3.4.2] sa_v1(inputs):\n" << sa_v1(inputs) << "\n";

  ember::manual_seed(789);
  nn::SelfAttentionV2 sa_v2(d_in, d_out);
  std::cout << "[3.4.2] sa_v2(inputs):\n" << sa_v2(inputs) << "\n";

  // Exercise 3.1: Linear stores W^T, so V2's weights, transposed, make V1 compute the same thing.
  {
    ember::NoGradGuard no_grad;
    sa_v1->W_query.copy_(sa_v2->W_query->weight.t());
    sa_v1->W_key.copy_(sa_v2->W_key->weight.t());
    sa_v1->W_value.copy_(sa_v2->W_value->weight.t());
  }
  std::cout << "[Exercise 3.1] sa_v1(inputs):\n" << sa_v1(inputs) << "\n";
  return 0;
}
