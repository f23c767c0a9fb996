#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_activation_loss.cpp and tests/optim/test_rmsprop_adagrad.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_activation_loss_fixtures.py

tests/fixtures/nn/activation_loss_functional.json
    one case per call of the activations and losses of nn/activation.h and
    nn/loss.h, in the format of gen_nn_fixtures.py (named inputs, output, fixed weights w, and the
    gradients of (out * w).sum() for every floating input that requires grad). Inputs include the
    kinks (0, the bounds of hardtanh, the threshold) and values that overflow exp in float32 (100),
    so the C++ compositions are held to PyTorch's gradient at exactly those points.
tests/fixtures/nn/activation_modules.json
    two Sequentials of the new modules with parameters set to fixed waves; Dropout2d's draws.
tests/fixtures/optim/rmsprop_adagrad.json
    10 steps of RMSprop and Adagrad (foreach=False) on gen_optim_fixtures.py's linear regression,
    in float32 and float64, as optimizers.json holds them for SGD and Adam.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, load_script, record_case, wave, write

optim_fx = load_script("gen_optim_fixtures")  # problem, loss_fn, tensor

# ---------------------------------------------------------------------------------------------
# functional cases

FUNCTIONAL = {}


def case(name, inputs, fn, seed=None, no_grad=()):
    record_case(FUNCTIONAL, name, inputs, fn, seed, no_grad)


# Kinks and extremes: 0, hardtanh's bounds (-0.5, 0.8 below), threshold's 0.5, exp-overflowing 100.
kinks = torch.tensor([-30.0, -1.5, -0.5, 0.0, 0.5, 0.8, 1.0, 25.0, 100.0])
x34 = wave(3, 4, scale=3.0)

for fn_name, fn in [("sigmoid", torch.sigmoid), ("tanh", torch.tanh), ("silu", F.silu), ("mish", F.mish),
                    ("softsign", F.softsign), ("logsigmoid", F.logsigmoid)]:
    case(fn_name, {"x": x34}, lambda x, fn=fn: fn(x))
    case(fn_name + "_kinks", {"x": kinks}, lambda x, fn=fn: fn(x))
case("silu_f64", {"x": wave(2, 5, dtype=f64, scale=4.0)}, lambda x: F.silu(x))
case("elu", {"x": x34}, lambda x: F.elu(x))
case("elu_alpha_kinks", {"x": kinks}, lambda x: F.elu(x, alpha=1.3))
case("selu_kinks", {"x": kinks}, lambda x: F.selu(x))
case("celu_kinks", {"x": kinks}, lambda x: F.celu(x, alpha=0.7))
case("leaky_relu_kinks", {"x": kinks}, lambda x: F.leaky_relu(x, 0.2))
case("leaky_relu_default", {"x": x34}, lambda x: F.leaky_relu(x))
case("prelu_shared", {"x": wave(2, 3, 4, scale=2.0), "w": torch.tensor([0.3])}, lambda x, w: F.prelu(x, w))
case("prelu_channels", {"x": wave(2, 3, 4, scale=2.0), "w": torch.tensor([0.1, -0.2, 0.25])},
     lambda x, w: F.prelu(x, w))
