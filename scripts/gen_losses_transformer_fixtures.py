#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_losses_transformer.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_losses_transformer_fixtures.py

tests/fixtures/nn/losses_transformer.json, one entry per case:
    loss cases: named inputs, output, fixed weights w
    and the gradients of (out * w).sum() for every floating input that requires grad, in float32 and
    float64 (suffix _f64), in the format of gen_activation_loss_fixtures.py;
    module cases ("module_*"): a TransformerEncoder, TransformerDecoder or Transformer with its
    parameter names, values (drawn after manual_seed(seed) where "seeded" is true, so the C++ draws are
    compared), inputs, output, and the gradients of (out * w).sum() for inputs and parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, wave, write

CASES = {}


def case(name, inputs, fn, no_grad=()):
    """inputs: name -> tensor; floating ones require grad unless listed in no_grad."""
    assert name not in CASES, name
    inputs = {k: v.detach().clone() for k, v in inputs.items()}
    for k, t in inputs.items():
        if t.is_floating_point() and k not in no_grad:
            t.requires_grad_()
    out = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()}, "output": encode(out)}
    w = wave(*out.shape, dtype=out.dtype, phase=0.41) if out.dim() > 0 else torch.tensor(0.7, dtype=out.dtype)
    (out * w).sum().backward()
    entry["weight"] = encode(w)
    entry["grads"] = {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}
    CASES[name] = entry


def both_dtypes(name, make_inputs, fn, no_grad=()):
    for dtype, suffix in [(f32, ""), (f64, "_f64")]:
        case(name + suffix, make_inputs(dtype), fn, no_grad)


# ---- multi_margin_loss: (N, C) scores, int64 classes; a score exactly at the hinge (z = 0) ----
def margin_inputs(dtype):
    x = wave(4, 5, dtype=dtype, scale=1.5)
    x[1, 3] = x[1, 0] - 1.0  # z = margin - x[y] + x[j] = 0 for sample 1 (class 0): no gradient there
    return {"x": x, "y": torch.tensor([2, 0, 4, 2])}


for red in ["mean", "sum", "none"]:
    both_dtypes(f"multi_margin_{red}", margin_inputs, lambda x, y, red=red: F.multi_margin_loss(x, y, reduction=red))
both_dtypes("multi_margin_p2_margin_weight",
            lambda d: dict(margin_inputs(d), w=torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5], dtype=d)),
            lambda x, y, w: F.multi_margin_loss(x, y, p=2, margin=0.7, weight=w), no_grad=("w",))
both_dtypes("multi_margin_1d", lambda d: {"x": wave(6, dtype=d), "y": torch.tensor(3)},
            lambda x, y: F.multi_margin_loss(x, y, reduction="none"))

# ---- soft_margin_loss: labels +-1 ----
sign = torch.tensor([[1.0, -1.0, -1.0, 1.0], [1.0, 1.0, -1.0, -1.0], [-1.0, 1.0, 1.0, -1.0]])
for red in ["mean", "sum", "none"]:
    both_dtypes(f"soft_margin_{red}", lambda d: {"x": wave(3, 4, dtype=d, scale=3.0), "y": sign.to(d)},
                lambda x, y, red=red: F.soft_margin_loss(x, y, reduction=red), no_grad=("y",))

# ---- multilabel_margin_loss: rows of target classes ended by -1 (a repeated class and a full row) ----
ml_target = torch.tensor([[3, 0, -1, 1, 2], [1, -1, 4, 4, 4], [0, 1, 2, 3, 4], [4, 4, 2, -1, -1]])
for red in ["mean", "sum", "none"]:
    both_dtypes(f"multilabel_margin_{red}", lambda d: {"x": wave(4, 5, dtype=d, scale=1.2), "y": ml_target},
                lambda x, y, red=red: F.multilabel_margin_loss(x, y, reduction=red))
both_dtypes("multilabel_margin_1d", lambda d: {"x": wave(5, dtype=d), "y": torch.tensor([2, 4, -1, 0, 0])},
            lambda x, y: F.multilabel_margin_loss(x, y, reduction="none"))

# ---- multilabel_soft_margin_loss: 0/1 (and soft) labels; weight gets a gradient ----
ml_soft = torch.tensor([[1.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 1.0], [0.3, 1.0, 0.0, 0.0, 0.8]])
for red in ["mean", "sum", "none"]:
    both_dtypes(f"multilabel_soft_margin_{red}", lambda d: {"x": wave(3, 5, dtype=d, scale=4.0), "y": ml_soft.to(d)},
                lambda x, y, red=red: F.multilabel_soft_margin_loss(x, y, reduction=red))
