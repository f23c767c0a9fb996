#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_pooling_norm.cpp (pooling and normalisation).

Run with Debian's torch: /usr/bin/python3 scripts/gen_pooling_norm_fixtures.py

tests/fixtures/nn/pooling_norm_functional.json
    one case per call of max/avg/adaptive pooling (1-d and 2-d, padding, dilation, ceil_mode,
    count_include_pad, divisor_override, non-square and unbatched inputs) and of batch_norm,
    instance_norm, group_norm and rms_norm, in the format of gen_activation_loss_fixtures.py (named inputs,
    output, fixed weights w, the gradients of (out * w).sum()); max pooling's indices as "indices".
    PyTorch 1.13 has no RMSNorm: its reference is the formula torch.nn.RMSNorm (2.4) documents,
    x * rsqrt(mean(x^2) + eps) * weight, with eps = finfo(dtype).eps, computed here in float64.
tests/fixtures/nn/pooling_norm_modules.json
    BatchNorm1d, BatchNorm2d and InstanceNorm2d modules run for three training steps and then in
    eval(): each step's output, input and parameter gradients, and the running statistics after it.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, wave, write

FUNCTIONAL = {}


def case(name, inputs, fn, no_grad=()):
    """inputs: name -> tensor; floating ones require grad unless listed in no_grad. fn may return
    (output, indices)."""
    assert name not in FUNCTIONAL, name
    inputs = {k: v.detach().clone() for k, v in inputs.items()}
    for k, t in inputs.items():
        if t.is_floating_point() and k not in no_grad:
            t.requires_grad_()
    out = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()}}
    if isinstance(out, tuple):
        out, indices = out
        entry["indices"] = encode(indices)
    entry["output"] = encode(out)
    w = wave(*out.shape, dtype=out.dtype, phase=0.41)
    (out * w).sum().backward()
    entry["weight"] = encode(w)
    entry["grads"] = {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}
    FUNCTIONAL[name] = entry


# ---- pooling ----
case("max_pool2d", {"x": wave(2, 3, 5, 6)}, lambda x: F.max_pool2d(x, 2))
case("max_pool2d_pad_stride_dilation", {"x": wave(1, 2, 7, 8)},
     lambda x: F.max_pool2d(x, 3, stride=2, padding=1, dilation=2, return_indices=True))
case("max_pool2d_ceil_nonsquare", {"x": wave(2, 2, 5, 7)},
     lambda x: F.max_pool2d(x, (2, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, return_indices=True))
case("max_pool2d_unbatched", {"x": wave(3, 4, 6)},
     lambda x: F.max_pool2d(x, (3, 2), stride=(1, 2), return_indices=True))
case("max_pool2d_overlap_f64", {"x": wave(2, 2, 6, 5, dtype=f64)},
     lambda x: F.max_pool2d(x, 3, stride=1, padding=1, return_indices=True))
case("max_pool1d", {"x": wave(2, 3, 9)}, lambda x: F.max_pool1d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                                  return_indices=True))
case("max_pool1d_unbatched_dilation", {"x": wave(3, 8)},
     lambda x: F.max_pool1d(x, 2, dilation=3, return_indices=True))
case("avg_pool2d", {"x": wave(2, 3, 6, 4)}, lambda x: F.avg_pool2d(x, 2))
case("avg_pool2d_pad_include", {"x": wave(1, 2, 5, 6)}, lambda x: F.avg_pool2d(x, 3, stride=2, padding=1))
case("avg_pool2d_pad_exclude", {"x": wave(1, 2, 5, 6)},
     lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))
case("avg_pool2d_ceil_pad", {"x": wave(2, 1, 5, 7)},
     lambda x: F.avg_pool2d(x, (2, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True))
case("avg_pool2d_ceil_exclude", {"x": wave(2, 1, 5, 7)},
     lambda x: F.avg_pool2d(x, (2, 3), stride=(2, 2), padding=(1, 0), ceil_mode=True, count_include_pad=False))
case("avg_pool2d_divisor_override", {"x": wave(3, 5, 5)},
     lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, divisor_override=4))
case("avg_pool2d_f64", {"x": wave(1, 2, 4, 7, dtype=f64)}, lambda x: F.avg_pool2d(x, (2, 3), stride=(1, 2)))
case("avg_pool1d", {"x": wave(2, 3, 9)}, lambda x: F.avg_pool1d(x, 4, stride=3, padding=2, ceil_mode=True))
case("avg_pool1d_exclude", {"x": wave(3, 7)},
     lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False))
case("adaptive_avg_pool2d", {"x": wave(2, 3, 7, 5)}, lambda x: F.adaptive_avg_pool2d(x, (3, 2)))
case("adaptive_avg_pool2d_global", {"x": wave(3, 5, 5)}, lambda x: F.adaptive_avg_pool2d(x, 1))
case("adaptive_avg_pool2d_upsample", {"x": wave(1, 2, 3, 5)}, lambda x: F.adaptive_avg_pool2d(x, (4, 7)))
case("adaptive_max_pool2d", {"x": wave(2, 2, 7, 5)}, lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True))
case("adaptive_max_pool2d_unbatched", {"x": wave(2, 6, 6)}, lambda x: F.adaptive_max_pool2d(x, 4))