case("prelu_kinks", {"x": kinks, "w": torch.tensor([0.25])}, lambda x, w: F.prelu(x, w))
case("hardtanh_kinks", {"x": kinks}, lambda x: F.hardtanh(x, -0.5, 0.8))
case("hardtanh_default", {"x": x34}, lambda x: F.hardtanh(x))
case("softplus", {"x": x34}, lambda x: F.softplus(x))
case("softplus_kinks", {"x": kinks}, lambda x: F.softplus(x))
case("softplus_beta_threshold", {"x": x34}, lambda x: F.softplus(x, beta=2.0, threshold=1.5))
case("softmin", {"x": wave(2, 3, 4)}, lambda x: F.softmin(x, dim=1))
case("log_softmax_module", {"x": wave(2, 3, 4)}, lambda x: nn.LogSoftmax(dim=-1)(x))
case("threshold_kinks", {"x": kinks}, lambda x: F.threshold(x, 0.5, -2.0))
case("dropout2d_4d", {"x": wave(2, 3, 2, 2)}, lambda x: F.dropout2d(x, p=0.4, training=True), seed=5)
case("dropout2d_3d", {"x": wave(3, 4, 5)}, lambda x: F.dropout2d(x, p=0.5, training=True), seed=9)
# Kinks of the shrinks: lambda itself and its negative, where PyTorch's gradient is 0.
shrink_kinks = torch.tensor([-3.0, -0.5, -0.49, 0.0, 0.3, 0.5, 0.51, 2.0])
case("relu6_kinks", {"x": torch.tensor([-1.0, 0.0, 0.5, 6.0, 7.0, 5.99])}, lambda x: F.relu6(x))
case("relu6", {"x": x34 * 3}, lambda x: F.relu6(x))
case("hardshrink_kinks", {"x": shrink_kinks}, lambda x: F.hardshrink(x))
case("hardshrink_lambda", {"x": x34}, lambda x: F.hardshrink(x, 1.2))
case("softshrink_kinks", {"x": shrink_kinks}, lambda x: F.softshrink(x))
case("softshrink_lambda", {"x": x34}, lambda x: F.softshrink(x, 1.2))
case("tanhshrink", {"x": x34}, lambda x: F.tanhshrink(x))
case("glu_last", {"x": wave(3, 4, scale=2.0)}, lambda x: F.glu(x))
case("glu_dim0", {"x": wave(4, 3, scale=2.0)}, lambda x: F.glu(x, 0))
case("normalize", {"x": x34}, lambda x: F.normalize(x))
case("normalize_p1_dim0", {"x": x34}, lambda x: F.normalize(x, p=1.0, dim=0))
case("normalize_zero_row", {"x": torch.tensor([[0.0, 0.0], [3.0, 4.0]])}, lambda x: F.normalize(x, eps=1e-3))
case("softmax2d", {"x": wave(2, 3, 2, 2)}, lambda x: nn.Softmax2d()(x))
case("dropout3d", {"x": wave(2, 3, 2, 2, 2)}, lambda x: F.dropout3d(x, p=0.4, training=True), seed=13)
case("alpha_dropout", {"x": wave(3, 5)}, lambda x: F.alpha_dropout(x, p=0.3, training=True), seed=17)
case("feature_alpha_dropout", {"x": wave(2, 3, 4)}, lambda x: F.feature_alpha_dropout(x, p=0.5, training=True),
     seed=19)

# ---- losses ----
N = 4
prob = wave(N, 3).sigmoid()
prob_edges = torch.tensor([0.0, 1.0, 0.3, 0.999, 1e-4, 0.5])
tgt01 = wave(N, 3, phase=1.7).add(1).div(2)
tgt_edges = torch.tensor([0.0, 1.0, 1.0, 0.0, 0.0, 0.25])
for red in ["mean", "sum", "none"]:
    case(f"bce_{red}", {"x": prob, "t": tgt01}, lambda x, t, red=red: F.binary_cross_entropy(x, t, reduction=red),
         no_grad=("t",))
case("bce_weight", {"x": prob, "t": tgt01, "w": wave(3, phase=0.3).abs()},
     lambda x, t, w: F.binary_cross_entropy(x, t, weight=w), no_grad=("t", "w"))
case("bce_edges", {"x": prob_edges, "t": tgt_edges},
     lambda x, t: F.binary_cross_entropy(x, t, reduction="sum"), no_grad=("t",))

logits = wave(N, 3, scale=4.0)
logits_big = torch.tensor([[-50.0, 0.0, 50.0], [3.0, -3.0, 100.0]])
for red in ["mean", "sum", "none"]:
    case(f"bce_logits_{red}", {"x": logits, "t": tgt01},
         lambda x, t, red=red: F.binary_cross_entropy_with_logits(x, t, reduction=red))
case("bce_logits_big", {"x": logits_big, "t": torch.tensor([[1.0, 0.0, 0.0], [0.5, 1.0, 1.0]])},
     lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="sum"))
case("bce_logits_weight_pos_weight",
     {"x": logits, "t": tgt01, "w": wave(N, 1, phase=0.9).abs(), "pw": torch.tensor([0.5, 2.0, 3.0])},
     lambda x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw), no_grad=("w", "pw"))

logp = wave(N, 5).log_softmax(-1)
q = wave(N, 5, phase=0.6).softmax(-1)
q_zero = q.clone()
q_zero[0, 1] = 0.0
q_zero[2, 4] = 0.0
for red in ["mean", "sum", "batchmean", "none"]:
    case(f"kl_div_{red}", {"x": logp, "t": q_zero}, lambda x, t, red=red: F.kl_div(x, t, reduction=red),
         no_grad=("t",))
