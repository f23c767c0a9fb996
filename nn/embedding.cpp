// nn::Embedding and nn::EmbeddingBag: the weight tables, libtorch's initialisation and from_pretrained;
// F::embedding_bag as index_select, then index_add into the bags (kSum, kMean) or a max per bag.
#include "nn/embedding.h"

#include <ostream>

#include <fmt/format.h>

#include "autograd/grad_mode.h"
#include "core/trace.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace ember::nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  const int64_t rows = options.num_embeddings(), dim = options.embedding_dim();
  EMBER_CHECK(rows >= 0 && dim >= 0, "Embedding: num_embeddings and embedding_dim must be non-negative, got {} and {}",
              rows, dim);
  if (auto idx = options.padding_idx()) {
    EMBER_CHECK(*idx >= -rows && *idx < rows, "Embedding: padding_idx {} must be within num_embeddings ({})", *idx,
                rows);
    if (*idx < 0) options.padding_idx(*idx + rows);
  }
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({rows, dim}),
                "Embedding: _weight has shape {} but num_embeddings and embedding_dim give [{}, {}]",
                options._weight().sizes(), rows, dim);
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({rows, dim}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto idx = options.padding_idx()) {
    NoGradGuard no_grad;
    weight[*idx].fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

namespace {

// libtorch's tail of an embedding's printout: the options that differ from their defaults.
void print_lookup_options(std::ostream& stream, std::optional<double> max_norm, double norm_type,
                          bool scale_grad_by_freq, bool sparse) {
  if (max_norm) stream << ", max_norm=" << *max_norm;
  if (norm_type != 2) stream << ", norm_type=" << norm_type;
  if (scale_grad_by_freq) stream << ", scale_grad_by_freq=true";
  if (sparse) stream << ", sparse=true";
}

Tensor checked_pretrained(const Tensor& embeddings) {
  EMBER_CHECK(embeddings.dim() == 2, "from_pretrained: embeddings are expected to be 2-D (V, C), but got shape {}",
              embeddings.sizes());
  return embeddings;
}

}  // namespace

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (auto idx = options.padding_idx()) stream << ", padding_idx=" << *idx;
  print_lookup_options(stream, options.max_norm(), options.norm_type(), options.scale_grad_by_freq(), options.sparse());
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  checked_pretrained(embeddings);
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

// ---- EmbeddingBag ----

EmbeddingBagMode::EmbeddingBagMode(Reduction reduction) : kind_(reduction == Reduction::Sum ? Kind::Sum : Kind::Mean) {
  EMBER_CHECK(reduction != Reduction::None, "EmbeddingBag: mode must be kSum, kMean or kMax, not kNone");
}

const char* EmbeddingBagMode::name() const {
  return kind_ == Kind::Sum ? "kSum" : kind_ == Kind::Mean ? "kMean" : "kMax";
}

namespace functional {

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  EMBER_TRACE_OP();
  const Tensor& psw = options.per_sample_weights();
  const EmbeddingBagMode::Kind mode = options.mode().kind();
  EMBER_CHECK(weight.dim() == 2, "embedding_bag: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
              weight.sizes());
  EMBER_CHECK(input.dtype() == kInt64, "embedding_bag: input must hold int64 indices, got {}",
              dtype_name(input.dtype()));
  EMBER_CHECK(!psw.defined() || psw.sizes() == input.sizes(),
              "embedding_bag: If per_sample_weights ({}) is not null, then it must have the same shape as the input "
              "({})",
              psw.sizes(), input.sizes());
  EMBER_CHECK(!psw.defined() || mode == EmbeddingBagMode::Kind::Sum,
              "embedding_bag: per_sample_weights is only supported for mode kSum (got mode {})", options.mode().name());
  EMBER_CHECK(!options.sparse(), "embedding_bag: sparse gradients are not supported by Ember");
  EMBER_CHECK(!options.scale_grad_by_freq(), "embedding_bag: scale_grad_by_freq is not supported by Ember");
  // Bag b holds the positions [starts[b], ends[b]) of the flat input.
  std::vector<int64_t> starts;
  Tensor flat = input, flat_weights = psw;
  if (input.dim() == 2) {
    EMBER_CHECK(!options.offsets().defined(),
                "embedding_bag: if input is 2-D {}, then offsets has to be undefined, as input is treated as a "
                "mini-batch of fixed length sequences",
                input.sizes());
    for (int64_t b = 0; b < input.size(0); ++b) starts.push_back(b * input.size(1));
    flat = input.reshape({-1});
    if (psw.defined()) flat_weights = psw.reshape({-1});
  } else {
    EMBER_CHECK(input.dim() == 1, "embedding_bag: input has to be 1-D or 2-D, but got shape {}", input.sizes());
    const Tensor& offsets = options.offsets();
    EMBER_CHECK(offsets.defined() && offsets.dim() == 1 && offsets.dtype() == kInt64,
                "embedding_bag: offsets has to be a 1-D int64 tensor for a 1-D input {}", input.sizes());
    starts = offsets.cpu().contiguous().to_vector<int64_t>();
  }
  const int64_t n = flat.numel();
  std::vector<int64_t> ends(starts.begin() + (starts.empty() ? 0 : 1), starts.end());
  ends.push_back(n);
  if (options.include_last_offset()) {
    EMBER_CHECK(!starts.empty(), "embedding_bag: include_last_offset needs at least one offset");
    starts.pop_back();
    ends.pop_back();
  }
  const int64_t bags = static_cast<int64_t>(starts.size());
  EMBER_CHECK(bags == 0 || starts[0] == 0, "embedding_bag: offsets[0] has to be 0, but got {}",
              bags == 0 ? 0 : starts[0]);
  for (int64_t b = 0; b < bags; ++b)
    EMBER_CHECK(starts[b] <= ends[b] && ends[b] <= n,
                "embedding_bag: offsets must be non-decreasing and at most the input's {} indices, but bag {} spans "
                "[{}, {})",
                n, b, starts[b], ends[b]);

  const int64_t rows = weight.size(0);
  std::optional<int64_t> padding_idx = options.padding_idx();
  if (padding_idx) {
    EMBER_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                "embedding_bag: padding_idx {} must be within num_embeddings ({})", *padding_idx, rows);
    if (*padding_idx < 0) padding_idx = *padding_idx + rows;
  }
  // The positions that take part (all but padding_idx), the bag of each, and each bag's count.
  std::vector<int64_t> ids = flat.cpu().contiguous().to_vector<int64_t>();
  std::vector<int64_t> kept, bag_of, count(bags, 0), first_kept(bags, 0);
  for (int64_t b = 0; b < bags; ++b) {
    first_kept[b] = static_cast<int64_t>(kept.size());
    for (int64_t i = starts[b]; i < ends[b]; ++i) {
      EMBER_CHECK(ids[i] >= 0 && ids[i] < rows, "embedding_bag: index {} is out of range for num_embeddings {}", ids[i],
                  rows);
      if (padding_idx && ids[i] == *padding_idx) continue;
      kept.push_back(i);
      bag_of.push_back(b);
      ++count[b];
    }
  }
  if (options.max_norm()) embedding_renorm_(weight, flat, *options.max_norm(), options.norm_type());
  const Device device = weight.device();
  auto as_index = [&](const std::vector<int64_t>& v) {
    return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kInt64)).to(device);
  };
  const Tensor kept_index = as_index(kept);
  Tensor picked = weight.index_select(0, flat.to(device).index_select(0, kept_index));  // (m, C)
  const int64_t C = weight.size(1);
  if (mode == EmbeddingBagMode::Kind::Max) {
    tensor_list out;
    for (int64_t b = 0; b < bags; ++b) {
      if (count[b] == 0) {
        out.push_back(zeros({C}, TensorOptions(weight.dtype()).device(device)));
      } else {
        out.push_back(std::get<0>(picked.narrow(0, first_kept[b], count[b]).max(0)));
      }
    }
    return bags == 0 ? zeros({0, C}, TensorOptions(weight.dtype()).device(device)) : stack(out, 0);
  }
  if (flat_weights.defined()) picked = picked * flat_weights.index_select(0, kept_index).unsqueeze(1);
  Tensor sums = zeros({bags, C}, TensorOptions(weight.dtype()).device(device)).index_add(0, as_index(bag_of), picked);
  if (mode == EmbeddingBagMode::Kind::Sum) return sums;
  std::vector<double> divisor(count.begin(), count.end());
  for (double& d : divisor) d = std::max(d, 1.0);  // an empty bag stays zero
  return sums / from_vector(divisor, {bags, 1}, dtype(weight.dtype())).to(device);
}

}  // namespace functional

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) {
  const int64_t rows = options.num_embeddings(), dim = options.embedding_dim();
  EMBER_CHECK(rows >= 0 && dim >= 0,
              "EmbeddingBag: num_embeddings and embedding_dim must be non-negative, got {} and {}", rows, dim);
  if (auto idx = options.padding_idx()) {
    EMBER_CHECK(*idx >= -rows && *idx < rows, "EmbeddingBag: padding_idx {} must be within num_embeddings ({})", *idx,
                rows);
    if (*idx < 0) options.padding_idx(*idx + rows);
  }
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({rows, dim}),
                "EmbeddingBag: _weight has shape {} but num_embeddings and embedding_dim give [{}, {}]",
                options._weight().sizes(), rows, dim);
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({rows, dim}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() {
  if (auto idx = options.padding_idx()) {
    NoGradGuard no_grad;
    weight[*idx].fill_(0);
  }
  init::normal_(weight);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << "EmbeddingBag(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  print_lookup_options(stream, options.max_norm(), options.norm_type(), options.scale_grad_by_freq(), options.sparse());
  if (options.mode().kind() != EmbeddingBagMode::Kind::Mean) stream << ", mode=" << options.mode().name();
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  if (auto idx = options.padding_idx()) stream << ", padding_idx=" << *idx;
  stream << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options) {
  checked_pretrained(embeddings);
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(EmbeddingImpl)
EMBER_CLONE_WITH_OPTIONS(EmbeddingBagImpl)

}  // namespace ember::nn
