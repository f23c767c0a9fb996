// Pooling ops over contiguous (P, H, W) planes: one kernel forward (core/cpu/pool.cpp,
// cuda/pool.cu), the backward from differentiable ops so create_graph works:
//   max:  din = zeros.scatter_add(indices, dout)         (each window's max takes the gradient)
//   avg:  din = avg_pool_planes_backward(dout), whose own backward is avg_pool_planes again.
#include "autograd/pool.h"

#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& input, const PoolGeometry& g) {
  EMBER_TRACE_OP();
  Tensor x = input.contiguous();
  const int64_t P = x.size(0);
  Tensor out = raw_empty({P, g.OH, g.OW}, x.dtype(), x.device(), "max_pool2d");
  Tensor indices = raw_empty({P, g.OH, g.OW}, kInt64, x.device(), "max_pool2d");
  backend_for(x).max_pool2d(out, indices, x, g);
  if (autograd::any_requires_grad({&x})) {
    const int64_t plane = g.H * g.W;
    autograd::record_fused("MaxPool2DWithIndicesBackward0", out, {x}, {indices}, autograd::SaveOutput::kNo,
                           {.composed = [P, plane, g](const Tensor& grad, const tensor_list& saved) -> tensor_list {
                             const Tensor& idx = saved[0];
                             return {zeros({P, plane}, grad.options())
                                         .scatter_add(1, idx.reshape({P, -1}), grad.reshape({P, -1}))
                                         .reshape({P, g.H, g.W})};
                           }});
  }
  return {out, indices};
}

Tensor avg_pool_planes(const Tensor& input, const PoolGeometry& g) {
  EMBER_TRACE_OP();
  Tensor x = input.contiguous();
  Tensor out = raw_empty({x.size(0), g.OH, g.OW}, x.dtype(), x.device(), "avg_pool2d");
  backend_for(x).avg_pool2d(out, x, g);
  if (autograd::any_requires_grad({&x})) {
    autograd::record_fused("AvgPool2DBackward0", out, {x}, {}, autograd::SaveOutput::kNo,
                           {.composed = [g](const Tensor& grad, const tensor_list&) -> tensor_list {
                             return {avg_pool_planes_backward(grad, g)};
                           }});
  }
  return out;
}

Tensor avg_pool_planes_backward(const Tensor& dout, const PoolGeometry& g) {
  EMBER_TRACE_OP();
  Tensor gy = dout.contiguous();
  Tensor din = raw_empty({gy.size(0), g.H, g.W}, gy.dtype(), gy.device(), "avg_pool2d_backward");
  backend_for(gy).avg_pool2d_backward(din, gy, g);
  if (autograd::any_requires_grad({&gy})) {
    autograd::record_fused("AvgPool2DBackwardBackward0", din, {gy}, {}, autograd::SaveOutput::kNo,
                           {.composed = [g](const Tensor& grad, const tensor_list&) -> tensor_list {
                             return {avg_pool_planes(grad, g)};
                           }});
  }
  return din;
}

}  // namespace ember