case("kl_div_log_target", {"x": logp, "t": q.log()},
     lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=True))

pred, obs = wave(N, 3, scale=2.0), wave(N, 3, phase=1.3)
case("huber", {"x": pred, "y": obs}, lambda x, y: F.huber_loss(x, y))
case("huber_delta_sum", {"x": pred, "y": obs}, lambda x, y: F.huber_loss(x, y, reduction="sum", delta=0.5))
case("huber_none", {"x": pred, "y": obs}, lambda x, y: F.huber_loss(x, y, reduction="none", delta=1.5))

sign = torch.tensor([1.0, -1.0, -1.0, 1.0, 1.0, -1.0])
case("margin_ranking", {"a": wave(6), "b": wave(6, phase=0.8), "y": sign},
     lambda a, b, y: F.margin_ranking_loss(a, b, y, margin=0.2), no_grad=("y",))
case("margin_ranking_sum", {"a": wave(6), "b": wave(6, phase=0.8), "y": sign},
     lambda a, b, y: F.margin_ranking_loss(a, b, y, reduction="sum"), no_grad=("y",))
case("hinge_embedding", {"x": wave(6, scale=2.0), "y": sign}, lambda x, y: F.hinge_embedding_loss(x, y, margin=1.5),
     no_grad=("y",))
case("hinge_embedding_none", {"x": wave(2, 3), "y": sign.reshape(2, 3)},
     lambda x, y: F.hinge_embedding_loss(x, y, reduction="none"), no_grad=("y",))
case("cosine_embedding", {"a": wave(N, 5), "b": wave(N, 5, phase=0.5), "y": torch.tensor([1, -1, 1, -1])},
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=0.1))
case("cosine_embedding_none", {"a": wave(N, 5), "b": wave(N, 5, phase=0.5), "y": torch.tensor([1, -1, -1, -1])},
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=-0.5, reduction="none"))
case("cosine_embedding_1d", {"a": wave(5), "b": wave(5, phase=0.5), "y": torch.tensor(-1)},
     lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin=-0.2))
anchor, positive, negative = wave(N, 5), wave(N, 5, phase=0.3), wave(N, 5, phase=1.2)
case("triplet", {"a": anchor, "p": positive, "n": negative}, lambda a, p, n: F.triplet_margin_loss(a, p, n))
case("triplet_p1_swap", {"a": anchor, "p": positive, "n": negative},
     lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True, reduction="sum"))
case("triplet_p3_none", {"a": anchor, "p": positive, "n": negative},
     lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=3, eps=1e-3, reduction="none"))
case("pairwise_distance", {"a": anchor, "b": positive}, lambda a, b: F.pairwise_distance(a, b))

counts = torch.tensor([[0.0, 1.0, 3.5], [2.0, 0.5, 7.0], [1.5, 0.0, 4.0], [9.0, 2.5, 1.0]])
case("poisson_nll", {"x": wave(N, 3), "t": counts}, lambda x, t: F.poisson_nll_loss(x, t), no_grad=("t",))
case("poisson_nll_rate_full", {"x": wave(N, 3).abs() + 0.5, "t": counts},
     lambda x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, reduction="sum"), no_grad=("t",))
case("poisson_nll_full_none", {"x": wave(N, 3), "t": counts},
     lambda x, t: F.poisson_nll_loss(x, t, full=True, reduction="none"), no_grad=("t",))

var = wave(N, 3, phase=0.2).abs() + 0.1
var_small = var.clone()
var_small[1, 2] = 1e-8  # below eps: clamped in value, gradient passed through
case("gaussian_nll", {"x": pred, "t": obs, "v": var}, lambda x, t, v: F.gaussian_nll_loss(x, t, v))
case("gaussian_nll_full_sum", {"x": pred, "t": obs, "v": var_small},
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="sum"))
case("gaussian_nll_batch_var", {"x": pred, "t": obs, "v": var[:, 0].clone()},
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, reduction="none"))
case("gaussian_nll_hetero_var", {"x": pred, "t": obs, "v": var[:, :1].clone()},
     lambda x, t, v: F.gaussian_nll_loss(x, t, v, eps=0.3))

