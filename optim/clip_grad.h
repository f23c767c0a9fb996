// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (libtorch's
// torch::nn::utils). Both change the gradients in place and only need Tensors, so they live
// beside the optimizers rather than in nn/.
//
//   loss.backward();
//   double norm = ember::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
//   opt.step();
//
// Parameters without a gradient are skipped.
#pragma once

#include <limits>
#include <vector>

#include "core/tensor.h"

namespace ember::nn::utils {

// Scales all gradients together so that their joint norm (the norm of the vector of per-gradient
// norms) is at most max_norm: g *= min(1, max_norm / (total_norm + 1e-6)). norm_type may be
// std::numeric_limits<double>::infinity() (max |g|). Returns total_norm, before clipping.
// error_if_nonfinite: throw instead of scaling when the norm is nan or inf.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace ember::nn::utils
