// The margin losses (multi-margin with p and weight, soft margin, multi-label margin and soft margin,
// triplet with a distance function) with their gradients, and the transformer stacks built after
// manual_seed: TransformerEncoder from layer options, and a Transformer whose construction (layer
// draws, clone draws, xavier_uniform_ on every matrix) decides its values.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(7);
  torch::Tensor x = torch::randn({3, 4}, torch::requires_grad());
  torch::Tensor classes = torch::tensor({2, 0, 3}, torch::kLong);

  torch::nn::MultiMarginLoss multi;
  torch::Tensor l = multi(x, classes);
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  x.mutable_grad().zero_();
  torch::Tensor weight = torch::tensor({0.5, 1.0, 2.0, 1.5});
  l = F::multi_margin_loss(x, classes, F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(weight));
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  x.mutable_grad().zero_();

  torch::Tensor sign = torch::tensor({{1.0, -1.0, -1.0, 1.0}, {1.0, 1.0, -1.0, -1.0}, {-1.0, 1.0, 1.0, -1.0}});
  l = torch::nn::SoftMarginLoss()(x, sign);
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  x.mutable_grad().zero_();
  std::cout << F::soft_margin_loss(x, sign, F::SoftMarginLossFuncOptions(torch::kNone)) << std::endl;

  torch::Tensor lists = torch::tensor({{3, 0, -1, 1}, {1, -1, 0, 0}, {2, 3, 0, 1}}, torch::kLong);
  torch::nn::MultiLabelMarginLoss multilabel(torch::kSum);
  l = multilabel(x, lists);
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  x.mutable_grad().zero_();

  torch::Tensor labels = torch::tensor({{1.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 1.0, 1.0}, {0.0, 1.0, 0.0, 0.0}});
  torch::nn::MultiLabelSoftMarginLoss soft(torch::nn::MultiLabelSoftMarginLossOptions().weight(weight));
  l = soft(x, labels);
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  x.mutable_grad().zero_();

  torch::Tensor positive = torch::randn({3, 4});
  torch::Tensor negative = torch::randn({3, 4});
  auto l1 = [](const torch::Tensor& a, const torch::Tensor& b) { return (a - b).abs().sum(-1); };
  torch::nn::TripletMarginWithDistanceLoss triplet(
      torch::nn::TripletMarginWithDistanceLossOptions().distance_function(l1).margin(2.0).swap(true));
  l = triplet(x, positive, negative);
  l.backward();
  std::cout << l << std::endl << x.grad() << std::endl;
  std::cout << F::triplet_margin_with_distance_loss(
                   x, positive, negative, F::TripletMarginWithDistanceLossFuncOptions().reduction(torch::kNone))
            << std::endl;

  // ---- transformers ----
  torch::manual_seed(0);
  auto layer = torch::nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0);
  torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(layer, 2).norm(
      torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})))));
  for (const auto& p : encoder->named_parameters()) std::cout << p.key() << std::endl;
  std::cout << encoder->named_parameters()["layers.1.linear1.weight"] << std::endl;
  torch::Tensor src = torch::randn({5, 2, 4});
  torch::Tensor encoded = encoder(src, torch::nn::TransformerImpl::generate_square_subsequent_mask(5));
  std::cout << encoded << std::endl;

  torch::manual_seed(1);
  torch::nn::Transformer model(
      torch::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).dropout(0.0).activation(torch::kGELU));
  std::cout << model->named_parameters()["encoder.layers.0.self_attn.in_proj_weight"] << std::endl;
  std::cout << model->named_parameters()["decoder.layers.0.linear2.weight"] << std::endl;
  std::cout << model->named_parameters()["decoder.layers.0.linear2.bias"] << std::endl;
  std::cout << torch::randn({3}) << std::endl;  // where the construction left the generator
  torch::Tensor tgt = torch::randn({3, 2, 4}, torch::requires_grad());
  torch::Tensor out = model->forward(src, tgt, {}, torch::nn::TransformerImpl::generate_square_subsequent_mask(3));
  (out * torch::arange(24, torch::kFloat).view({3, 2, 4})).sum().backward();
  std::cout << out << std::endl << tgt.grad() << std::endl;
  std::cout << model->named_parameters()["encoder.layers.0.linear1.weight"].grad() << std::endl;

  // ---- adaptive softmax ----
  torch::manual_seed(2);
  torch::nn::AdaptiveLogSoftmaxWithLoss adaptive(
      torch::nn::AdaptiveLogSoftmaxWithLossOptions(6, 8, {2, 5}).div_value(2.0));
  std::cout << adaptive->named_parameters()["tail.0.0.weight"] << std::endl;
  std::cout << adaptive->named_parameters()["tail.0.1.weight"] << std::endl;
  torch::Tensor hidden = torch::randn({4, 6}, torch::requires_grad());
  torch::nn::ASMoutput asm_out = adaptive(hidden, torch::tensor({0, 3, 7, 5}, torch::kLong));
  std::cout << asm_out.output << std::endl << asm_out.loss << std::endl;
  (-asm_out.output).sum().backward();
  std::cout << hidden.grad() << std::endl << adaptive->head->weight.grad() << std::endl;
  std::cout << adaptive->log_prob(hidden) << std::endl << adaptive->predict(hidden) << std::endl;

  // ---- ctc ----
  torch::Tensor logits = torch::randn({6, 2, 4}, torch::requires_grad());
  torch::Tensor ctc_targets = torch::tensor({{1, 2, 2}, {3, 1, 0}}, torch::kLong);
  torch::nn::CTCLoss ctc;
  l = ctc(logits.log_softmax(2), ctc_targets, torch::tensor({6, 5}, torch::kLong), torch::tensor({3, 2}, torch::kLong));
  l.backward();
  std::cout << l << std::endl << logits.grad() << std::endl;
}
