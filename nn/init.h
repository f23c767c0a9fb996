// Parameter initialisation, as torch.nn.init: same formulas, same order of draws from the generator.
//
//   ember::manual_seed(0);
//   auto w = ember::empty({4, 3});
//   ember::nn::init::kaiming_uniform_(w, std::sqrt(5.0));   // what nn::Linear does to its weight
//
// Every function fills the tensor in place without recording autograd history and returns it.
#pragma once

#include <optional>
#include <utility>

#include "core/generator.h"
#include "core/tensor.h"

namespace ember::nn::init {

enum class FanMode { FanIn, FanOut };
enum class Nonlinearity {
  Linear,
  Conv1D,
  Conv2D,
  Conv3D,
  ConvTranspose1D,
  ConvTranspose2D,
  ConvTranspose3D,
  Sigmoid,
  Tanh,
  ReLU,
  LeakyReLU,
  SELU
};
// libtorch's names for the argument types; its tags (ember::kTanh, ember::kFanOut, below) convert to them.
using NonlinearityType = Nonlinearity;
using FanModeType = FanMode;

// The recommended gain for a nonlinearity (torch.nn.init.calculate_gain); `param` is LeakyReLU's slope.
double calculate_gain(Nonlinearity nonlinearity, std::optional<double> param = std::nullopt);
// (fan_in, fan_out) of a weight with at least 2 dimensions.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double a = 0, double b = 1, std::optional<Generator> generator = std::nullopt);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1, std::optional<Generator> generator = std::nullopt);
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2,
                     std::optional<Generator> generator = std::nullopt);
Tensor constant_(Tensor tensor, double value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1, std::optional<Generator> generator = std::nullopt);
Tensor xavier_normal_(Tensor tensor, double gain = 1, std::optional<Generator> generator = std::nullopt);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        Nonlinearity nonlinearity = Nonlinearity::LeakyReLU,
                        std::optional<Generator> generator = std::nullopt);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                       Nonlinearity nonlinearity = Nonlinearity::LeakyReLU,
                       std::optional<Generator> generator = std::nullopt);

// A convolution weight (out, in, *kernel) of 3 to 5 dims that passes its input through: zero but for a
// 1 at the kernel's centre of channel pair (d, d), d < min(out / groups, in), in each group's block.
Tensor dirac_(Tensor tensor, int64_t groups = 1);
// The identity matrix (2-d tensors only; rectangular ones get ones on the main diagonal).
Tensor eye_(Tensor matrix);
// A (semi-)orthogonal matrix (Saxe et al. 2013) times gain: the tensor seen as (size(0), rest) is the Q
// of a QR decomposition of N(0, 1) draws of that shape (transposed while it is wide), with R's diagonal
// made positive, so each seed gives one matrix. The draws are float32 (the default dtype), as libtorch's
// torch::randn; Python's orthogonal_ draws in the tensor's own dtype.
Tensor orthogonal_(Tensor tensor, double gain = 1, std::optional<Generator> generator = std::nullopt);

}  // namespace ember::nn::init

// libtorch's enum tags: calculate_gain(torch::kTanh), kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU).
// Each tag is its own type (torch::enumtype::kTanh) and converts to Ember's enum.
namespace ember::enumtype {
#define EMBER_INIT_TAG(Tag, Enum, Value)                             \
  struct Tag {                                                       \
    constexpr operator Enum() const noexcept { return Enum::Value; } \
  }
EMBER_INIT_TAG(kLinear, nn::init::Nonlinearity, Linear);
EMBER_INIT_TAG(kConv1D, nn::init::Nonlinearity, Conv1D);
EMBER_INIT_TAG(kConv2D, nn::init::Nonlinearity, Conv2D);
EMBER_INIT_TAG(kConv3D, nn::init::Nonlinearity, Conv3D);
EMBER_INIT_TAG(kConvTranspose1D, nn::init::Nonlinearity, ConvTranspose1D);
EMBER_INIT_TAG(kConvTranspose2D, nn::init::Nonlinearity, ConvTranspose2D);
EMBER_INIT_TAG(kConvTranspose3D, nn::init::Nonlinearity, ConvTranspose3D);
EMBER_INIT_TAG(kSigmoid, nn::init::Nonlinearity, Sigmoid);
EMBER_INIT_TAG(kTanh, nn::init::Nonlinearity, Tanh);
EMBER_INIT_TAG(kReLU, nn::init::Nonlinearity, ReLU);
EMBER_INIT_TAG(kLeakyReLU, nn::init::Nonlinearity, LeakyReLU);
EMBER_INIT_TAG(kSELU, nn::init::Nonlinearity, SELU);
EMBER_INIT_TAG(kFanIn, nn::init::FanMode, FanIn);
EMBER_INIT_TAG(kFanOut, nn::init::FanMode, FanOut);
#undef EMBER_INIT_TAG
}  // namespace ember::enumtype

namespace ember {
inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kSELU kSELU{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
}  // namespace ember
