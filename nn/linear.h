// nn::Linear: y = x W^T + b, and nn::Bilinear: y = x1^T A x2 + b, as torch::nn::Linear and
// torch::nn::Bilinear (with F::bilinear), with PyTorch's default initialisation; and, as libtorch's
// linear.h, the shape helpers Identity, Flatten and Unflatten.
//
//   ember::manual_seed(0);
//   ember::nn::Linear lin(3, 2);                                  // same weights as torch.nn.Linear(3, 2)
//   ember::nn::Linear proj(ember::nn::LinearOptions(768, 768).bias(false));
//   ember::Tensor y = lin(ember::ones({4, 3}));                   // (4, 2)
//   std::cout << *lin;                                            // Linear(in_features=3, out_features=2, bias=true)
//   ember::nn::Bilinear bil(3, 4, 2);
//   ember::Tensor z = bil(ember::ones({5, 3}), ember::ones({5, 4}));   // (5, 2)
#pragma once

#include <vector>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  // PyTorch's draws, in its order: weight ~ kaiming_uniform(a = sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)),
  // then bias ~ U(-1/sqrt(in), 1/sqrt(in)).
  void reset_parameters();
  // input (*, in_features) -> (*, out_features)
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  LinearOptions options;
  Tensor weight;  // (out_features, in_features)
  Tensor bias;    // (out_features), undefined when options.bias() is false
};
EMBER_MODULE(Linear);

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

namespace functional {
// y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]
//   input1 (*, in1), input2 (*, in2) with the same leading sizes, weight (out, in1, in2), bias (out) -> (*, out)
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
}  // namespace functional

class BilinearImpl : public Module {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);

  // PyTorch's draws, in its order: weight, then bias, each ~ U(-1/sqrt(in1), 1/sqrt(in1)).
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  BilinearOptions options;
  Tensor weight;  // (out_features, in1_features, in2_features)
  Tensor bias;    // (out_features), undefined when options.bias() is false
};
EMBER_MODULE(Bilinear);

// Returns its input (a placeholder in a Sequential).
class IdentityImpl : public Module {
 public:
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return input; }
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Identity);

struct FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;  // keeps the batch dim
  EMBER_ARG(int64_t, end_dim) = -1;
};
class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  // (N, d1, ..., dk) -> (N, d1 * ... * dk) with the default dims
  Tensor forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }
  void pretty_print(std::ostream& stream) const override;
  FlattenOptions options;
};
EMBER_MODULE(Flatten);

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::vector<int64_t>, sizes);  // may hold one -1
};
class UnflattenImpl : public Module {
 public:
  explicit UnflattenImpl(const UnflattenOptions& options) : options(options) {}
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }
  void pretty_print(std::ostream& stream) const override;
  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

}  // namespace ember::nn