both_dtypes("multilabel_soft_margin_weight",
            lambda d: {"x": wave(3, 5, dtype=d, scale=4.0), "y": ml_soft.to(d),
                       "w": torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5], dtype=d)},
            lambda x, y, w: F.multilabel_soft_margin_loss(x, y, weight=w))


# ---- triplet_margin_with_distance_loss: the default distance, a cosine one and swap ----
def triplet_inputs(dtype):
    return {"a": wave(4, 5, dtype=dtype), "p": wave(4, 5, dtype=dtype, phase=0.3),
            "n": wave(4, 5, dtype=dtype, phase=1.2)}


def cosine_distance(x1, x2):
    return 1.0 - F.cosine_similarity(x1, x2)


def l1_distance(x1, x2):
    return (x1 - x2).abs().sum(-1)


for red in ["mean", "sum", "none"]:
    both_dtypes(f"triplet_distance_{red}", triplet_inputs,
                lambda a, p, n, red=red: F.triplet_margin_with_distance_loss(a, p, n, reduction=red))
both_dtypes("triplet_distance_l1_swap", triplet_inputs,
            lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, distance_function=l1_distance, margin=2.5,
                                                                swap=True))
both_dtypes("triplet_distance_custom_margin", triplet_inputs,
            lambda a, p, n: F.triplet_margin_with_distance_loss(
                a, p, n, distance_function=lambda x, y: (x - y).square().sum(-1), margin=0.3, reduction="none"))


# ---- ctc_loss: log_probs (T, N, C) as a leaf (PyTorch's gradient then includes exp(log_probs)) or from logits ----
ctc_padded = torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [3, 3, 1, 2]])
ctc_concat = torch.tensor([0, 1, 1, 2, 3, 0, 2, 2, 0, 1])  # blank 4: [0, 1, 1, 2], [3, 0], [2, 2, 0, 1]
ctc_lengths = {"il": torch.tensor([6, 4, 6]), "tl": torch.tensor([3, 2, 4])}


def ctc_inputs(dtype, targets):
    return dict({"lp": wave(6, 3, 5, dtype=dtype, scale=2.0).log_softmax(2), "t": targets}, **ctc_lengths)


for red in ["mean", "sum", "none"]:
    both_dtypes(f"ctc_padded_{red}", lambda d: ctc_inputs(d, ctc_padded),
                lambda lp, t, il, tl, red=red: F.ctc_loss(lp, t, il, tl, reduction=red))
both_dtypes("ctc_concat_blank4", lambda d: dict(ctc_inputs(d, ctc_concat), tl=torch.tensor([4, 2, 4])),
            lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, blank=4, reduction="sum"))
both_dtypes("ctc_logits", lambda d: dict(ctc_inputs(d, ctc_padded), x=wave(6, 3, 5, dtype=d, scale=2.0)),
            lambda lp, t, il, tl, x: F.ctc_loss(x.log_softmax(2), t, il, tl), no_grad=("lp",))
# Sample 1 cannot fit 3 labels (with a repeat) into 2 steps: its loss is inf, zeroed with its gradient.
both_dtypes("ctc_zero_infinity", lambda d: dict(ctc_inputs(d, ctc_padded), il=torch.tensor([6, 2, 5]),
                                                tl=torch.tensor([4, 3, 0])),
            lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, reduction="none", zero_infinity=True))
# Unbatched: log_probs (T, C), targets (S), 0-d lengths; reduction none gives a 0-d loss.
for red in ("none", "mean"):
    both_dtypes(f"ctc_unbatched_{red}",
                lambda d: {"lp": wave(6, 5, dtype=d, scale=2.0).log_softmax(1), "t": torch.tensor([1, 2, 2]),
                           "il": torch.tensor(5), "tl": torch.tensor(3)},
                lambda lp, t, il, tl, red=red: F.ctc_loss(lp, t, il, tl, reduction=red))


