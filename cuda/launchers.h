// The CUDA backend's launchers, one per kernel of core/backend_kernels.h, declared from the lists.
//
// launchers::<name> takes the kernel's parameters with every Tensor a TensorView, every
// tensor_list a TensorList and every IntArrayRef an IntList (core/tensor_view.h), and returns
// what the Backend method returns: void for a kernel, for an optional one true when it ran and
// false when the op should compose it instead. cuda/backend.cpp generates every CudaBackend method
// as "make the views, call the launcher", so a new kernel needs no hand-written glue; each launcher
// is defined in the .cu file of its family (elementwise.cu, reduce.cu, ...), host side first: the
// device-specific checks, the stream, scratch memory and the launch. A listed kernel without a
// launcher fails the link of libember_cuda.so (and CudaKernels.EveryListedKernelHasALauncher).
#pragma once

#include <vector>

#include "core/backend_kernels.h"
#include "core/conv_shape.h"
#include "core/functors.h"
#include "core/optim_rules.h"
#include "core/philox.h"
#include "core/scalar.h"
#include "core/tensor_view.h"

namespace ember {
struct PoolGeometry;  // core/pool.h
}  // namespace ember

namespace ember::cuda::launchers {

// The lists' parameter types, as views: inside this namespace the lists declare view functions.
using Tensor = TensorView;
using tensor_list = TensorList;
using IntArrayRef = IntList;

#define EMBER_DECLARE_LAUNCHER(name, params, ...) void name params;
#define EMBER_DECLARE_OPTIONAL_LAUNCHER(name, params, ...) bool name params;
EMBER_BACKEND_KERNELS(EMBER_DECLARE_LAUNCHER)
EMBER_FUSED_KERNELS(EMBER_DECLARE_OPTIONAL_LAUNCHER)
EMBER_FLASH_KERNELS(EMBER_DECLARE_OPTIONAL_LAUNCHER)
EMBER_PHILOX_KERNELS(EMBER_DECLARE_OPTIONAL_LAUNCHER)
EMBER_OPTIMIZER_KERNELS(EMBER_DECLARE_OPTIONAL_LAUNCHER)
#undef EMBER_DECLARE_LAUNCHER
#undef EMBER_DECLARE_OPTIONAL_LAUNCHER

}  // namespace ember::cuda::launchers
