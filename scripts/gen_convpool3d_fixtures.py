#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_convpool3d.cpp (3-d and transposed convolution,
3-d, adaptive 1-d and LP pooling, BatchNorm3d, InstanceNorm1d/3d, LocalResponseNorm).

Run with Debian's torch: /usr/bin/python3 scripts/gen_convpool3d_fixtures.py

tests/fixtures/nn/convpool3d.json, one entry per line, named "<group>/<case>":
    "functional": one case per call of F.conv3d / conv_transpose1d / conv_transpose3d / max_pool3d /
        avg_pool3d / adaptive_{avg,max}_pool{1,3}d / lp_pool{1,2}d / fractional_max_pool{2,3}d (with
        _random_samples given) / max_unpool{1,2,3}d (of max pooling's values and indices) / local_response_norm / batch_norm
        (5-d) / instance_norm (3-d and 5-d), in the format of
        gen_pooling_norm_fixtures.py (named inputs, output, fixed weights w, the gradients of (out * w).sum()
        for every floating input; max pooling's indices as "indices"): stride, padding, dilation, groups,
        output_padding, "same" with an even kernel, ceil_mode, count_include_pad, divisor_override, tied
        maxima, unbatched inputs, float32 and float64.
    "modules": BatchNorm3d and InstanceNorm1d/3d run for three training steps and then in eval(), as
        gen_pooling_norm_fixtures.py's modules.
    "layers": Conv3d, ConvTranspose1d and ConvTranspose3d built after torch.manual_seed(0): their drawn
        parameters, and the output and every gradient of one forward.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, load_script, wave, write

poolnorm = load_script("gen_pooling_norm_fixtures")

FUNCTIONAL = {}


def case(name, inputs, fn, no_grad=()):
    """inputs: name -> tensor, the floating ones requiring grad unless listed in no_grad; fn(**inputs) ->
    output, or (output, indices) for max pooling."""
    assert name not in FUNCTIONAL, name
    inputs = {k: v.detach().clone().requires_grad_(v.is_floating_point() and k not in no_grad)
              for k, v in inputs.items()}
    out = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()}}
    if isinstance(out, tuple):
        out, indices = out
        entry["indices"] = encode(indices)
    w = wave(*out.shape, dtype=out.dtype, phase=0.41)
    (out * w).sum().backward()
    entry.update({"output": encode(out), "weight": encode(w),
                  "grads": {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}})
    FUNCTIONAL[name] = entry


def ties(*shape, dtype=f32):
    """Values on a coarse grid, so that windows hold equal maxima (PyTorch keeps the first)."""
    return (wave(*shape, dtype=f64) * 1.5).round().to(dtype)


def x_w_b(x_shape, w_shape, b_size, dtype=f32):
    ins = {"x": wave(*x_shape, dtype=dtype), "w": wave(*w_shape, dtype=dtype, phase=1.3, scale=0.5)}
    if b_size:
        ins["b"] = wave(b_size, dtype=dtype, phase=2.1, scale=0.3)
    return ins


# ---- convolution ----
case("conv3d_basic", x_w_b((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), 2), lambda x, w, b: F.conv3d(x, w, b))
case("conv3d_stride_pad_dilation", x_w_b((1, 2, 5, 4, 5), (2, 2, 3, 2, 2), 2),
     lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 2), padding=(1, 2, 0), dilation=(2, 1, 2)))
case("conv3d_groups_f64", x_w_b((1, 4, 3, 3, 3), (4, 2, 2, 2, 2), 4, f64),
     lambda x, w, b: F.conv3d(x, w, b, stride=2, padding=1, groups=2))
case("conv3d_same_even_kernel", x_w_b((1, 2, 5, 3, 3), (1, 2, 4, 3, 2), 1),
     lambda x, w, b: F.conv3d(x, w, b, padding="same", dilation=(1, 2, 1)))
case("conv3d_unbatched_groups_no_bias", x_w_b((4, 3, 3, 4), (2, 2, 2, 2, 2), 0),
     lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), groups=2))
case("conv_transpose1d_basic", x_w_b((2, 3, 5), (3, 2, 3), 2),
     lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1))
case("conv_transpose1d_groups_dilation_f64", x_w_b((1, 4, 4), (4, 3, 3), 6, f64),
     lambda x, w, b: F.conv_transpose1d(x, w, b, groups=2, dilation=2))
case("conv_transpose1d_unbatched", x_w_b((2, 6), (2, 3, 2), 3), lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3))
case("conv_transpose3d_basic", x_w_b((1, 3, 2, 2, 3), (3, 2, 2, 3, 2), 2),
     lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1)))
case("conv_transpose3d_groups_dilation_f64", x_w_b((1, 4, 2, 3, 2), (4, 1, 3, 2, 2), 2, f64),
     lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, groups=2, dilation=(2, 1, 2)))
case("conv_transpose3d_unbatched_no_bias", x_w_b((2, 3, 2, 2), (2, 3, 2, 2, 2), 0),
     lambda x, w: F.conv_transpose3d(x, w, padding=(1, 0, 0)))