# ---------------------------------------------------------------------------------------------
# modules

MODULES = {}


def forward_case(name, module, inputs):
    with torch.no_grad():
        for i, (_, p) in enumerate(module.named_parameters()):
            p.copy_(wave(*p.shape, phase=0.3 * i + 0.05))
    inputs = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in inputs]
    out = module(*inputs)
    w = wave(*out.shape, phase=0.41)
    (out * w).sum().backward()
    MODULES[name] = {
        "param_names": [n for n, _ in module.named_parameters()],
        "params": {n: encode(p) for n, p in module.named_parameters()},
        "inputs": [encode(t) for t in inputs],
        "output": encode(out),
        "weight": encode(w),
        "param_grads": {n: encode(p.grad) for n, p in module.named_parameters()},
        "input_grads": [encode(t.grad) if t.grad is not None else None for t in inputs],
    }


forward_case("activation_stack",
             nn.Sequential(nn.Flatten(), nn.Linear(12, 6), nn.PReLU(6), nn.Linear(6, 8), nn.Mish(), nn.SELU(),
                           nn.Unflatten(1, (2, 4)), nn.Softplus(beta=2.0), nn.Softmin(dim=-1), nn.Identity()),
             [wave(3, 3, 2, 2, scale=2.0)])
forward_case("activation_stack_2",
             nn.Sequential(nn.Linear(5, 6), nn.ELU(alpha=0.5), nn.Linear(6, 6), nn.LeakyReLU(0.1), nn.Hardtanh(-0.7, 0.6),
                           nn.Linear(6, 4), nn.CELU(2.0), nn.Tanh(), nn.Linear(4, 3), nn.LogSigmoid(),
                           nn.Threshold(-0.9, 0.3), nn.SiLU(), nn.Softsign(), nn.Sigmoid(), nn.LogSoftmax(dim=1)),
             [wave(4, 5, scale=2.0)])
torch.manual_seed(21)
d2_in = wave(2, 4, 3, 3)
MODULES["dropout2d_module"] = {"seed": 21, "input": encode(d2_in), "output": encode(nn.Dropout2d(0.3)(d2_in))}
torch.manual_seed(0)
MODULES["prelu_init"] = {"weight": encode(nn.PReLU(4, init=0.1).weight)}

# ---------------------------------------------------------------------------------------------
# optimizers

OPTIM_CASES = {
    "rmsprop": (torch.optim.RMSprop, dict(lr=0.01), None),
    "rmsprop_alpha_wd": (torch.optim.RMSprop, dict(lr=0.005, alpha=0.9, eps=1e-6, weight_decay=0.1), None),
    "rmsprop_momentum": (torch.optim.RMSprop, dict(lr=0.01, momentum=0.9), None),
    "rmsprop_centered": (torch.optim.RMSprop, dict(lr=0.01, centered=True, weight_decay=0.05), None),
    "rmsprop_centered_momentum_maximize": (torch.optim.RMSprop, dict(lr=0.002, momentum=0.5, centered=True,
                                                                    maximize=True), None),
    "adagrad": (torch.optim.Adagrad, dict(lr=0.1), None),
    "adagrad_decay": (torch.optim.Adagrad, dict(lr=0.2, lr_decay=0.05, weight_decay=0.1,
                                                initial_accumulator_value=0.5), None),
    "adagrad_eps_maximize": (torch.optim.Adagrad, dict(lr=0.05, eps=1e-3, maximize=True), None),
    "adagrad_groups": (torch.optim.Adagrad, dict(lr=0.1), [dict(lr_decay=0.1), dict(lr=0.3,
                                                                                     initial_accumulator_value=1.0)]),
}


def optimizers():
    out = {}
    for name, (cls, options, split) in OPTIM_CASES.items():
        for dtype in (f32, f64):
            out[f"{name}_{str(dtype).replace('torch.', '')}"] = optim_fx.run_case(cls, options, split, dtype)
    return out


if __name__ == "__main__":
    torch.set_num_threads(1)
    write(os.path.join(FIXTURES, "nn", "activation_loss_functional.json"), FUNCTIONAL)
    write(os.path.join(FIXTURES, "nn", "activation_modules.json"), MODULES)
    write(os.path.join(FIXTURES, "optim", "rmsprop_adagrad.json"), optimizers())
