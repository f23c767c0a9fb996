// lstm_layer (autograd/rnn.h): the fused LSTM kernels of core/backend_kernels.h as one node of the graph,
// with the composed recurrence as the fallback forward and as the differentiable backward.
//
// The node's backward, given the gradients of (output, h_n, c_n), returns those of (xw, w_hh,
// b_hh, h0, c0). dxw is the gradient of the gates before their activations, since xw enters them
// by a plain sum (dW_ih, db_ih and dx follow from the Linear that made xw). With create_graph, or
// without a backward kernel, it runs the composed recurrence again on the saved inputs and
// differentiates that, so gradients of gradients reach the inputs' own graphs.
#include "autograd/rnn.h"

#include <memory>
#include <numeric>

#include "autograd/autograd.h"
#include "core/kernel.h"

namespace ember {

using autograd::SavedVariable;

namespace {

constexpr const char* kNodeName = "LstmLayerBackward0";

// Whether the kernel can take these inputs: one floating dtype and device, consistent shapes and
// packed batch sizes (positive, non-increasing, adding up to xw's rows). Anything else composes,
// and the composed ops report what is wrong.
bool fusable(const LstmLayerInputs& in, const std::vector<int64_t>& batch_sizes) {
  const Tensor& xw = in.xw;
  if (!xw.defined() || !in.w_hh.defined() || !in.h0.defined() || !in.c0.defined()) return false;
  if (xw.dtype() != kFloat32 && xw.dtype() != kFloat64) return false;
  for (const Tensor* t : {&in.w_hh, &in.b_hh, &in.h0, &in.c0})
    if (t->defined() && (t->dtype() != xw.dtype() || t->device() != xw.device())) return false;
  if (xw.dim() != 2 || in.h0.dim() != 2 || batch_sizes.empty()) return false;
  const int64_t B = in.h0.size(0), H = in.h0.size(1);
  if (in.c0.sizes() != in.h0.sizes() || in.w_hh.sizes() != IntArrayRef({4 * H, H}) || xw.size(1) != 4 * H) return false;
  if (in.b_hh.defined() && in.b_hh.sizes() != IntArrayRef({4 * H})) return false;
  if (batch_sizes[0] != B || H == 0) return false;
  for (size_t t = 0; t < batch_sizes.size(); ++t)
    if (batch_sizes[t] < 1 || (t > 0 && batch_sizes[t] > batch_sizes[t - 1])) return false;
  return std::accumulate(batch_sizes.begin(), batch_sizes.end(), int64_t{0}) == xw.size(0);
}

Tensor contiguous_or_undefined(const Tensor& t) { return t.defined() ? kernel::contiguous(t) : Tensor(); }

// The composed recurrence run again on the inputs, differentiated with grad mode on: the backward
// of a gradient's graph (create_graph) and of a backend without the backward kernel.
tensor_list composed_backward(const LstmLayerComposed& composed, const LstmLayerInputs& in, const tensor_list& grads) {
  const bool create_graph = GradMode::is_enabled();
  AutoGradMode grad_mode(true);
  const LstmLayerOutputs y = composed(in);
  const tensor_list ys{y.output, y.h_n, y.c_n};
  tensor_list outputs, grad_outputs;
  for (size_t k = 0; k < ys.size(); ++k)
    if (grads[k].defined()) {
      outputs.push_back(ys[k]);
      grad_outputs.push_back(grads[k]);
    }
  const tensor_list inputs{in.xw, in.w_hh, in.b_hh, in.h0, in.c0};
  tensor_list wanted;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) wanted.push_back(t);
  tensor_list result(inputs.size());
  if (outputs.empty() || wanted.empty()) return result;
  // retain_graph: the pass reaches the inputs' own nodes, which must survive it for the outer backward.
  const tensor_list g = autograd::grad(outputs, wanted, grad_outputs, /*retain_graph=*/true, create_graph,
                                       /*allow_unused=*/true);
  for (size_t k = 0, w = 0; k < inputs.size(); ++k)
    if (inputs[k].defined() && inputs[k].requires_grad()) result[k] = g[w++];
  return result;
}

}  // namespace

LstmLayerOutputs lstm_layer(const LstmLayerInputs& in, const std::vector<int64_t>& batch_sizes, bool reverse,
                            const LstmLayerComposed& composed) {
  if (!fusable(in, batch_sizes)) return composed(in);
  const ScalarType dtype = in.xw.dtype();
  const Device device = in.xw.device();
  const int64_t N = in.xw.size(0), B = in.h0.size(0), H = in.h0.size(1);
  const Tensor xw = kernel::contiguous(in.xw), w_hh = kernel::contiguous(in.w_hh),
               b_hh = contiguous_or_undefined(in.b_hh), h0 = kernel::contiguous(in.h0),
               c0 = kernel::contiguous(in.c0);
  const Tensor out = raw_empty({N, H}, dtype, device, "lstm"), h_n = raw_empty({B, H}, dtype, device, "lstm"),
               c_n = raw_empty({B, H}, dtype, device, "lstm"), gates = raw_empty({N, 4 * H}, dtype, device, "lstm"),
               cells = raw_empty({N, H}, dtype, device, "lstm");
  if (!backend_for(device).lstm_layer(out, h_n, c_n, gates, cells, xw, h0, c0, w_hh, b_hh, batch_sizes, reverse))
    return composed(in);
  const tensor_list inputs{in.xw, in.w_hh, in.b_hh, in.h0, in.c0};
  if (!autograd::any_requires_grad(inputs)) return {out, h_n, c_n};

  // xw, w_hh, b_hh, h0, c0, then (after record) the output.
  auto saved = std::make_shared<std::vector<SavedVariable>>();
  for (const Tensor& t : inputs) saved->emplace_back(t, false);
  autograd::record(
      kNodeName, tensor_list{out, h_n, c_n}, inputs,
      [saved, gates, cells, batch_sizes, reverse, composed](const tensor_list& grads) -> tensor_list {
        std::vector<Tensor> v;
        for (const SavedVariable& s : *saved) v.push_back(s.unpack(kNodeName));
        const LstmLayerInputs in{v[0], v[1], v[2], v[3], v[4]};
        if (!GradMode::is_enabled()) {
          const ScalarType dtype = in.xw.dtype();
          const Device device = in.xw.device();
          const int64_t N = in.xw.size(0), B = in.h0.size(0), H = in.h0.size(1);
          Tensor dxw = raw_empty({N, 4 * H}, dtype, device, "lstm_backward"),
                 dw_hh = raw_empty({4 * H, H}, dtype, device, "lstm_backward"),
                 db_hh = in.b_hh.defined() ? raw_empty({4 * H}, dtype, device, "lstm_backward") : Tensor(),
                 dh0 = raw_empty({B, H}, dtype, device, "lstm_backward"),
                 dc0 = raw_empty({B, H}, dtype, device, "lstm_backward");
          if (backend_for(device).lstm_layer_backward(
                  dxw, dw_hh, db_hh, dh0, dc0, contiguous_or_undefined(grads[0]), contiguous_or_undefined(grads[1]),
                  contiguous_or_undefined(grads[2]), kernel::contiguous(v[5]), gates, cells,
                  kernel::contiguous(in.h0), kernel::contiguous(in.c0), kernel::contiguous(in.w_hh), batch_sizes,
                  reverse))
            return {dxw, dw_hh, db_hh, dh0, dc0};
        }
        return composed_backward(composed, in, grads);
      });
  saved->emplace_back(out, true);
  return {out, h_n, c_n};
}

}  // namespace ember
