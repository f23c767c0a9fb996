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
enum class Nonlinearity { Linear, Conv1D, Conv2D, Conv3D, Sigmoid, Tanh, ReLU, LeakyReLU, SELU };

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

}  // namespace ember::nn::init