# ---- transformer stacks ----
def module_case(name, seed, make_module, inputs, call, dtype=f32):
    torch.manual_seed(seed)
    module = make_module()
    module = module.to(dtype)
    inputs = [t.detach().clone().to(dtype if t.is_floating_point() else t.dtype) for t in inputs]
    for t in inputs:
        if t.is_floating_point():
            t.requires_grad_()
    out = call(module, *inputs)
    w = wave(*out.shape, dtype=dtype, phase=0.5)
    (out * w).sum().backward()
    CASES[name] = {
        "seed": seed,
        "param_names": [n for n, _ in module.named_parameters()],
        "params": {n: encode(p) for n, p in module.named_parameters()},
        "inputs": [encode(t) for t in inputs],
        "output": encode(out),
        "weight": encode(w),
        "param_grads": {n: encode(p.grad) for n, p in module.named_parameters() if p.grad is not None},
        "input_grads": [encode(t.grad) if t.grad is not None else None for t in inputs],
    }


def encoder():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0)
    return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4))


def decoder():
    layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0.0, activation="gelu")
    return nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(4))


def transformer():
    return nn.Transformer(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=6,
                          dropout=0.0, activation="gelu")


causal3 = nn.Transformer.generate_square_subsequent_mask(3)
causal4 = nn.Transformer.generate_square_subsequent_mask(4)
padding = torch.tensor([[False, False, False, True], [False, False, False, False]])
src, tgt = wave(4, 2, 4, phase=0.2), wave(3, 2, 4, phase=1.1)
module_case("module_encoder", 3, encoder, [src],
            lambda m, s: m(s, mask=causal4, src_key_padding_mask=padding))
module_case("module_decoder", 4, decoder, [tgt, src],
            lambda m, t, s: m(t, s, tgt_mask=causal3, memory_key_padding_mask=padding))
for dtype, suffix in [(f32, ""), (f64, "_f64")]:
    module_case("module_transformer" + suffix, 5, transformer, [src, tgt],
                lambda m, s, t: m(s, t, tgt_mask=causal3.to(t.dtype), src_key_padding_mask=padding,
                                  memory_key_padding_mask=padding), dtype)


# ---- MultiheadAttention's other options: kdim/vdim (separate projections), bias_k/bias_v with a zero
# attention, per-head weights ----
mha_q, mha_k, mha_v = wave(4, 2, 8, phase=0.3), wave(6, 2, 5, phase=1.3), wave(6, 2, 3, phase=2.3)
mha_padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
module_case("module_mha_kdim_vdim", 8, lambda: nn.MultiheadAttention(8, 2, kdim=5, vdim=3),
            [mha_q, mha_k, mha_v], lambda m, q, k, v: m(q, k, v, key_padding_mask=mha_padding)[0])
mha_bool_mask = torch.tensor([[False, True, False, False, False], [False, False, True, True, False],
                              [True, False, False, False, False]])
module_case("module_mha_bias_kv_zero_attn", 9,
            lambda: nn.MultiheadAttention(8, 4, add_bias_kv=True, add_zero_attn=True),
            [wave(3, 2, 8, phase=0.1), wave(5, 2, 8, phase=0.9), wave(5, 2, 8, phase=1.7)],
            lambda m, q, k, v: m(q, k, v, attn_mask=mha_bool_mask)[0])
module_case("module_mha_weights_per_head", 10, lambda: nn.MultiheadAttention(6, 3, bias=False),
            [wave(4, 2, 6, phase=0.4)], lambda m, x: m(x, x, x, average_attn_weights=False)[1])


# ---- AdaptiveLogSoftmaxWithLoss: seeded draws; targets in the shortlist and in both clusters ----
def adaptive(head_bias=False):
    return nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=head_bias)


hidden = wave(5, 8, scale=2.0, phase=0.7)
adaptive_targets = torch.tensor([0, 4, 9, 2, 7])
module_case("module_adaptive", 6, adaptive, [hidden, adaptive_targets], lambda m, x, t: m(x, t).output)
module_case("module_adaptive_head_bias", 7, lambda: adaptive(True), [hidden, adaptive_targets],
            lambda m, x, t: m(x, t).output)
module_case("module_adaptive_one_sample", 6, adaptive, [hidden[2], torch.tensor(8)], lambda m, x, t: m(x, t).output)
module_case("module_adaptive_log_prob", 6, adaptive, [hidden], lambda m, x: m.log_prob(x))
torch.manual_seed(6)
with torch.no_grad():
    m = adaptive()
    m.head.weight[0].mul_(-1.0)  # moves some rows' best head entry into a cluster
    CASES["adaptive_predict"] = {"head_weight": encode(m.head.weight), "loss": m(hidden, adaptive_targets).loss.item(),
                                 "output": encode(m.predict(wave(7, 8, scale=3.0, phase=0.1)))}

if __name__ == "__main__":
    write(f"{FIXTURES}/nn/losses_transformer.json", CASES)
