"""PyTorch 1.13 references for memory formats and Tensor.to's flags (autograd/shape.cpp, core/factory.cpp),
for tests/core/test_memory_format.cpp: for each named expression, the result's shape and strides, whether it
is the input itself (to and contiguous return their input when nothing changes), and is_contiguous in
the row-major and channels-last senses. Values are the input's, checked in the test itself.
test_memory_format.cpp mirrors each expression in C++ under the same name.

    /usr/bin/python3 scripts/gen_memory_format_fixtures.py   # writes tests/fixtures/core/memory_format.json
"""
import os

import torch

from fixture_common import FIXTURES, write

CL, CL3, CF = torch.channels_last, torch.channels_last_3d, torch.contiguous_format


def nchw():
    return torch.arange(120, dtype=torch.float32).reshape(2, 3, 4, 5)


def cl():
    return nchw().contiguous(memory_format=CL)


# name -> (make input, f(input))
CASES = {
    "contiguous_channels_last": (nchw, lambda x: x.contiguous(memory_format=CL)),
    "contiguous_already_channels_last": (cl, lambda x: x.contiguous(memory_format=CL)),
    "contiguous_of_channels_last": (cl, lambda x: x.contiguous()),
    "to_channels_last": (nchw, lambda x: x.to(memory_format=CL)),
    "to_dtype_preserves_channels_last": (cl, lambda x: x.to(torch.float64)),
    "to_dtype_contiguous_format": (cl, lambda x: x.to(torch.float64, memory_format=CF)),
    "to_same_format_aliases": (cl, lambda x: x.to(torch.float32, memory_format=CL)),
    "to_other_format_copies": (cl, lambda x: x.to(memory_format=CF)),
    "to_copy_preserves_strides": (cl, lambda x: x.to(torch.float32, copy=True)),
    "to_non_blocking_aliases": (nchw, lambda x: x.to(torch.float32, non_blocking=True)),
    "to_non_blocking_and_copy": (nchw, lambda x: x.to(torch.float32, non_blocking=True, copy=True)),
    "to_dense_permuted_keeps_strides": (lambda: nchw().permute(0, 2, 3, 1), lambda x: x.to(torch.float64)),
    "to_sliced_transposed_dense_in_order": (lambda: torch.arange(24.).reshape(4, 6).t()[::2],
                                             lambda x: x.to(torch.float64)),
    "to_other_tensor": (nchw, lambda x: x.to(torch.zeros(1, dtype=torch.float64))),
    "channels_last_size_one_dims": (lambda: torch.arange(6.).reshape(2, 3, 1, 1), lambda x: x.contiguous(memory_format=CL)),
    "channels_last_all_ones": (lambda: torch.ones(1, 1, 1, 1), lambda x: x.contiguous(memory_format=CL)),
    "channels_last_3d": (lambda: torch.arange(720.).reshape(2, 3, 4, 5, 6), lambda x: x.contiguous(memory_format=CL3)),
    "empty_channels_last": (lambda: torch.empty(2, 3, 4, 5, memory_format=CL), lambda x: x),
    "empty_channels_last_zero_size": (lambda: torch.empty(2, 3, 0, 5, memory_format=CL), lambda x: x),
    "zeros_channels_last": (lambda: torch.zeros(2, 3, 4, 5).to(memory_format=CL), lambda x: x),
}


def entry(make, f):
    x = make()
    y = f(x)
    assert torch.equal(y.to(torch.float64), x.to(torch.float64)), "values must be the input's"
    return {"shape": list(y.shape), "strides": list(y.stride()), "is_input": y is x,
            "is_contiguous": y.is_contiguous(),
            "channels_last": y.is_contiguous(memory_format=CL) if y.dim() == 4 else False,
            "dtype": str(y.dtype).replace("torch.", "")}


if __name__ == "__main__":
    write(os.path.join(FIXTURES, "core", "memory_format.json"), {k: entry(*v) for k, v in CASES.items()})
