// torch::nn::MultiheadAttention with kdim/vdim, add_bias_kv and add_zero_attn, per-head weights, and
// F::multi_head_attention_forward with static keys (libtorch 1.13's API). Seeded, so the initial
// draws are compared too.
#include <torch/torch.h>

#include <iostream>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(3);
  torch::nn::MultiheadAttention cross(torch::nn::MultiheadAttentionOptions(8, 2).kdim(5).vdim(5));
  for (const auto& item : cross->named_parameters()) std::cout << item.key() << " " << item.value().sizes() << "\n";
  std::cout << "k_proj_weight\n" << cross->k_proj_weight << "\n";
  auto q = torch::linspace(-1, 1, 4 * 2 * 8).reshape({4, 2, 8});
  auto k = torch::linspace(1, -2, 6 * 2 * 5).reshape({6, 2, 5});
  auto v = torch::linspace(-0.5, 2, 6 * 2 * 5).reshape({6, 2, 5});  // libtorch asserts key.sizes() == value.sizes()
  auto padding = torch::zeros({2, 6}, torch::kBool);
  padding[1][5] = true;
  auto [out, weights] = cross(q, k, v, padding);
  std::cout << "out\n" << out << "\nweights\n" << weights << "\n";

  torch::manual_seed(4);
  torch::nn::MultiheadAttention extra(torch::nn::MultiheadAttentionOptions(8, 4).add_bias_kv(true).add_zero_attn(true));
  std::cout << "bias_k\n" << extra->bias_k << "\n";
  auto mask = torch::zeros({4, 4});  // padded for bias_k and the zero attention by the module
  mask[0][2] = -1.5;
  mask[3][0] = 0.5;
  auto [out2, weights2] = extra->forward(q, q, q, {}, true, mask, /*average_attn_weights=*/false);
  std::cout << "out2\n" << out2 << "\nweights2 " << weights2.sizes() << "\n" << weights2[1][3] << "\n";
  auto loss = out2.pow(2).sum();
  loss.backward();
  std::cout << "bias_k grad\n" << extra->bias_k.grad() << "\nin_proj_bias grad\n" << extra->in_proj_bias.grad() << "\n";

  // The functional form, with the first module's weights and static keys and values.
  torch::NoGradGuard no_grad;
  auto static_k = torch::linspace(-1, 1, 4 * 7 * 4).reshape({4, 7, 4});
  auto static_v = torch::linspace(1, -1, 4 * 7 * 4).reshape({4, 7, 4});
  auto options = F::MultiheadAttentionForwardFuncOptions(8, 2, {}, cross->in_proj_bias, {}, {}, false, 0.0,
                                                         cross->out_proj->weight, cross->out_proj->bias)
                     .use_separate_proj_weight(true)
                     .q_proj_weight(cross->q_proj_weight)
                     .k_proj_weight(cross->k_proj_weight)
                     .v_proj_weight(cross->v_proj_weight)
                     .static_k(static_k)
                     .static_v(static_v);
  auto [out3, weights3] = F::multi_head_attention_forward(q, k, v, options);
  std::cout << "out3\n" << out3[2] << "\nweights3 " << weights3.sizes() << "\n" << weights3[0] << "\n";
}
