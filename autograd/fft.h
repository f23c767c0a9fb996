// torch.fft's real-valued functions: the sample frequencies of a transform and the shifts that put
// frequency 0 in the middle.
//
//   Tensor f = ember::fft::fftfreq(8, 0.1);        // [0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25]
//   Tensor c = ember::fft::fftshift(spectrum);     // zero frequency at the centre of every dim
//
// The transforms themselves (fft, rfft, ifft, hfft and their 2-D and n-D forms) take or return
// complex tensors, which Ember does not have; the compat header refuses them at compile time.
#pragma once

#include <cstdint>

#include "autograd/linalg.h"  // OptionalDims
#include "core/tensor.h"

namespace ember::fft {

using linalg::OptionalDims;

// [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n): the frequencies of fft(x) for n samples
// spaced d apart, in the default dtype unless options say otherwise.
Tensor fftfreq(int64_t n, double d, const TensorOptions& options = {});
Tensor fftfreq(int64_t n, const TensorOptions& options = {});
// [0, 1, ..., floor(n/2)] / (d n): the frequencies of rfft(x).
Tensor rfftfreq(int64_t n, double d, const TensorOptions& options = {});
Tensor rfftfreq(int64_t n, const TensorOptions& options = {});
// Rolls each of `dim` (all dims when none) by half its size, floor(size/2), so that frequency 0 moves
// to the centre; ifftshift rolls by ceil(size/2) and undoes it. Views' gradients flow (roll).
Tensor fftshift(const Tensor& input, OptionalDims dim = std::nullopt);
Tensor ifftshift(const Tensor& input, OptionalDims dim = std::nullopt);

}  // namespace ember::fft
