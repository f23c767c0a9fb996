#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_nn_extra.cpp: RReLU, CrossMapLRN2d,
gumbel_softmax and the init functions dirac_, eye_ and orthogonal_.

Run with Debian's torch: /usr/bin/python3 scripts/gen_nn_extra_fixtures.py

tests/fixtures/nn/nn_extra.json
    "<name>": one call per case, in the format of gen_activation_loss_fixtures.py (named inputs,
        output, fixed weights w and the gradients of (out * w).sum()), seeded where the call draws:
        RReLU in eval and training (its slopes drawn from the CPU generator), rrelu_with_noise's
        noise, CrossMapLRN2d (whose backward is libtorch's hand-written one, see nn/normalization.cpp),
        gumbel_softmax (exponential_ draws: this torch has no MKL, so they are the generator's).
    "init.<name>": a fresh tensor of `shape` and `dtype` after an init function (after
        torch.manual_seed(seed) where it draws): "output".
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, record_case, wave, write

CASES = {}


def case(name, inputs, fn, seed=None, no_grad=()):
    record_case(CASES, name, inputs, fn, seed, no_grad)


# ---- RReLU: eval is leaky_relu with slope (lower + upper) / 2; training draws a slope per x <= 0 ----

kinks = torch.tensor([-30.0, -1.5, -0.5, 0.0, 0.5, 1.0, 25.0])
x45 = wave(4, 5, scale=3.0)
case("rrelu_eval", {"x": x45}, lambda x: F.rrelu(x))
case("rrelu_eval_kinks", {"x": kinks}, lambda x: F.rrelu(x, 0.1, 0.6))
case("rrelu_train", {"x": x45}, lambda x: F.rrelu(x, training=True), seed=3)
case("rrelu_train_kinks", {"x": kinks}, lambda x: F.rrelu(x, 0.2, 0.9, training=True), seed=4)
case("rrelu_train_f64", {"x": wave(3, 7, dtype=f64, scale=2.0)}, lambda x: F.rrelu(x, 0.05, 0.9, training=True),
     seed=7)
case("rrelu_train_many", {"x": wave(40, 33, scale=2.0, shift=-0.5)}, lambda x: F.rrelu(x, training=True), seed=11)
# A transposed view draws in its logical (row-major) order, as PyTorch's kernel reads input.contiguous().
case("rrelu_train_transposed", {"x": wave(5, 6, scale=2.0)}, lambda x: F.rrelu(x.t(), training=True), seed=12)
case("rrelu_train_inplace", {"x": x45}, lambda x: F.rrelu(x * 1, 0.3, 0.4, training=True, inplace=True), seed=13)
case("rrelu_train_equal_bounds", {"x": x45}, lambda x: F.rrelu(x, 0.25, 0.25, training=True), seed=14)
case("rrelu_module_train", {"x": x45}, lambda x: nn.RReLU(0.2, 0.5)(x), seed=15)
case("rrelu_module_eval", {"x": x45}, lambda x: nn.RReLU(0.2, 0.5).eval()(x))


def rrelu_with_noise(x, lower, upper, training):
    noise = torch.full_like(x, -7.0)  # eval leaves it untouched
    out = torch._C._nn.rrelu_with_noise(x, noise, lower, upper, training)
    return torch.stack([out, noise])


case("rrelu_with_noise_train", {"x": x45}, lambda x: rrelu_with_noise(x, 0.1, 0.3, True), seed=16)
case("rrelu_with_noise_eval", {"x": x45}, lambda x: rrelu_with_noise(x, 0.1, 0.3, False))

# ---- CrossMapLRN2d: (N, C, H, W), PyTorch's own window (channel 0 always in it) and backward ----

case("cross_map_lrn_size3", {"x": wave(2, 6, 3, 2, scale=2.0)}, lambda x: nn.CrossMapLRN2d(3, alpha=0.5)(x))
# Forward only for an even size: Python's backward computes its window start as int(size - (size - 1) / 2)
# in floating point (2 for size 4), libtorch's C++ in integers (3); Ember follows libtorch, and
# tests/compat/programs/rrelu_lrn_init.cpp holds its even-size gradient to libtorch's.
case("cross_map_lrn_size4", {"x": wave(2, 7, 2, 3, scale=2.0)},
     lambda x: nn.CrossMapLRN2d(4, alpha=0.3, beta=0.6, k=2)(x), no_grad=("x",))
case("cross_map_lrn_size5", {"x": wave(1, 8, 3, 3, scale=3.0)}, lambda x: nn.CrossMapLRN2d(5, alpha=1.0, beta=1.2)(x))
case("cross_map_lrn_default", {"x": wave(2, 5, 2, 2, scale=4.0)}, lambda x: nn.CrossMapLRN2d(3)(x))
case("cross_map_lrn_wide_window", {"x": wave(2, 3, 2, 2, scale=2.0)}, lambda x: nn.CrossMapLRN2d(7, alpha=0.8)(x))
case("cross_map_lrn_f64", {"x": wave(2, 6, 2, 3, dtype=f64, scale=2.0)},
     lambda x: nn.CrossMapLRN2d(3, alpha=0.7, beta=0.9, k=1)(x))

# ---- gumbel_softmax: -log(exponential_ draws) noise ----

logits = wave(4, 5, scale=2.0)
case("gumbel_softmax", {"x": logits}, lambda x: F.gumbel_softmax(x), seed=21)
case("gumbel_softmax_tau", {"x": logits}, lambda x: F.gumbel_softmax(x, tau=0.5), seed=22)
case("gumbel_softmax_hard", {"x": logits}, lambda x: F.gumbel_softmax(x, hard=True), seed=23)
case("gumbel_softmax_hard_dim0", {"x": wave(3, 4, 2, scale=2.0)}, lambda x: F.gumbel_softmax(x, 2.0, True, dim=0),
     seed=24)
case("gumbel_softmax_f64", {"x": wave(3, 6, dtype=f64, scale=2.0)}, lambda x: F.gumbel_softmax(x, tau=0.7), seed=25)

# ---- init ----


def init_case(name, shape, fn, seed=None, dtype=f32):
    key = "init." + name
    assert key not in CASES, key
    t = torch.empty(shape, dtype=dtype)
    if seed is not None:
        torch.manual_seed(seed)
    fn(t)
    entry = {"shape": list(shape), "dtype": str(dtype).replace("torch.", ""), "output": encode(t)}
    if seed is not None:
        entry["seed"] = seed
    CASES[key] = entry


init_case("dirac_3d", (4, 2, 3), nn.init.dirac_)
init_case("dirac_4d", (3, 5, 3, 2), nn.init.dirac_)
init_case("dirac_5d", (2, 3, 1, 2, 3), nn.init.dirac_)
init_case("dirac_groups", (6, 2, 3, 3), lambda t: nn.init.dirac_(t, groups=3))
init_case("dirac_groups_narrow", (4, 3, 3), lambda t: nn.init.dirac_(t, groups=2))
init_case("eye_wide", (3, 5), nn.init.eye_)
init_case("eye_tall", (4, 2), nn.init.eye_)
init_case("eye_f64", (3, 3), nn.init.eye_, dtype=f64)
init_case("orthogonal_square", (6, 6), nn.init.orthogonal_, seed=31)
init_case("orthogonal_tall", (7, 3), nn.init.orthogonal_, seed=32)
init_case("orthogonal_wide", (3, 7), nn.init.orthogonal_, seed=33)
init_case("orthogonal_small", (3, 4), nn.init.orthogonal_, seed=34)  # 12 draws: the scalar normal path
init_case("orthogonal_conv_gain", (4, 3, 3, 3), lambda t: nn.init.orthogonal_(t, gain=2.0), seed=35)
init_case("orthogonal_large", (20, 16), nn.init.orthogonal_, seed=36)

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "nn", "nn_extra.json"), CASES)
