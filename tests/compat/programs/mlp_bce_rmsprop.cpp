// A binary classifier trained with BCEWithLogitsLoss (pos_weight) and RMSprop, then the same MLP with
// Adagrad; the newer activations in the model, and a tour of the newer losses and activations.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

torch::nn::Sequential make_model() {
  // Built last first: each layer draws its initial weights, and the order a call evaluates its
  // arguments in is unspecified (GCC, which wrote expected/, goes right to left).
  torch::nn::Linear fc3(8, 1);
  torch::nn::Linear fc2(8, 8);
  torch::nn::Linear fc1(4, 8);
  return torch::nn::Sequential(fc1, torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.1)), fc2,
                               torch::nn::SiLU(), fc3, torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(0)));
}

template <typename Optimizer>
void train(torch::nn::Sequential& model, Optimizer& optimizer, const torch::Tensor& x, const torch::Tensor& y) {
  torch::nn::BCEWithLogitsLoss criterion(torch::nn::BCEWithLogitsLossOptions().pos_weight(torch::tensor({2.0})));
  std::cout << std::fixed << std::setprecision(5);
  for (int epoch = 1; epoch <= 30; ++epoch) {
    optimizer.zero_grad();
    torch::Tensor logits = model->forward(x);
    torch::Tensor loss = criterion(logits, y);
    loss.backward();
    optimizer.step();
    if (epoch % 10 == 0) {
      double accuracy = logits.gt(0).to(torch::kFloat).eq(y).to(torch::kFloat).mean().item<double>();
      std::cout << "epoch " << epoch << " loss " << loss.item<float>() << " accuracy " << accuracy << std::endl;
    }
  }
  std::cout << std::defaultfloat;
}

int main() {
  torch::manual_seed(0);
  const int64_t n = 64;
  torch::Tensor x = torch::randn({n, 4});
  // Label: whether x points along a fixed direction (about a third of the points).
  torch::Tensor direction = torch::randn({4});
  torch::Tensor y = x.matmul(direction).gt(0.5).to(torch::kFloat);
  std::cout << "positives: " << y.sum().item<float>() << std::endl;

  torch::nn::Sequential model = make_model();
  torch::optim::RMSprop rmsprop(model->parameters(), torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
  train(model, rmsprop, x, y);

  torch::nn::Sequential model2 = make_model();
  torch::optim::Adagrad adagrad(model2->parameters(), torch::optim::AdagradOptions(0.1).lr_decay(0.01));
  train(model2, adagrad, x, y);
  {
    torch::NoGradGuard no_grad;
    std::cout << torch::sigmoid(model2->forward(x.slice(0, 0, 4))) << std::endl;
  }

  // Losses on fixed inputs.
  torch::Tensor a = torch::randn({3, 5});
  torch::Tensor b = torch::randn({3, 5});
  torch::Tensor c = torch::randn({3, 5});
  torch::Tensor p = torch::sigmoid(a);
  torch::Tensor t = torch::rand({3, 5});
  torch::Tensor sign = torch::tensor({1.0, -1.0, 1.0});
  std::cout << F::binary_cross_entropy(p, t) << std::endl;
  std::cout << F::kl_div(torch::log_softmax(a, 1), torch::softmax(b, 1),
                         F::KLDivFuncOptions().reduction(torch::kBatchMean))
            << std::endl;
  std::cout << F::huber_loss(a, b, F::HuberLossFuncOptions().delta(0.5)) << std::endl;
  std::cout << F::margin_ranking_loss(a.select(1, 0), b.select(1, 0), sign,
                                      F::MarginRankingLossFuncOptions().margin(0.1))
            << std::endl;
  std::cout << F::hinge_embedding_loss(a.select(1, 1), sign) << std::endl;
  std::cout << F::cosine_embedding_loss(a, b, sign, F::CosineEmbeddingLossFuncOptions().margin(0.2)) << std::endl;
  std::cout << F::triplet_margin_loss(a, b, c, F::TripletMarginLossFuncOptions().swap(true)) << std::endl;
  std::cout << F::poisson_nll_loss(a, t * 3, F::PoissonNLLLossFuncOptions().full(true)) << std::endl;

  // Activations, with gradients.
  torch::Tensor z = torch::linspace(-3, 3, 7).requires_grad_(true);
  torch::Tensor total = F::elu(z) + F::selu(z) + F::celu(z, F::CELUFuncOptions().alpha(0.5)) + F::mish(z) +
                        F::softplus(z, F::SoftplusFuncOptions().beta(2)) + F::logsigmoid(z) + F::softsign(z) +
                        F::hardtanh(z, F::HardtanhFuncOptions().min_val(-2).max_val(2)) +
                        F::threshold(z, F::ThresholdFuncOptions(0.5, -1.0)) + F::softmin(z, F::SoftminFuncOptions(0));
  std::cout << total << std::endl;
  total.sum().backward();
  std::cout << z.grad() << std::endl;
}
