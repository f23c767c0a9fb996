// Poisson and binomial draws, as torch.poisson and torch.binomial give them on the CPU.
//
//   ember::Generator g(0);
//   ember::Tensor rates = ember::tensor({0.5, 3.0, 40.0});
//   ember::Tensor n = ember::poisson(rates, g);                       // e.g. [0, 4, 37], float32
//   ember::Tensor k = ember::binomial(ember::full({3}, 10.0), ember::full({3}, 0.3), g);
//
// The same seed gives libtorch 1.13's numbers bit for bit: each element draws float64 uniforms
// (53 bits of two 32-bit words) from the generator in the result's row-major order. Not here:
// gradients (the draws carry no history; at::poisson in the compat layer adds libtorch's zero
// gradient) and device draws (a CUDA tensor is drawn on the host from the same generator).
#pragma once

#include "core/random.h"

namespace ember {

// One Poisson(rate) count per element of `rates` (float32, float64 or bfloat16; every rate >= 0):
// the product-of-uniforms method below rate 10, Hörmann's transformed rejection from 10 up.
Tensor poisson(const Tensor& rates, OptGenerator generator = std::nullopt);

// One Binomial(count, prob) draw per element of the broadcast of `count` and `prob` (both float32
// or both float64): BTRS where count * min(p, 1 - p) >= 10, inversion below. As in libtorch,
// count <= 0 or prob <= 0 gives 0, prob >= 1 gives count, and a NaN prob gives NaN.
Tensor binomial(const Tensor& count, const Tensor& prob, OptGenerator generator = std::nullopt);

}  // namespace ember
