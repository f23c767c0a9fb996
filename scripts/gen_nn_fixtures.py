#!/usr/bin/env python3
"""Writes tests/fixtures/nn/{functional,modules}.json: PyTorch references for Ember's nn.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_nn_fixtures.py

functional.json: one case per nn::functional call. Inputs are deterministic (sin of a ramp); each case
holds its named inputs, the output, fixed weights w, and the gradients of (out * w).sum() with respect
to every floating-point input. tests/nn/test_nn_functional.cpp maps each case name to the same call in C++.
Cases that draw random numbers (dropout) seed the default generator first; the C++ test does the same.

modules.json: the parameters PyTorch's default initialisation gives after manual_seed (Linear,
Embedding, LayerNorm, several modules in a row), and forward/backward cases of modules whose
parameters are copied in from the fixture.

scaled_dot_product_attention does not exist in torch 1.13: its reference is the explicit formula of
torch 2.x's documentation, with a fully masked query row giving zeros (the math path's safe softmax).
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import encode, f32, f64, wave, write

HERE = os.path.dirname(__file__)
OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures", "nn")
i64 = torch.int64
inf = float("inf")


# ---------------------------------------------------------------------------------------------
# functional.json

FUNCTIONAL = {}


def case(name, inputs, fn, seed=None):
    """inputs: dict name -> tensor (floating ones get requires_grad). fn(**inputs) -> output tensor."""
    assert name not in FUNCTIONAL, name
    inputs = {k: v.detach().clone() for k, v in inputs.items()}
    for t in inputs.values():
        if t.is_floating_point():
            t.requires_grad_()
    if seed is not None:
        torch.manual_seed(seed)
    out = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()}, "output": encode(out)}
    if seed is not None:
        entry["seed"] = seed
    if out.requires_grad:
        w = wave(*out.shape, dtype=out.dtype, phase=0.41)
        (out * w).sum().backward()
        entry["weight"] = encode(w)
        entry["grads"] = {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}
    FUNCTIONAL[name] = entry


x23 = wave(2, 3)
x234 = wave(2, 3, 4, phase=0.2)

# linear: (N, in), (B, T, in), no bias
case("linear", {"x": wave(4, 3), "w": wave(2, 3, phase=1.0), "b": wave(2, phase=2.0)},
     lambda x, w, b: F.linear(x, w, b))
case("linear_3d", {"x": x234, "w": wave(5, 4, phase=1.0), "b": wave(5, phase=2.0)},
     lambda x, w, b: F.linear(x, w, b))
case("linear_no_bias", {"x": wave(3, 4), "w": wave(2, 4, phase=1.0)}, lambda x, w: F.linear(x, w))
case("linear_1d_f64", {"x": wave(4, dtype=f64), "w": wave(3, 4, dtype=f64, phase=1.0), "b": wave(3, dtype=f64)},
     lambda x, w, b: F.linear(x, w, b))

# addmm, the primitive under a 2-D linear with bias
case("addmm_beta_alpha", {"b": wave(1, 3, phase=0.5), "x": wave(4, 2), "w": wave(2, 3, phase=1.5)},
     lambda b, x, w: torch.addmm(b, x, w, beta=0.5, alpha=2.0))

# embedding, with repeated indices and a padding row
idx = torch.tensor([[1, 3, 0], [3, 3, 4]])
case("embedding", {"idx": idx, "w": wave(5, 3)}, lambda idx, w: F.embedding(idx, w))
case("embedding_padding", {"idx": idx, "w": wave(5, 3)}, lambda idx, w: F.embedding(idx, w, padding_idx=3))

# layer_norm
case("layer_norm", {"x": x234, "w": wave(4, phase=0.5, shift=1.0), "b": wave(4, phase=0.9)},
     lambda x, w, b: F.layer_norm(x, (4,), w, b, 1e-5))
case("layer_norm_2dims_eps", {"x": x234 * 3, "w": wave(3, 4, phase=0.5, shift=1.0), "b": wave(3, 4, phase=0.9)},
     lambda x, w, b: F.layer_norm(x, (3, 4), w, b, 1e-3))
case("layer_norm_no_affine_f64", {"x": wave(3, 5, dtype=f64)}, lambda x: F.layer_norm(x, (5,)))

# activations
case("gelu", {"x": wave(3, 4, scale=3.0)}, lambda x: F.gelu(x))
case("gelu_tanh", {"x": wave(3, 4, scale=3.0)}, lambda x: F.gelu(x, approximate="tanh"))
case("relu", {"x": wave(3, 4)}, lambda x: F.relu(x))
case("softmax_dim1", {"x": x234}, lambda x: F.softmax(x, dim=1))
case("softmax_last", {"x": x234 * 4}, lambda x: F.softmax(x, dim=-1))
case("log_softmax_dim0", {"x": x234}, lambda x: F.log_softmax(x, dim=0))

# masked softmax: true = masked out; row 1 of batch 0 is fully masked and must give zeros.
scores = wave(2, 3, 4, phase=0.3, scale=2.0)
mask = torch.tensor([[[False, True, False, True], [True, True, True, True], [False, False, False, True]],
                     [[False, False, False, False], [True, False, True, False], [False, True, True, True]]])


def safe_masked_softmax(x, m):
    dead = m.all(-1, keepdim=True)
    return x.masked_fill(m, -inf).masked_fill(dead, 0).softmax(-1).masked_fill(dead, 0)


case("masked_softmax", {"x": scores, "mask": mask}, lambda x, mask: safe_masked_softmax(x, mask))
causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
case("masked_softmax_causal_broadcast", {"x": wave(2, 4, 4), "mask": causal},
     lambda x, mask: x.masked_fill(mask, -inf).softmax(-1))

# dropout (seeded)
case("dropout", {"x": wave(4, 5)}, lambda x: F.dropout(x, p=0.3, training=True), seed=42)
case("dropout_f64", {"x": wave(3, 7, dtype=f64)}, lambda x: F.dropout(x, p=0.5, training=True), seed=7)
case("dropout_p1", {"x": wave(2, 3)}, lambda x: F.dropout(x, p=1.0, training=True), seed=1)

# cross_entropy
logits = wave(4, 5, scale=2.0)
tgt = torch.tensor([1, 0, 4, 2])
tgt_ign = torch.tensor([1, -100, 4, 2])
case("cross_entropy", {"x": logits, "t": tgt}, lambda x, t: F.cross_entropy(x, t))
case("cross_entropy_sum", {"x": logits, "t": tgt}, lambda x, t: F.cross_entropy(x, t, reduction="sum"))
case("cross_entropy_none", {"x": logits, "t": tgt}, lambda x, t: F.cross_entropy(x, t, reduction="none"))
case("cross_entropy_ignore", {"x": logits, "t": tgt_ign}, lambda x, t: F.cross_entropy(x, t))
case("cross_entropy_ignore_custom", {"x": logits, "t": torch.tensor([1, 3, 3, 2])},
     lambda x, t: F.cross_entropy(x, t, ignore_index=3))
case("cross_entropy_smoothing", {"x": logits, "t": tgt_ign},
     lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1))
case("cross_entropy_smoothing_sum", {"x": logits, "t": tgt_ign},
     lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2, reduction="sum"))
case("cross_entropy_smoothing_none", {"x": logits, "t": tgt_ign},
     lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2, reduction="none"))
case("cross_entropy_3d", {"x": wave(2, 3, 4), "t": torch.tensor([[0, 2, 1, 1], [2, 2, 0, 1]])},
     lambda x, t: F.cross_entropy(x, t))
case("cross_entropy_1d", {"x": wave(5), "t": torch.tensor(3)}, lambda x, t: F.cross_entropy(x, t))
case("cross_entropy_probs", {"x": logits, "t": wave(4, 5, phase=0.7).softmax(-1)},
     lambda x, t: F.cross_entropy(x, t.detach()))
case("cross_entropy_probs_smoothing", {"x": logits, "t": wave(4, 5, phase=0.7).softmax(-1)},
     lambda x, t: F.cross_entropy(x, t.detach(), label_smoothing=0.3))
case("cross_entropy_f64", {"x": wave(3, 4, dtype=f64, scale=3.0), "t": torch.tensor([3, 0, 1])},
     lambda x, t: F.cross_entropy(x, t))

# nll_loss on log-probabilities
case("nll_loss", {"x": logits.log_softmax(1), "t": tgt_ign}, lambda x, t: F.nll_loss(x, t))
case("nll_loss_sum", {"x": logits.log_softmax(1), "t": tgt_ign}, lambda x, t: F.nll_loss(x, t, reduction="sum"))
case("nll_loss_3d_none", {"x": wave(2, 3, 4).log_softmax(1), "t": torch.tensor([[0, 2, -100, 1], [2, 2, 0, 1]])},
     lambda x, t: F.nll_loss(x, t, reduction="none"))

# class weights (weight (C) gets no gradient: PyTorch refuses one)
cls_w = torch.tensor([0.5, 2.0, 1.0, 0.25, 1.5])
case("nll_loss_weight", {"x": logits.log_softmax(1), "t": tgt_ign, "w": cls_w},
     lambda x, t, w: F.nll_loss(x, t, weight=w.detach()))
case("nll_loss_weight_sum", {"x": logits.log_softmax(1), "t": tgt_ign, "w": cls_w},
     lambda x, t, w: F.nll_loss(x, t, weight=w.detach(), reduction="sum"))
case("nll_loss_weight_3d_none", {"x": wave(2, 3, 4).log_softmax(1), "t": torch.tensor([[0, 2, -100, 1], [2, 2, 0, 1]]),
                                 "w": torch.tensor([0.3, 1.7, 0.9])},
     lambda x, t, w: F.nll_loss(x, t, weight=w.detach(), reduction="none"))
case("nll_loss_weight_3d", {"x": wave(2, 3, 4).log_softmax(1), "t": torch.tensor([[0, 2, -100, 1], [2, 2, 0, 1]]),
                            "w": torch.tensor([0.3, 1.7, 0.9])},
     lambda x, t, w: F.nll_loss(x, t, weight=w.detach()))
case("cross_entropy_weight", {"x": logits, "t": tgt, "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach()))
case("cross_entropy_weight_ignore_smoothing", {"x": logits, "t": tgt_ign, "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach(), label_smoothing=0.2))
case("cross_entropy_weight_smoothing_sum", {"x": logits, "t": tgt_ign, "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach(), label_smoothing=0.2, reduction="sum"))
case("cross_entropy_weight_smoothing_none", {"x": logits, "t": tgt_ign, "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach(), label_smoothing=0.2, reduction="none"))
case("cross_entropy_weight_3d_smoothing", {"x": wave(2, 3, 4), "t": torch.tensor([[0, 2, -100, 1], [2, 2, 0, 1]]),
                                           "w": torch.tensor([0.3, 1.7, 0.9])},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach(), label_smoothing=0.1))
case("cross_entropy_weight_probs", {"x": logits, "t": wave(4, 5, phase=0.7).softmax(-1), "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t.detach(), weight=w.detach()))
case("cross_entropy_weight_probs_smoothing_sum", {"x": logits, "t": wave(4, 5, phase=0.7).softmax(-1), "w": cls_w},
     lambda x, t, w: F.cross_entropy(x, t.detach(), weight=w.detach(), label_smoothing=0.3, reduction="sum"))
case("cross_entropy_weight_f64", {"x": wave(3, 4, dtype=f64, scale=3.0), "t": torch.tensor([3, 0, 1]),
                                  "w": torch.tensor([1.0, 0.1, 3.0, 0.6], dtype=f64)},
     lambda x, t, w: F.cross_entropy(x, t, weight=w.detach()))

# mse_loss
case("mse_loss", {"x": x23, "y": wave(2, 3, phase=1.3)}, lambda x, y: F.mse_loss(x, y))
case("mse_loss_sum", {"x": x23, "y": wave(2, 3, phase=1.3)}, lambda x, y: F.mse_loss(x, y, reduction="sum"))
case("mse_loss_none", {"x": x23, "y": wave(2, 3, phase=1.3)}, lambda x, y: F.mse_loss(x, y, reduction="none"))


# scaled_dot_product_attention, torch 2.x's documented formula
def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    L, S = q.size(-2), k.size(-2)
    scale_factor = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias.masked_fill_(torch.ones(L, S, dtype=torch.bool).tril(0).logical_not(), -inf)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            bias = bias.masked_fill(attn_mask.logical_not(), -inf)
        else:
            bias = bias + attn_mask
    w = q @ k.transpose(-2, -1) * scale_factor + bias
    dead = w.eq(-inf).all(-1, keepdim=True)
    w = w.masked_fill(dead, 0).softmax(-1).masked_fill(dead, 0)
    if dropout_p > 0:
        w = F.dropout(w, dropout_p, training=True)
    return w @ v


B, H, L, S, E = 2, 2, 3, 4, 4
q, k, v = wave(B, H, L, E), wave(B, H, S, E, phase=1.1), wave(B, H, S, 5, phase=2.2)
case("sdpa", {"q": q, "k": k, "v": v}, lambda q, k, v: sdpa(q, k, v))
case("sdpa_f64", {"q": q.double(), "k": k.double(), "v": v.double()}, lambda q, k, v: sdpa(q, k, v))
case("sdpa_scale", {"q": q, "k": k, "v": v}, lambda q, k, v: sdpa(q, k, v, scale=0.3))
qs = wave(B, H, 4, E, phase=0.4)
case("sdpa_causal", {"q": qs, "k": k, "v": v}, lambda q, k, v: sdpa(q, k, v, is_causal=True))
case("sdpa_causal_rect", {"q": q, "k": k, "v": v}, lambda q, k, v: sdpa(q, k, v, is_causal=True))
# key padding mask (True = take part) broadcast over heads and queries; batch 1's query 2 sees nothing.
bool_mask = torch.tensor([[[[True, True, False, True]]], [[[True, False, True, False]]]]).expand(B, 1, L, S).clone()
bool_mask[1, 0, 2] = False
case("sdpa_bool_mask", {"q": q, "k": k, "v": v, "mask": bool_mask},
     lambda q, k, v, mask: sdpa(q, k, v, attn_mask=mask))
case("sdpa_float_mask", {"q": q, "k": k, "v": v, "mask": wave(L, S, phase=0.8).detach()},
     lambda q, k, v, mask: sdpa(q, k, v, attn_mask=mask.detach()))
case("sdpa_3d", {"q": wave(2, L, E), "k": wave(2, S, E, phase=1.1), "v": wave(2, S, E, phase=2.2)},
     lambda q, k, v: sdpa(q, k, v))
case("sdpa_dropout", {"q": q, "k": k, "v": v}, lambda q, k, v: sdpa(q, k, v, dropout_p=0.25), seed=3)

# ---------------------------------------------------------------------------------------------
# modules.json

MODULES = {"init": {}, "forward": {}}


def params(module):
    return {name: encode(p) for name, p in module.named_parameters()}


def init_case(name, seed, build):
    torch.manual_seed(seed)
    modules = build()
    modules = modules if isinstance(modules, list) else [modules]
    MODULES["init"][name] = {"seed": seed, "params": [params(m) for m in modules]}


init_case("linear_3_2", 123, lambda: nn.Linear(3, 2))
init_case("linear_5_4_no_bias", 0, lambda: nn.Linear(5, 4, bias=False))
init_case("linear_64_48", 7, lambda: nn.Linear(64, 48))
init_case("embedding_10_3", 5, lambda: nn.Embedding(10, 3))
init_case("embedding_padding", 5, lambda: nn.Embedding(10, 3, padding_idx=-2))
init_case("layer_norm", 0, lambda: nn.LayerNorm(4))
# several modules drawn one after another from the same stream
init_case("sequence", 1337, lambda: [nn.Embedding(8, 4), nn.Linear(4, 6), nn.LayerNorm(6), nn.Linear(6, 8)])


def forward_case(name, module, inputs, fn=None):
    """Sets the module's parameters to fixed waves, then runs fn(module, *inputs)."""
    with torch.no_grad():
        for i, (_, p) in enumerate(module.named_parameters()):
            p.copy_(wave(*p.shape, phase=0.3 * i + 0.05, shift=1.0 if p.dim() == 1 and "norm" in name else 0.0))
    inputs = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in inputs]
    out = fn(module, *inputs) if fn else module(*inputs)
    w = wave(*out.shape, phase=0.41)
    (out * w).sum().backward()
    MODULES["forward"][name] = {
        "params": params(module),
        "inputs": [encode(t) for t in inputs],
        "output": encode(out),
        "weight": encode(w),
        "param_grads": {n: encode(p.grad) for n, p in module.named_parameters()},
        "input_grads": [encode(t.grad) if t.grad is not None else None for t in inputs],
    }


forward_case("linear", nn.Linear(4, 3), [wave(2, 5, 4)])
forward_case("embedding_padding", nn.Embedding(6, 3, padding_idx=2), [torch.tensor([[2, 0, 5], [1, 2, 2]])])
forward_case("layernorm", nn.LayerNorm(4), [wave(3, 4, scale=2.0)])
forward_case("mlp_sequential", nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 2), nn.Softmax(dim=-1)),
             [wave(4, 3)])
forward_case("mlp_tanh_relu", nn.Sequential(nn.Linear(3, 5), nn.GELU(approximate="tanh"), nn.ReLU(), nn.Linear(5, 2)),
             [wave(4, 3)])

# Dropout as a module in training mode draws like F.dropout.
torch.manual_seed(11)
drop_in = wave(3, 6)
MODULES["dropout_module"] = {"seed": 11, "input": encode(drop_in), "output": encode(nn.Dropout(0.4)(drop_in))}


if __name__ == "__main__":
    os.makedirs(OUT_DIR, exist_ok=True)
    write(os.path.join(OUT_DIR, "functional.json"), FUNCTIONAL)
    write(os.path.join(OUT_DIR, "modules.json"), MODULES)
