#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_conv.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_conv_fixtures.py

tests/fixtures/nn/conv.json
    one case per call of F.conv1d / conv2d / conv_transpose2d / unfold / fold, in the format of
    gen_nn_fixtures.py (named inputs, output, fixed weights w, and the gradients of (out * w).sum()
    for every input): stride 2, dilation 2, groups 2, padding "same" with an even kernel (uneven
    split), "valid", unbatched input, batch 1, float64; and, under "init_*", the parameters the
    layers draw after torch.manual_seed(0); layers with padding_mode reflect / replicate / circular
    (1-d to 3-d, "same", unbatched, float64) and ConvTranspose1d/2d/3d's forward with an output_size,
    each run with the case's weight and bias (functional_call).
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, wave, write

CASES = {}


def case(name, inputs, fn):
    """inputs: name -> tensor, all requiring grad; fn(**inputs) -> output."""
    assert name not in CASES, name
    inputs = {k: v.detach().clone().requires_grad_() for k, v in inputs.items()}
    out = fn(**inputs)
    w = wave(*out.shape, dtype=out.dtype, phase=0.41)
    (out * w).sum().backward()
    CASES[name] = {"inputs": {k: encode(v) for k, v in inputs.items()}, "output": encode(out), "weight": encode(w),
                   "grads": {k: encode(v.grad) for k, v in inputs.items()}}


def x_w_b(x_shape, w_shape, b_size, dtype=f32):
    ins = {"x": wave(*x_shape, dtype=dtype), "w": wave(*w_shape, dtype=dtype, phase=1.3, scale=0.5)}
    if b_size:
        ins["b"] = wave(b_size, dtype=dtype, phase=2.1, scale=0.3)
    return ins


case("conv2d_basic", x_w_b((2, 3, 6, 5), (4, 3, 3, 3), 4), lambda x, w, b: F.conv2d(x, w, b))
case("conv2d_stride2_pad1", x_w_b((2, 3, 7, 6), (4, 3, 3, 2), 4),
     lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1))
case("conv2d_dilation2", x_w_b((1, 2, 7, 7), (3, 2, 3, 3), 3),
     lambda x, w, b: F.conv2d(x, w, b, padding=(2, 1), dilation=2))
case("conv2d_groups2", x_w_b((2, 4, 5, 5), (6, 2, 3, 3), 6), lambda x, w, b: F.conv2d(x, w, b, groups=2))
case("conv2d_same_even_kernel", x_w_b((1, 2, 5, 6), (3, 2, 4, 3), 3),
     lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)))
case("conv2d_valid_no_bias", x_w_b((2, 2, 5, 4), (3, 2, 2, 3), 0), lambda x, w: F.conv2d(x, w, padding="valid"))
case("conv2d_unbatched", x_w_b((3, 5, 5), (2, 3, 3, 3), 2), lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1)))
case("conv2d_f64_everything", x_w_b((2, 4, 8, 7), (4, 2, 3, 2), 4, f64),
     lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2))
case("conv1d_basic", x_w_b((2, 3, 9), (4, 3, 3), 4), lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1))
case("conv1d_same_dilation_groups", x_w_b((1, 2, 8), (4, 1, 4), 4),
     lambda x, w, b: F.conv1d(x, w, b, padding="same", dilation=2, groups=2))
case("conv_transpose2d_basic", x_w_b((2, 3, 4, 4), (3, 2, 3, 3), 2),
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1))
case("conv_transpose2d_groups_dilation", x_w_b((1, 4, 3, 5), (4, 3, 2, 3), 6),
     lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(1, 2), groups=2, dilation=2))
case("conv_transpose2d_f64_no_bias", x_w_b((2, 2, 3, 3), (2, 3, 3, 3), 0, f64),
     lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=(0, 1)))
case("unfold", {"x": wave(2, 3, 5, 6)},
     lambda x: F.unfold(x, kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)))
case("fold", {"c": wave(2, 3 * 6, 12)},
     lambda c: F.fold(c, output_size=(5, 6), kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1)))


def layer_call(make, **kwargs):
    """fn(x, w[, b]): the layer make() run with w and b in place of its drawn weight and bias."""
    def fn(x, w, b=None):
        params = {"weight": w} if b is None else {"weight": w, "bias": b}
        return torch.nn.utils.stateless.functional_call(make(), params, (x,), kwargs)
    return fn


# padding_mode: the input padded by F.pad in that mode, then convolved unpadded.
case("conv2d_reflect", x_w_b((2, 3, 6, 5), (4, 3, 3, 3), 4),
     layer_call(lambda: nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode="reflect")))
case("conv2d_replicate_same_even_kernel", x_w_b((1, 2, 5, 6), (3, 2, 4, 3), 3),
     layer_call(lambda: nn.Conv2d(2, 3, (4, 3), padding="same", dilation=(1, 2), padding_mode="replicate")))
case("conv2d_circular_stride2", x_w_b((2, 2, 5, 7), (3, 2, 3, 3), 3),
     layer_call(lambda: nn.Conv2d(2, 3, 3, stride=2, padding=(2, 1), padding_mode="circular")))
case("conv1d_reflect_unbatched", x_w_b((3, 9), (4, 3, 3), 4),
     layer_call(lambda: nn.Conv1d(3, 4, 3, padding=2, padding_mode="reflect")))
case("conv1d_circular_f64_dilation", x_w_b((2, 2, 7), (3, 2, 3), 3, f64),
     layer_call(lambda: nn.Conv1d(2, 3, 3, padding=1, dilation=2, padding_mode="circular")))
case("conv3d_replicate_no_bias", x_w_b((1, 2, 4, 4, 3), (2, 2, 3, 3, 3), 0),
     layer_call(lambda: nn.Conv3d(2, 2, 3, padding=1, bias=False, padding_mode="replicate")))
# ConvTranspose's forward(input, output_size): the output_padding that gives that size.
case("conv_transpose2d_output_size", x_w_b((2, 3, 4, 4), (3, 2, 3, 3), 2),
     layer_call(lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), output_size=[8, 8]))
case("conv_transpose1d_output_size_with_batch_and_channels", x_w_b((1, 2, 5), (2, 3, 4), 3),
     layer_call(lambda: nn.ConvTranspose1d(2, 3, 4, stride=3, dilation=2), output_size=[1, 3, 20]))
case("conv_transpose3d_output_size_unbatched", x_w_b((2, 3, 3, 2), (2, 1, 2, 2, 2), 1),
     layer_call(lambda: nn.ConvTranspose3d(2, 1, 2, stride=2), output_size=[7, 6, 5]))


def init_case(name, make):
    torch.manual_seed(0)
    layer = make()
    CASES[name] = {"weight": encode(layer.weight), "bias": encode(layer.bias)}


init_case("init_conv2d", lambda: nn.Conv2d(3, 4, 3))
init_case("init_conv1d", lambda: nn.Conv1d(2, 3, 5, groups=1))
init_case("init_conv_transpose2d", lambda: nn.ConvTranspose2d(4, 6, (2, 3), groups=2))


if __name__ == "__main__":
    torch.set_num_threads(1)
    write(os.path.join(FIXTURES, "nn", "conv.json"), CASES)
