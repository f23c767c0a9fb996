"""PyTorch 1.13 references for the narrow integer dtypes (uint8, int8, int16, int32) of issue 33, for
tests/core/test_int_dtypes.cpp: the promotion table over every pair of Ember's dtypes, and ops on narrow
integer tensors (wrap-around arithmetic, conversions from float, comparisons, reductions, sort, scans,
indexing, the uint8 image pipeline). test_int_dtypes.cpp mirrors each case in C++ under the same name.

    /usr/bin/python3 scripts/gen_int_dtype_fixtures.py   # writes tests/fixtures/core/int_dtypes.json
"""
import os

import torch

from fixture_common import FIXTURES, encode, write

DTYPES = ["float32", "float64", "int64", "bool", "bfloat16", "uint8", "int8", "int16", "int32", "float16"]
T = lambda name: getattr(torch, name)

U8 = torch.tensor([[0, 7, 200, 255], [13, 128, 99, 1]], dtype=torch.uint8)
I8 = torch.tensor([[-128, -3, 0, 127], [5, -77, 64, 1]], dtype=torch.int8)
I32 = torch.tensor([[2147483647, -5, 12, 0], [-2147483648, 40000, -7, 3]], dtype=torch.int32)
F = torch.tensor([[300.7, -1.5, 255.0, 0.2], [-129.9, 1e3, 7.9, -0.0]])

# name -> tensor: each is the output of the expression the C++ table repeats.
CASES = {
    "u8_add_wraps": U8 + U8,
    "u8_sub_wraps": U8 - torch.tensor(100, dtype=torch.uint8),
    "u8_mul_scalar": U8 * 3,
    "u8_neg": -U8,
    "u8_plus_i8": U8 + I8,
    "u8_times_float": U8 * 0.5,
    "u8_div_255": U8.to(torch.float32).div(255),
    "u8_true_div": U8 / 4,
    "u8_lt": U8 < 100,
    "u8_eq_i8": U8 == I8.to(torch.uint8),
    "u8_sum": U8.sum(),
    "u8_sum_dim": U8.sum(1),
    "u8_max": U8.max(),
    "u8_argmax": U8.argmax(1),
    "u8_amin": U8.amin(0),
    "u8_sort": U8.sort(1)[0],
    "u8_cumsum": U8.cumsum(1),
    "u8_flip": U8.flip([1]),
    "u8_index_select": U8.index_select(1, torch.tensor([3, 0])),
    "u8_masked": U8[U8 > 50],
    "u8_where": torch.where(U8 > 50, U8, torch.zeros_like(U8)),
    "u8_clamp": U8.clamp(10, 150),
    "i8_abs": I8.abs(),
    "i8_mul_wraps": I8 * 2,
    "i8_minimum": torch.minimum(I8, torch.tensor(2, dtype=torch.int8)),
    "i8_remainder": I8 % 5,
    "i8_max_dim": I8.max(0)[0],
    "i8_to_float": I8.to(torch.float32),
    "i32_add_wraps": I32 + I32,
    "i32_sum": I32.sum(1),
    "i32_to_int64": I32.to(torch.int64),
    "i32_topk": I32.topk(2, 1)[0],
    "float_to_u8": F.to(torch.uint8),
    "float_to_i8": F.to(torch.int8),
    "float_to_i16": F.to(torch.int16),
    "float_to_i32": F.to(torch.int32),
    "int64_to_u8": torch.tensor([-1, 256, 511, 1000]).to(torch.uint8),
    "int64_to_i8": torch.tensor([-129, 128, 255, 1000]).to(torch.int8),
    "bool_to_u8": torch.tensor([True, False]).to(torch.uint8),
    "u8_to_bool": U8.to(torch.bool),
}


def main():
    data = {}
    for a in DTYPES:
        for b in DTYPES:
            data[f"promote/{a}/{b}"] = {"dtype": str(torch.promote_types(T(a), T(b))).replace("torch.", "")}
    for name, out in CASES.items():
        data[f"op/{name}"] = {"output": encode(out)}
    os.makedirs(os.path.join(FIXTURES, "core"), exist_ok=True)
    write(os.path.join(FIXTURES, "core", "int_dtypes.json"), data)


if __name__ == "__main__":
    main()