# ---- pooling ----
case("max_pool3d", {"x": wave(1, 1, 4, 4, 4)}, lambda x: F.max_pool3d(x, 2, return_indices=True))
case("max_pool3d_ties", {"x": ties(1, 1, 4, 4, 5)},
     lambda x: F.max_pool3d(x, (2, 3, 2), stride=1, padding=1, return_indices=True))
case("max_pool3d_pad_stride_dilation_ceil", {"x": wave(1, 1, 7, 5, 6)},
     lambda x: F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(2, 1, 1), ceil_mode=True,
                            return_indices=True))
case("max_pool3d_unbatched_f64", {"x": wave(2, 4, 4, 5, dtype=f64)},
     lambda x: F.max_pool3d(x, (2, 3, 2), stride=1, return_indices=True))
case("avg_pool3d", {"x": wave(1, 1, 4, 4, 4)}, lambda x: F.avg_pool3d(x, 2))
case("avg_pool3d_pad_ceil_exclude", {"x": wave(1, 1, 5, 6, 5)},
     lambda x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False))
case("avg_pool3d_pad_include_f64", {"x": wave(1, 1, 4, 5, 5, dtype=f64)},
     lambda x: F.avg_pool3d(x, (2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True))
case("avg_pool3d_divisor_override_unbatched", {"x": wave(1, 4, 5, 5)},
     lambda x: F.avg_pool3d(x, 2, stride=2, padding=1, divisor_override=3))
case("adaptive_avg_pool3d", {"x": wave(1, 1, 5, 7, 4)}, lambda x: F.adaptive_avg_pool3d(x, (2, 3, 3)))
case("adaptive_avg_pool3d_upsample_f64", {"x": wave(2, 2, 3, 2, dtype=f64)}, lambda x: F.adaptive_avg_pool3d(x, (3, 4, 3)))
case("adaptive_max_pool3d", {"x": wave(1, 1, 5, 6, 5)},
     lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), return_indices=True))
case("adaptive_max_pool3d_ties", {"x": ties(1, 2, 4, 5, 3)},
     lambda x: F.adaptive_max_pool3d(x, (3, 2, 2), return_indices=True))
case("adaptive_avg_pool1d", {"x": wave(2, 3, 7)}, lambda x: F.adaptive_avg_pool1d(x, 3))
case("adaptive_avg_pool1d_unbatched_upsample", {"x": wave(3, 5)}, lambda x: F.adaptive_avg_pool1d(x, 7))
case("adaptive_max_pool1d", {"x": wave(2, 3, 9)}, lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True))
case("adaptive_max_pool1d_ties_f64", {"x": ties(2, 8, dtype=f64)},
     lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True))
case("lp_pool1d", {"x": wave(2, 3, 8)}, lambda x: F.lp_pool1d(x, 2, 3, stride=2))
case("lp_pool2d_ceil", {"x": wave(1, 2, 5, 7, shift=0.5)}, lambda x: F.lp_pool2d(x, 3, (2, 3), stride=(1, 2),
                                                                                 ceil_mode=True))
case("lp_pool2d_f64", {"x": wave(2, 4, 4, dtype=f64, shift=1.5)}, lambda x: F.lp_pool2d(x, 1.5, 2))


# _random_samples given: (N, C, 2) for 2-d ([.., 0] the width's, [.., 1] the height's), (N, C, 3) for 3-d.
case("fractional_max_pool2d", {"x": wave(1, 2, 7, 8), "u": wave(1, 2, 2, phase=0.5, scale=0.45, shift=0.5)},
     lambda x, u: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=u, return_indices=True), no_grad="u")
case("fractional_max_pool2d_ratio_unbatched_f64",
     {"x": wave(2, 6, 7, dtype=f64), "u": wave(1, 2, 2, dtype=f64, phase=1.5, scale=0.45, shift=0.5)},
     lambda x, u: F.fractional_max_pool2d(x, (2, 3), output_ratio=(0.5, 0.6), _random_samples=u,
                                          return_indices=True), no_grad="u")
case("fractional_max_pool2d_ties", {"x": ties(1, 1, 6, 6), "u": wave(1, 1, 2, phase=2.5, scale=0.45, shift=0.5)},
     lambda x, u: F.fractional_max_pool2d(x, 3, output_size=3, _random_samples=u, return_indices=True), no_grad="u")
case("fractional_max_pool3d", {"x": wave(1, 1, 5, 6, 5), "u": wave(1, 1, 3, phase=0.7, scale=0.45, shift=0.5)},
     lambda x, u: F.fractional_max_pool3d(x, 2, output_size=(3, 3, 2), _random_samples=u, return_indices=True), no_grad="u")


def pooled(x, pool, **options):
    """The values and indices of a max pooling of x, as the inputs of a max_unpool case."""
    values, indices = pool(x, return_indices=True, **options)
    return {"v": values.detach(), "i": indices}