# ---- normalisation ----
C = 3
w3, b3 = wave(C, phase=0.9, scale=0.5, shift=1.0), wave(C, phase=2.1, scale=0.3)
case("batch_norm_train", {"x": wave(4, C, 5, scale=2.0, shift=0.5), "w": w3, "b": b3},
     lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-3))
case("batch_norm_train_4d_f64", {"x": wave(2, C, 3, 2, dtype=f64, scale=2.0)},
     lambda x: F.batch_norm(x, None, None, training=True))
case("batch_norm_eval", {"x": wave(4, C, scale=2.0), "rm": wave(C, phase=1.3, scale=0.4),
                         "rv": wave(C, phase=0.2, scale=0.3, shift=1.2), "w": w3, "b": b3},
     lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=False), no_grad=("rm", "rv"))
case("instance_norm", {"x": wave(2, C, 4, 5, scale=2.0), "w": w3, "b": b3},
     lambda x, w, b: F.instance_norm(x, weight=w, bias=b))
case("instance_norm_plain_f64", {"x": wave(2, C, 3, 3, dtype=f64, scale=2.0)}, lambda x: F.instance_norm(x))
case("group_norm", {"x": wave(2, 6, 3, 2, scale=2.0, shift=0.3), "w": wave(6, phase=0.9, scale=0.5, shift=1.0),
                    "b": wave(6, phase=2.1, scale=0.3)},
     lambda x, w, b: F.group_norm(x, 3, w, b))
case("group_norm_3d_plain", {"x": wave(3, 4, 5, scale=2.0)}, lambda x: F.group_norm(x, 2, eps=1e-2))
case("group_norm_one_group_f64", {"x": wave(2, 4, 3, dtype=f64, scale=2.0)}, lambda x: F.group_norm(x, 1))


def rms_norm(x, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm as PyTorch 2.4 defines it, computed in float64."""
    eps = torch.finfo(x.dtype).eps if eps is None else eps
    dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
    x64 = x.double()
    y = x64 * torch.rsqrt(x64.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        y = y * weight.double()
    return y.to(x.dtype)


case("rms_norm", {"x": wave(2, 3, 4, scale=2.0), "w": wave(4, phase=0.9, scale=0.5, shift=1.0)},
     lambda x, w: rms_norm(x, [4], w))
case("rms_norm_two_dims_eps", {"x": wave(2, 3, 4, scale=0.01), "w": wave(3, 4, phase=0.9, scale=0.5, shift=1.0)},
     lambda x, w: rms_norm(x, [3, 4], w, eps=1e-3))
case("rms_norm_tiny_default_eps_f64", {"x": wave(3, 5, dtype=f64, scale=1e-7)}, lambda x: rms_norm(x, [5]))

# ---------------------------------------------------------------------------------------------
# modules over training steps, then eval


def run_module(module, shape, dtype=f32):
    module = module.to(dtype)
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            p.copy_(wave(*p.shape, dtype=dtype, phase=0.9 + i, scale=0.5, shift=1.0 - i))
    record = {"params": {k: encode(v) for k, v in module.named_parameters()}, "steps": []}

    def step(x):
        x = x.clone().requires_grad_()
        out = module(x)
        w = wave(*out.shape, dtype=dtype, phase=0.41)
        module.zero_grad()
        (out * w).sum().backward()
        entry = {"x": encode(x), "output": encode(out), "weight": encode(w),
                 "grads": {"x": encode(x.grad)},
                 "buffers": {k: encode(v) for k, v in module.named_buffers()}}
        entry["grads"].update({k: encode(p.grad) for k, p in module.named_parameters()})
        return entry

    module.train()
    for t in range(3):
        record["steps"].append(step(wave(*shape, dtype=dtype, phase=0.7 * t, scale=1.0 + t, shift=0.2 * t)))
    module.eval()
    record["eval"] = step(wave(*shape, dtype=dtype, phase=5.0, scale=1.5, shift=-0.3))
    return record


MODULES = {
    "batchnorm1d_3d": run_module(nn.BatchNorm1d(4), (3, 4, 5)),
    "batchnorm1d_2d_momentum_none_f64": run_module(nn.BatchNorm1d(3, momentum=None), (5, 3), f64),
    "batchnorm1d_no_affine": run_module(nn.BatchNorm1d(3, affine=False, momentum=0.3, eps=1e-3), (4, 3)),
    "batchnorm1d_no_running_stats": run_module(nn.BatchNorm1d(3, track_running_stats=False), (4, 3, 2)),
    "batchnorm2d": run_module(nn.BatchNorm2d(3), (2, 3, 4, 5)),
    "instancenorm2d": run_module(nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    "instancenorm2d_affine_tracked": run_module(nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
                                                (2, 3, 3, 4)),
}


if __name__ == "__main__":
    torch.set_num_threads(1)
    write(os.path.join(FIXTURES, "nn", "pooling_norm_functional.json"), FUNCTIONAL)
    write(os.path.join(FIXTURES, "nn", "pooling_norm_modules.json"), MODULES)
