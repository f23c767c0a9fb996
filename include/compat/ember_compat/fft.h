// <torch/torch.h>, part 7: torch::fft and ATen's fft_* functions, over Ember's autograd/fft.h:
//
//   torch::Tensor f = torch::fft::fftfreq(128, torch::kDouble);
//   torch::Tensor c = torch::fft::fftshift(x);
//
// The transforms take or return complex tensors, which Ember lacks: calling one stops the build
// with a message saying so (docs/COMPAT.md).
#pragma once

#include <optional>
#include <utility>

#include "autograd/fft.h"
#include "ember_compat/aliases.h"
#include "ember_compat/aten_out.h"

namespace torch::fft {
using namespace ember::fft;  // NOLINT: libtorch's namespace is exactly Ember's

#define EMBER_FFT_NEEDS_COMPLEX(name)                                                                         \
  template <typename... Args>                                                                                 \
  Tensor name(Args&&...) {                                                                                    \
    static_assert(compat_detail::always_false<Args...>,                                                       \
                  "torch::fft::" #name ": the transforms take or return complex tensors, which Ember lacks"); \
    return {};                                                                                                \
  }
EMBER_FFT_NEEDS_COMPLEX(fft)
EMBER_FFT_NEEDS_COMPLEX(ifft)
EMBER_FFT_NEEDS_COMPLEX(fft2)
EMBER_FFT_NEEDS_COMPLEX(ifft2)
EMBER_FFT_NEEDS_COMPLEX(fftn)
EMBER_FFT_NEEDS_COMPLEX(ifftn)
EMBER_FFT_NEEDS_COMPLEX(rfft)
EMBER_FFT_NEEDS_COMPLEX(irfft)
EMBER_FFT_NEEDS_COMPLEX(rfft2)
EMBER_FFT_NEEDS_COMPLEX(irfft2)
EMBER_FFT_NEEDS_COMPLEX(rfftn)
EMBER_FFT_NEEDS_COMPLEX(irfftn)
EMBER_FFT_NEEDS_COMPLEX(hfft)
EMBER_FFT_NEEDS_COMPLEX(ihfft)
EMBER_FFT_NEEDS_COMPLEX(hfft2)
EMBER_FFT_NEEDS_COMPLEX(ihfft2)
EMBER_FFT_NEEDS_COMPLEX(hfftn)
EMBER_FFT_NEEDS_COMPLEX(ihfftn)
#undef EMBER_FFT_NEEDS_COMPLEX
}  // namespace torch::fft

namespace ember::compat_aten {

inline Tensor fft_fftfreq(int64_t n, double d = 1.0, const TensorOptions& options = {}) {
  return ember::fft::fftfreq(n, d, options);
}
inline Tensor fft_rfftfreq(int64_t n, double d = 1.0, const TensorOptions& options = {}) {
  return ember::fft::rfftfreq(n, d, options);
}
inline Tensor fft_fftshift(const Tensor& self, ember::fft::OptionalDims dim = std::nullopt) {
  return ember::fft::fftshift(self, std::move(dim));
}
inline Tensor fft_ifftshift(const Tensor& self, ember::fft::OptionalDims dim = std::nullopt) {
  return ember::fft::ifftshift(self, std::move(dim));
}

// The out= forms compute in out's dtype, as ATen's do.
inline Tensor& fft_fftfreq_out(Tensor& out, int64_t n, double d = 1.0) {
  return detail::assign_out(out, ember::fft::fftfreq(n, d, out.options()), "fft_fftfreq_out");
}
inline Tensor& fft_fftfreq_outf(int64_t n, double d, Tensor& out) { return fft_fftfreq_out(out, n, d); }
inline Tensor& fft_rfftfreq_out(Tensor& out, int64_t n, double d = 1.0) {
  return detail::assign_out(out, ember::fft::rfftfreq(n, d, out.options()), "fft_rfftfreq_out");
}
inline Tensor& fft_rfftfreq_outf(int64_t n, double d, Tensor& out) { return fft_rfftfreq_out(out, n, d); }

}  // namespace ember::compat_aten
