// Shape and stride arithmetic shared by every op: dim wrapping, broadcasting, view strides.
//
// Pure functions on integer lists; they allocate nothing but the result and know nothing of
// autograd. (raw_view and raw_empty, which make tensors, are in core/tensor.h.)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace ember {

// Maps dim in [-ndim, ndim) to [0, ndim); `op` names the caller in the error.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// Wraps, sorts and de-duplicates a list of dims; an empty list means every dim.
std::vector<int64_t> wrap_dims(IntArrayRef dims, int64_t ndim, const char* op);

std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
// The dense strides of `sizes` in `format` (Contiguous, ChannelsLast for 4-d, ChannelsLast3d for
// 5-d sizes; not Preserve), c10's, size-0 dims included (autograd/shape.cpp).
std::vector<int64_t> format_strides(IntArrayRef sizes, MemoryFormat format, const char* op);
// The product of `sizes`, unchecked: for the sizes of a tensor that exists (checked when it was made).
int64_t numel_of(IntArrayRef sizes);

// The element count of a shape given by a user. Throws ember::Error naming `op` when a size is
// negative, or when the product of the sizes (counting 0 as 1, so that contiguous strides fit as
// well) does not fit in int64. Every path that turns user sizes into a tensor goes through here.
int64_t checked_numel(IntArrayRef sizes, const char* op);
// The bytes behind a contiguous tensor of `sizes` and `dtype`, checked as checked_numel; a byte
// count over int64 throws OutOfMemoryError ("empty: cannot allocate a tensor of shape [...] float32
// (the size overflows 64 bits)"), the same error as an allocation the device refuses.
int64_t checked_nbytes(IntArrayRef sizes, ScalarType dtype, const char* op);

// PyTorch broadcasting of two shapes; throws naming `op` and both shapes when they don't match.
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

// Resolves a single -1 in `shape` so that it holds `numel` elements.
std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel, const char* op);

// Strides that let a tensor of (sizes, strides) be viewed as `new_sizes` without a copy, or
// nothing when the memory layout makes that impossible (then reshape copies).
std::optional<std::vector<int64_t>> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes);

}  // namespace ember
