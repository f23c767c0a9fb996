// Printing tensors in PyTorch's Python format, and the options that steer it.
//
//   std::cout << ember::tensor({{0.4419, 0.6515}}) << '\n';   // tensor([[0.4419, 0.6515]])
//   ember::set_printoptions(/*precision=*/2);                  // like torch.set_printoptions
//   std::cout << ember::arange(2000, ember::kFloat64) << '\n'; // summarised with "..."
//
// The formatter (core/print.cpp) follows torch 1.13's _tensor_str.py rule for rule. Options are
// process-wide, as in PyTorch; this is not a general string-formatting facility.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "core/tensor.h"

namespace ember {

struct PrintOptions {
  int precision = 4;             // digits after the decimal point
  double threshold = 1000;       // summarise when numel() > threshold
  int edgeitems = 3;             // items kept at each end of a summarised dim
  int linewidth = 80;            // characters per line before wrapping
  std::optional<bool> sci_mode;  // unset: chosen from the values, as PyTorch does
};

// As torch.set_printoptions: unset arguments keep their value, except sci_mode, which is
// always replaced (unset means "automatic").
void set_printoptions(std::optional<int> precision = std::nullopt, std::optional<double> threshold = std::nullopt,
                      std::optional<int> edgeitems = std::nullopt, std::optional<int> linewidth = std::nullopt,
                      std::optional<bool> sci_mode = std::nullopt);
void set_printoptions(const PrintOptions& options);
PrintOptions get_printoptions();

// str(t) in Python: the same text operator<< writes.
std::string to_string(const Tensor& t);

// Which format operator<< writes, process-wide: PyTorch's Python repr (the default), or libtorch's
// C++ format (values, then "[ CPUFloatType{2,2} ]"), which <torch/torch.h> of Ember::torch_compat
// selects so that ported programs print what they printed under libtorch.
enum class PrintStyle { Python, LibTorch };
void set_print_style(PrintStyle style);
PrintStyle get_print_style();

// libtorch's C++ format whatever the style, lines cut at `linesize` (core/print_libtorch.cpp).
void print_libtorch(std::ostream& os, const Tensor& t, int64_t linesize = 80);

}  // namespace ember
