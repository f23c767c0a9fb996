// nn::Embedding and nn::EmbeddingBag: lookup tables of learned vectors, as torch::nn::Embedding and
// torch::nn::EmbeddingBag (with F::embedding_bag), and their from_pretrained.
//
//   ember::manual_seed(0);
//   ember::nn::Embedding wte(65, 32);                                   // weight ~ N(0, 1), as PyTorch
//   ember::nn::Embedding tok(ember::nn::EmbeddingOptions(10, 4).padding_idx(0));  // row 0 zero, no gradient
//   ember::Tensor x = wte(ember::tensor({{1, 2}, {3, 4}}, ember::dtype(ember::kInt64)));  // (2, 2, 32)
//   auto frozen = ember::nn::Embedding::from_pretrained(table);         // table (V, C), no gradient
//   ember::nn::EmbeddingBag bag(ember::nn::EmbeddingBagOptions(10, 3).mode(ember::kSum));
//   ember::Tensor sums = bag(ids, offsets);                              // ids (n), offsets (B) -> (B, 3)
//
// Not here: sparse gradients and scale_grad_by_freq (both refused with an error).
#pragma once

#include <optional>
#include <variant>

#include "nn/expanding_array.h"
#include "nn/any_module.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // This row starts at zero and receives no gradient; negative values count from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // Rows looked up are first rescaled in place to a norm_type-norm of at most max_norm.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;  // not supported: an error
  EMBER_ARG(bool, sparse) = false;              // not supported: an error
  // Use this (num_embeddings, embedding_dim) tensor as the weight instead of drawing one.
  EMBER_ARG(Tensor, _weight) = {};
};

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);

  // weight ~ N(0, 1), then the padding row set to zero (PyTorch's order).
  void reset_parameters();
  // input (*) int64 indices -> (*, embedding_dim)
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  EmbeddingOptions options;  // padding_idx stored non-negative
  Tensor weight;             // (num_embeddings, embedding_dim)
};

struct EmbeddingFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;  // the weight gets requires_grad = !freeze
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  // An Embedding whose weight is `embeddings` (V, C) itself (not a copy), as libtorch.
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

// How a bag reduces its rows: kSum, kMean (ember::kSum / kMean, as for losses) or kMax.
class EmbeddingBagMode {
 public:
  enum class Kind { Sum, Mean, Max };
  EmbeddingBagMode(Reduction reduction);                  // NOLINT: implicit, so that .mode(kSum) reads as libtorch
  EmbeddingBagMode(enumtype::kMax) : kind_(Kind::Max) {}  // NOLINT
  Kind kind() const { return kind_; }
  const char* name() const;  // "kSum", "kMean", "kMax", as libtorch's get_enum_name

 private:
  Kind kind_;
};

namespace functional {

struct EmbeddingBagFuncOptions {
  // Where each bag of a 1-d input starts (int64, (B) or (B + 1) with include_last_offset).
  EMBER_ARG(Tensor, offsets) = {};
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  // One weight per index, multiplying its row (kSum only); shaped like input.
  EMBER_ARG(Tensor, per_sample_weights) = {};
  // offsets has B + 1 entries, the last one the end of the last bag.
  EMBER_ARG(bool, include_last_offset) = false;
  // Indices equal to this are left out of their bag (and of a mean's count).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// Reduces the rows of weight (V, C) picked by each bag of indices to one row.
//   input (B, N) int64: B bags of N indices (offsets undefined), or (n) with offsets -> (B, C)
// An empty bag gives a row of zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});

}  // namespace functional

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, _weight) = {};
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);

  // libtorch 1.13's order: the padding row is zeroed first, then the whole weight drawn ~ N(0, 1).
  void reset_parameters();
  // input (B, N), or (n) with offsets; per_sample_weights shaped like input -> (B, embedding_dim)
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  EmbeddingBagOptions options;  // padding_idx stored non-negative
  Tensor weight;                // (num_embeddings, embedding_dim)
};

struct EmbeddingBagFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
