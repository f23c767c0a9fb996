"""PyTorch 1.13 references for tensor indexing (tests/autograd/test_indexing.cpp): x[...] with ints, slices,
None, Ellipsis, int64 and bool tensors, and x[...] = v / index_put_, in float32 and float64. Each case
records the output and the gradients of (out * weight).sum(); test_indexing.cpp mirrors each
expression in C++ under the same name.

    /usr/bin/python3 scripts/gen_indexing_fixtures.py   # writes tests/fixtures/core/indexing.json
"""
import os

import torch

from fixture_common import FIXTURES, encode, f32, f64, wave, write

MASK = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
L = lambda *v: torch.tensor(v, dtype=torch.int64)

# name -> x[...] (x is (3, 4, 5)); the C++ table in test_indexing.cpp has one line per name.
GETS = {
    "int": lambda x: x[1],
    "negative_int_step": lambda x: x[-1, 1::2],
    "ellipsis": lambda x: x[..., 2],
    "none": lambda x: x[:, None, 1, :-2],
    "ellipsis_slices": lambda x: x[..., 1:3, ::3],
    "true": lambda x: x[1, True],
    "repeated_rows": lambda x: x[L(2, 0, 2)],
    "broadcast_adjacent": lambda x: x[:, L(2, 0, 2), L(2, 0).view(2, 1)],
    "separated": lambda x: x[L(2, 0, 1), :, L(4, 0, 1)],
    "mask": lambda x: x[MASK],
    "mask_slice_int": lambda x: x[:, torch.tensor([True, False, True, False]), 1],
    "negative_tensor": lambda x: x[L(-1), :2, L(-5, 4)],
    "two_tensors_none": lambda x: x[L(1, 2), None, L(0, 3)],
}


def put_adv(x, v):
    y = x * 1
    y[L(0, 2), L(1, 3)] = v
    return y


def put_accumulate(x, v):
    return (x * 1).index_put_((L(0, 1, 1),), v, accumulate=True)


def put_mask_scalar(x, v):
    y = x * 1
    y[MASK] = 0.5
    return y * v.sum()


def put_basic(x, v):
    y = x * 1
    y[1, :, 2] = v
    return y


def put_separated(x, v):
    y = x * 1
    y[L(2, 0), 1:3, L(4, 1)] = v
    return y


# name -> (f(x, v), v's shape)
PUTS = {
    "put_adv": (put_adv, (2, 5)),
    "put_accumulate": (put_accumulate, (3, 4, 5)),
    "put_mask_scalar": (put_mask_scalar, (2,)),
    "put_basic": (put_basic, (4,)),
    "put_separated": (put_separated, (2, 2)),
}


def case(dtype, f, v_shape=None):
    x = wave(3, 4, 5, dtype=dtype).requires_grad_()
    inputs = {"x": x}
    if v_shape is not None:
        inputs["v"] = wave(*v_shape, dtype=dtype, phase=1.0, scale=2.0).requires_grad_()
    out = f(*inputs.values())
    weight = wave(*out.shape, dtype=dtype, phase=0.5)
    (out * weight).sum().backward()
    return {"inputs": {k: encode(t) for k, t in inputs.items()}, "output": encode(out), "weight": encode(weight),
            "grads": {k: encode(t.grad) for k, t in inputs.items()}}


def main():
    data = {}
    for dtype, tag in ((f32, "float32"), (f64, "float64")):
        for name, f in GETS.items():
            data[f"{name}/{tag}"] = case(dtype, f)
        for name, (f, v_shape) in PUTS.items():
            data[f"{name}/{tag}"] = case(dtype, f, v_shape)
    os.makedirs(os.path.join(FIXTURES, "core"), exist_ok=True)
    write(os.path.join(FIXTURES, "core", "indexing.json"), data)


if __name__ == "__main__":
    main()