case("max_unpool1d_output_size", pooled(wave(2, 3, 8), F.max_pool1d, kernel_size=3, stride=2, padding=1),
     lambda v, i: F.max_unpool1d(v, i, 3, stride=2, padding=1, output_size=[8]))
case("max_unpool2d", pooled(wave(1, 2, 4, 6), F.max_pool2d, kernel_size=2), lambda v, i: F.max_unpool2d(v, i, 2))
case("max_unpool2d_unbatched_f64", pooled(wave(2, 5, 5, dtype=f64), F.max_pool2d, kernel_size=2),
     lambda v, i: F.max_unpool2d(v, i, 2, output_size=[5, 5]))
case("max_unpool3d", pooled(wave(1, 1, 4, 4, 5), F.max_pool3d, kernel_size=(2, 2, 3), stride=(2, 2, 2)),
     lambda v, i: F.max_unpool3d(v, i, (2, 2, 3), stride=(2, 2, 2), output_size=[4, 4, 5]))

# ---- normalisation ----
case("local_response_norm_3d", {"x": wave(2, 5, 4, scale=2.0)}, lambda x: F.local_response_norm(x, 3))
case("local_response_norm_4d_even", {"x": wave(2, 6, 3, 2, scale=3.0)},
     lambda x: F.local_response_norm(x, 4, alpha=0.1, beta=0.6, k=2.0))
case("local_response_norm_5d_f64", {"x": wave(1, 4, 2, 3, 2, dtype=f64, scale=3.0)},
     lambda x: F.local_response_norm(x, 2, alpha=0.5))
case("batch_norm_5d_train", {"x": wave(2, 3, 2, 3, 2, scale=2.0, shift=0.5),
                             "w": wave(3, phase=0.9, scale=0.5, shift=1.0), "b": wave(3, phase=2.1, scale=0.3)},
     lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True))
case("instance_norm_3d_input", {"x": wave(2, 3, 5, scale=2.0)}, lambda x: F.instance_norm(x))
case("instance_norm_5d_input_f64", {"x": wave(2, 2, 2, 3, 2, dtype=f64, scale=2.0),
                                    "w": wave(2, dtype=f64, phase=0.9, scale=0.5, shift=1.0),
                                    "b": wave(2, dtype=f64, phase=2.1, scale=0.3)},
     lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3))

MODULES = {
    "batchnorm3d": poolnorm.run_module(nn.BatchNorm3d(2), (2, 2, 1, 2, 2)),
    "batchnorm3d_momentum_none_f64": poolnorm.run_module(nn.BatchNorm3d(2, momentum=None), (2, 2, 1, 2, 2), f64),
    "instancenorm1d": poolnorm.run_module(nn.InstanceNorm1d(3), (2, 3, 3)),
    "instancenorm1d_unbatched_affine_tracked": poolnorm.run_module(
        nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (3, 4)),
    "instancenorm3d_affine_tracked": poolnorm.run_module(
        nn.InstanceNorm3d(2, affine=True, track_running_stats=True, momentum=0.3), (2, 2, 1, 2, 2)),
}


def layer_case(make, x_shape, dtype=f32):
    """The layer's draws after manual_seed(0), then one forward of a fixed input and every gradient."""
    torch.manual_seed(0)
    layer = make().to(dtype)
    entry = {"params": {k: encode(v) for k, v in layer.named_parameters()}}
    x = wave(*x_shape, dtype=dtype).requires_grad_()
    out = layer(x)
    w = wave(*out.shape, dtype=dtype, phase=0.41)
    (out * w).sum().backward()
    entry.update({"x": encode(x), "output": encode(out), "weight": encode(w),
                  "grads": {"x": encode(x.grad), **{k: encode(p.grad) for k, p in layer.named_parameters()}}})
    return entry


LAYERS = {
    "conv3d": layer_case(lambda: nn.Conv3d(2, 4, (2, 3, 2), stride=(1, 2, 1), padding=1), (1, 2, 2, 3, 3)),
    "conv3d_groups_no_bias_f64": layer_case(lambda: nn.Conv3d(4, 2, 2, groups=2, bias=False, dilation=(1, 1, 2)),
                                            (1, 4, 3, 3, 4), f64),
    "conv_transpose1d": layer_case(lambda: nn.ConvTranspose1d(4, 6, 3, groups=2, stride=2, output_padding=1),
                                   (1, 4, 5)),
    "conv_transpose3d": layer_case(lambda: nn.ConvTranspose3d(3, 2, (2, 2, 3), stride=2, padding=(0, 1, 1)),
                                   (1, 3, 2, 3, 2)),
}


if __name__ == "__main__":
    torch.set_num_threads(1)
    # One entry per line: "functional/<case>", "modules/<case>", "layers/<case>".
    entries = {f"{group}/{name}": entry for group, table in
               (("functional", FUNCTIONAL), ("modules", MODULES), ("layers", LAYERS)) for name, entry in table.items()}
    write(os.path.join(FIXTURES, "nn", "convpool3d.json"), entries)
