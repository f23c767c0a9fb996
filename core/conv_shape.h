// Im2colShape: the geometry of the im2col / col2im kernels, a plain struct that both the backend
// interface (core/backend.h) and the CUDA launchers (cuda/conv.cu, which never see Tensor) use.
#pragma once

#include <cstdint>

namespace ember {

// The geometry of im2col / col2im (autograd/conv.cpp): an input plane (C, H, W), a kernel
// (kernel_h, kernel_w) sliding with stride and dilation over the input padded by pad_h rows above
// and pad_w columns to the left, giving out_h x out_w blocks (the padding below and to the right is
// whatever out_h and out_w imply, so asymmetric "same" padding needs nothing more).
struct Im2colShape {
  int64_t C, H, W;
  int64_t kernel_h, kernel_w, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t out_h, out_w;
};

}  // namespace ember
