// Tensor-level calls into the backend, without autograd: allocate the result, run the kernel.
//
// Ops in autograd/ use these for their forward pass and record a backward around them; a
// backward formula itself uses the public (differentiable) ops so create_graph works. Type
// promotion and broadcasting are decided here, once, for every device.
#pragma once

#include <functional>
#include <initializer_list>

#include "core/backend.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace ember::kernel {

// PyTorch's result_type: dims > 0 outrank 0-dim tensors, which outrank plain scalars, unless a
// lower class holds a higher category (bool < int < float). A float scalar promotes to float32.
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

// A 0-dim tensor holding `value` with `dtype` on `device`.
Tensor scalar(const Scalar& value, ScalarType dtype, Device device);
// `t` itself when it already has `dtype`, else a converted contiguous copy.
Tensor cast(const Tensor& t, ScalarType dtype);
// `t` itself when contiguous, else a contiguous copy.
Tensor contiguous(const Tensor& t);
// A stride-0 broadcast view of `t` with `sizes` (which must be broadcast-compatible).
Tensor broadcast_to(const Tensor& t, IntArrayRef sizes);
// A fresh contiguous copy.
Tensor clone(const Tensor& t);

// The device guard of every op that takes several tensors: throws unless all the defined ones are
// on one device, naming the op and two of the devices ("index_select: expected all tensors to be on
// the same device, but found at least two devices, cuda:0 and cpu").
void check_same_device(const char* op, std::initializer_list<std::reference_wrapper<const Tensor>> tensors);

// The guard of every op that reads or writes at an index tensor: throws unless `index` is int64 with
// every element in [0, bound), naming the op, the first offending index and (when `shape` is given)
// the indexed tensor: "gather: index 5 is out of bounds for dimension 1 with size 3 (input shape [2, 3])".
void check_index(const Tensor& index, int64_t bound, const char* op, IntArrayRef shape = {}, int64_t dim = 0);

// PyTorch's memory-overlap guard of every write into an existing tensor (in-place ops, copy_): throws
// when two elements of `out` share one memory location (a stride-0 dim of size > 1, as expand makes:
// "add_: unsupported operation: more than one element of the written-to tensor refers to a single
// memory location. Please clone() ..."), or when an input covers some but not all of out's memory
// (x[1:].copy_(x[:-1]): "some elements of the input tensor and the written-to tensor refer to a single
// memory location"). The same memory in the same layout (x.add_(x)) is fine. Like PyTorch it decides
// only what it can decide cheaply: layouts that are not a permutation of a dense block pass.
// On a GPU such a write is a race between threads; on the CPU an order-dependent answer.
void check_no_overlap(const char* op, const Tensor& out,
                      std::initializer_list<std::reference_wrapper<const Tensor>> inputs = {});

Tensor unary(UnaryOp op, const Tensor& x);
// Promotes a and b to their result type, broadcasts, and applies op.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
// self = self op other, in place; other broadcasts to self's shape; the result must fit self's dtype.
void binary_(BinaryOp op, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Reduces over `dims` (already wrapped and sorted; empty = all).
Tensor reduce(ReduceOp op, const Tensor& x, IntArrayRef dims, bool keepdim);

}  // namespace ember::kernel
