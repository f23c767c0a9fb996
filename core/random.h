// Random tensors, drawn from PyTorch's CPU generator so that the same seed gives the same numbers.
//
//   ember::manual_seed(123);
//   std::cout << ember::rand({3, 2});        // tensor([[0.2961, 0.5166], ...]) as torch.rand prints
//   ember::Generator g(42);
//   auto idx = ember::randint(0, 65, {4, 8}, g);     // int64, from a private stream
//   auto next = ember::multinomial(probs, 1);        // one sample per row
//
// Every function takes an optional Generator; without one it uses default_generator().
// The fills themselves are Tensor methods (uniform_, normal_, bernoulli_, random_, exponential_).
#pragma once

#include <optional>

#include "core/generator.h"
#include "core/philox.h"
#include "core/tensor.h"

namespace ember {

using OptGenerator = std::optional<Generator>;

// U[0, 1): float32 from 24 bits of one 32-bit draw, float64 from 53 bits of a 64-bit draw.
Tensor rand(IntArrayRef sizes, const TensorOptions& options = {});
Tensor rand(IntArrayRef sizes, Generator generator, const TensorOptions& options = {});
// N(0, 1), by PyTorch's two Box-Muller paths (16-wide batches for contiguous tensors of >= 16 elements).
Tensor randn(IntArrayRef sizes, const TensorOptions& options = {});
Tensor randn(IntArrayRef sizes, Generator generator, const TensorOptions& options = {});
// Integers in [low, high), int64 unless options say otherwise.
Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, Generator generator, const TensorOptions& options = {});
// A random permutation of 0..n-1 (int64).
Tensor randperm(int64_t n, const TensorOptions& options = {});
Tensor randperm(int64_t n, Generator generator, const TensorOptions& options = {});
Tensor rand_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor randn_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
// Draws 0/1 with probability `p` elementwise (same shape and dtype as p).
Tensor bernoulli(const Tensor& p, OptGenerator generator = std::nullopt);
// Draws 0/1 with probability `p`, shaped like `self`.
Tensor bernoulli(const Tensor& self, double p, OptGenerator generator = std::nullopt);
// Samples `num_samples` indices per row of a 1-d or 2-d tensor of non-negative weights (int64).
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   OptGenerator generator = std::nullopt);
// N(mean, std) with the given sizes.
Tensor normal(double mean, double std, IntArrayRef sizes, OptGenerator generator = std::nullopt,
              const TensorOptions& options = {});

// Dropout's scaled keep mask of `sizes` (contiguous, floating): each element 1 / (1 - p) with
// probability 1 - p, else 0; 0 < p < 1. It reserves numel words of the Philox stream
// (core/generator.h) and fills from them where the backend has dropout_noise (CUDA); elsewhere it
// draws bernoulli_(1 - p) from the default generator, PyTorch's CPU numbers.
Tensor dropout_noise(IntArrayRef sizes, const TensorOptions& options, double p);
// The same with the Philox words already reserved (dropout.active()).
Tensor dropout_noise(IntArrayRef sizes, const TensorOptions& options, const PhiloxDropout& dropout);
// Reserves the Philox words of a dropout over `elements` elements (philox_reserve).
PhiloxDropout reserve_dropout(double p, int64_t elements);

}  // namespace ember
