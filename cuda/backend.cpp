// The CUDA backend's kernel methods, generated from the lists of core/backend_kernels.h: each
// makes plain-data views of its Tensor arguments and calls the launcher of the same name
// (cuda/launchers.h), defined in the .cu file of its family. Nothing here is per kernel, so a new
// CPU+CUDA kernel is its list entry, its CPU body, its launcher and its op (docs/ARCHITECTURE.md).
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

TensorView as_view(const Tensor& t) {
  TensorView v;
  if (!t.defined()) return v;
  v.defined = true;
  v.data = t.raw_data_ptr();
  v.dtype = t.dtype();
  v.device = t.device();
  v.sizes = {t.sizes().data(), t.sizes().size()};
  v.strides = {t.strides().data(), t.strides().size()};
  v.numel = t.numel();
  v.contiguous = t.is_contiguous();
  return v;
}

TensorList as_view(const tensor_list& ts) {
  TensorList views;
  views.reserve(ts.size());
  for (const Tensor& t : ts) views.push_back(as_view(t));
  return views;
}

IntList as_view(IntArrayRef list) { return {list.data(), list.size()}; }

// Every other argument (an op, a Scalar, a geometry, steps) is passed as it is.
template <typename T>
const T& as_view(const T& arg) {
  return arg;
}

template <typename Launcher, typename... Args>
decltype(auto) call(Launcher launcher, const Args&... args) {
  return launcher(as_view(args)...);
}

}  // namespace

#define EMBER_UNPAREN(...) __VA_ARGS__
#define EMBER_CUDA_KERNEL(name, params, args, ...) \
  void CudaBackend::name params { call(launchers::name, EMBER_UNPAREN args); }
#define EMBER_CUDA_OPTIONAL_KERNEL(name, params, args, ...) \
  bool CudaBackend::name params { return call(launchers::name, EMBER_UNPAREN args); }
EMBER_BACKEND_KERNELS(EMBER_CUDA_KERNEL)
EMBER_FUSED_KERNELS(EMBER_CUDA_OPTIONAL_KERNEL)
EMBER_FLASH_KERNELS(EMBER_CUDA_OPTIONAL_KERNEL)
EMBER_PHILOX_KERNELS(EMBER_CUDA_OPTIONAL_KERNEL)
EMBER_OPTIMIZER_KERNELS(EMBER_CUDA_OPTIONAL_KERNEL)
#undef EMBER_CUDA_KERNEL
#undef EMBER_CUDA_OPTIONAL_KERNEL
#undef EMBER_UNPAREN

}  // namespace ember::cuda
