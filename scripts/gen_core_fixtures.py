#!/usr/bin/env python3
"""Writes tests/fixtures/core_ops.json: forward values and gradients of Ember's core ops, from PyTorch.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_core_fixtures.py
Inputs are deterministic (sin of a ramp, no RNG). For every case the fixture holds the inputs, the
outputs, and, where the op is differentiable, fixed weights w_k per output and the gradients of
sum_k (out_k * w_k).sum() with respect to each floating-point input. tests/core/test_reference_ops.cpp
maps each case name to the same op written in C++; it never runs Python.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

import fixture_common

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "core_ops.json")
f32, f64, i64 = torch.float32, torch.float64, torch.int64
inf = float("inf")


def encode(t):
    return dict(fixture_common.encode(t), requires_grad=t.requires_grad)


def wave(*shape, dtype=f32, phase=0.0, scale=1.0, shift=0.0):
    """Irregular values in [shift - scale, shift + scale]: sin of a ramp."""
    n = math.prod(shape)
    x = torch.arange(n, dtype=f64).mul(0.731).add(0.3 + phase).sin() * scale + shift
    return x.to(dtype).reshape(shape)


def pos(*shape, dtype=f32, phase=0.0):
    """Values in [0.4, 2.0], safe for log, sqrt, division."""
    return wave(*shape, dtype=dtype, phase=phase, scale=0.8, shift=1.2)


CASES = {}


def case(name, inputs, fn, grad=True):
    assert name not in CASES, name
    inputs = [t.detach().clone() for t in inputs]
    if grad:
        for t in inputs:
            if t.is_floating_point():
                t.requires_grad_()
    outs = fn(*inputs)
    outs = [outs] if isinstance(outs, torch.Tensor) else list(outs)
    weights, loss = [], None
    for k, o in enumerate(outs):
        if o.requires_grad:
            w = wave(*o.shape, dtype=o.dtype, phase=0.37 * k + 0.11)
            term = (o * w).sum()
            loss = term if loss is None else loss + term
            weights.append(encode(w))
        else:
            weights.append(None)
    grads = [None] * len(inputs)
    if loss is not None:
        loss.backward()
        grads = [encode(t.grad) if t.grad is not None else None for t in inputs]
    CASES[name] = {
        "inputs": [encode(t) for t in inputs],
        "outputs": [encode(o) for o in outs],
        "weights": weights,
        "grads": grads,
    }


A, B, R = wave(2, 3), wave(2, 3, phase=1.0), wave(3, phase=2.0)
A64, B64 = wave(2, 3, dtype=f64), wave(2, 3, dtype=f64, phase=1.0)
P, P64 = pos(2, 3), pos(2, 3, dtype=f64)
I = torch.tensor([[3, -2, 7], [0, 5, -4]])
J = torch.tensor([2, -3, 4])
X3 = wave(2, 3, 4)
CMP_A = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
CMP_B = torch.tensor([2.0, 2.0, 2.0])
M = torch.tensor([[True, False, True], [False, False, True]])
N = torch.tensor([True, True, False])

# ---- elementwise binary, with broadcasting, scalars, promotion and non-contiguous inputs ----
case("add", [A, B], lambda a, b: a + b)
case("add_broadcast", [wave(2, 1, 3), wave(4, 3, phase=1.0)], lambda a, b: a + b)
case("add_alpha_f64", [A64, B64], lambda a, b: a.add(b, alpha=2.5))
case("add_scalar", [A], lambda a: a + 1.5)
case("add_int64", [I, J], lambda a, b: a + b)
case("add_int_float_promotion", [I, A], lambda i, a: i + a)
case("sub", [A, R], lambda a, b: a - b)
case("sub_alpha", [A, B], lambda a, b: a.sub(b, alpha=0.5))
case("rsub_scalar", [A], lambda a: 2 - a)
case("mul_broadcast_f64", [wave(3, 1, dtype=f64), wave(1, 4, dtype=f64, phase=1.0)], lambda a, b: a * b)
case("mul_transposed", [wave(3, 2), B], lambda a, b: a.t() * b)
case("mul_scalar", [A], lambda a: a * -3)
case("div", [A, P], lambda a, b: a / b)
case("div_transposed_broadcast", [wave(3, 2), pos(3, 1)], lambda a, b: a.t() / b.t())
case("div_scalar", [A], lambda a: a / 4)
case("rdiv_scalar", [P], lambda p: 2 / p)
case("div_int64", [I, J], lambda a, b: a / b)
case("pow_tensor", [P, B], lambda p, b: p.pow(b))
case("pow_scalar_2", [A], lambda a: a.pow(2))
case("pow_scalar_frac_f64", [P64], lambda p: p.pow(2.5))
case("pow_scalar_neg", [P], lambda p: p.pow(-1.5))
case("maximum", [A, R], lambda a, b: torch.maximum(a, b))
case("minimum_f64", [A64, B64], lambda a, b: torch.minimum(a, b))
case("maximum_ties", [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 3.0])], lambda a, b: torch.maximum(a, b))

# ---- elementwise unary ----
case("neg", [A], lambda a: a.neg())
case("exp", [A], lambda a: a.exp())
case("exp_transposed_f64", [wave(3, 2, dtype=f64)], lambda a: a.t().exp())
case("log", [P], lambda p: p.log())
case("log1p_f64", [P64], lambda p: p.log1p())
case("sqrt", [P], lambda p: p.sqrt())
case("rsqrt_f64", [P64], lambda p: p.rsqrt())
case("abs", [A], lambda a: a.abs())
case("sign", [A], lambda a: a.sign())
case("square", [A], lambda a: a.square())
case("reciprocal", [A], lambda a: (a + 2).reciprocal())
case("sin", [A], lambda a: a.sin())
case("cos_f64", [A64], lambda a: a.cos())
case("erf", [A], lambda a: a.erf())
case("erf_f64", [wave(2, 3, dtype=f64, scale=3.0)], lambda a: a.erf())
case("tanh", [wave(2, 3, scale=3.0)], lambda a: a.tanh())
case("sigmoid", [wave(2, 3, scale=4.0)], lambda a: a.sigmoid())
case("sigmoid_f64", [wave(2, 3, dtype=f64, scale=4.0)], lambda a: a.sigmoid())
case("relu", [A], lambda a: a.relu())
case("gelu", [wave(2, 3, scale=3.0)], lambda a: F.gelu(a))
case("gelu_f64", [wave(2, 3, dtype=f64, scale=3.0)], lambda a: F.gelu(a))
case("gelu_tanh", [wave(2, 3, scale=3.0)], lambda a: F.gelu(a, approximate="tanh"))
case("gelu_tanh_f64", [wave(2, 3, dtype=f64, scale=3.0)], lambda a: F.gelu(a, approximate="tanh"))
case("clamp", [A], lambda a: a.clamp(-0.5, 0.5))
case("clamp_min", [A], lambda a: a.clamp(min=0.1))
case("clamp_max_f64", [A64], lambda a: a.clamp(max=-0.2))
case("unary_chain_sliced", [wave(4, 6)], lambda a: a[1:, ::2].tanh().exp())

# ---- comparisons and logical ops (bool results, no gradient) ----
case("eq", [CMP_A, CMP_B], lambda a, b: a.eq(b), grad=False)
case("ne", [CMP_A, CMP_B], lambda a, b: a.ne(b), grad=False)
case("lt", [CMP_A, CMP_B], lambda a, b: a.lt(b), grad=False)
case("le", [CMP_A, CMP_B], lambda a, b: a.le(b), grad=False)
case("gt", [CMP_A, CMP_B], lambda a, b: a.gt(b), grad=False)
case("ge", [CMP_A, CMP_B], lambda a, b: a.ge(b), grad=False)
case("eq_scalar", [CMP_A], lambda a: a.eq(2), grad=False)
case("ne_scalar", [CMP_A], lambda a: a.ne(2), grad=False)
case("lt_scalar", [CMP_A], lambda a: a.lt(2.5), grad=False)
case("le_scalar", [CMP_A], lambda a: a.le(2), grad=False)
case("gt_scalar", [CMP_A], lambda a: a.gt(1.5), grad=False)
case("ge_scalar", [CMP_A], lambda a: a.ge(2), grad=False)
case("lt_int64", [I, J], lambda a, b: a.lt(b), grad=False)
case("logical_and", [M, N], lambda a, b: a.logical_and(b), grad=False)
case("logical_or", [M, N], lambda a, b: a.logical_or(b), grad=False)
case("logical_xor", [M, N], lambda a, b: a.logical_xor(b), grad=False)
case("logical_not", [M], lambda a: a.logical_not(), grad=False)
case("logical_and_float", [CMP_A - 2, CMP_B], lambda a, b: a.logical_and(b), grad=False)
case("where", [M, A, R], lambda c, a, b: torch.where(c, a, b))
case("where_broadcast_cond", [N, A64, B64], lambda c, a, b: torch.where(c, a, b))
case("masked_fill", [A, N], lambda a, m: a.masked_fill(m, -1.5))
case("masked_fill_neg_inf", [A, M], lambda a, m: a.masked_fill(m, -inf).softmax(-1))

# ---- reductions ----
case("sum_all", [X3], lambda x: x.sum())
case("sum_dim1", [X3], lambda x: x.sum(1))
case("sum_dims_keepdim", [X3], lambda x: x.sum((0, 2), keepdim=True))
case("sum_neg_dim_f64", [wave(2, 3, 4, dtype=f64)], lambda x: x.sum(-1))
case("sum_transposed", [wave(3, 4)], lambda x: x.t().sum(0))
case("sum_int64", [I], lambda x: x.sum(0))
case("sum_bool", [M], lambda x: x.sum())
case("mean_all", [X3], lambda x: x.mean())
case("mean_dim_keepdim", [X3], lambda x: x.mean(1, keepdim=True))
case("mean_dims_f64", [wave(2, 3, 4, dtype=f64)], lambda x: x.mean((0, 2)))
case("var_all", [X3], lambda x: x.var())
case("var_dim_biased", [X3], lambda x: x.var(1, unbiased=False))
case("var_keepdim_f64", [wave(2, 3, 4, dtype=f64)], lambda x: x.var((0, 2), keepdim=True))
case("std_all", [X3], lambda x: x.std())
case("std_dim_keepdim", [X3], lambda x: x.std(-1, keepdim=True))
case("max_all", [X3], lambda x: x.max())
case("min_all", [X3], lambda x: x.min())
case("max_all_ties", [torch.tensor([[1.0, 3.0], [3.0, 2.0]])], lambda x: x.max())
case("max_dim", [X3], lambda x: x.max(1))
case("min_dim_keepdim", [X3], lambda x: x.min(0, keepdim=True))
case("max_dim_int64", [I], lambda x: x.max(1), grad=False)
case("amax", [X3], lambda x: x.amax((0, 2)))
case("amin_keepdim", [X3], lambda x: x.amin(1, keepdim=True))
case("argmax_all", [X3], lambda x: x.argmax(), grad=False)
case("argmax_dim", [X3], lambda x: x.argmax(1), grad=False)
case("argmax_keepdim", [X3], lambda x: x.argmax(-1, keepdim=True), grad=False)
case("argmin_dim", [X3], lambda x: x.argmin(0), grad=False)
case("argmax_ties", [torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])], lambda x: x.argmax(1), grad=False)
case("logsumexp", [X3], lambda x: x.logsumexp(1))
case("logsumexp_keepdim_f64", [wave(2, 3, 4, dtype=f64, scale=20.0)], lambda x: x.logsumexp((0, 2), keepdim=True))
case("norm_2", [X3], lambda x: x.norm())
case("norm_1_f64", [wave(2, 3, dtype=f64)], lambda x: x.norm(1))
case("all_full", [M], lambda x: x.all(), grad=False)
case("any_full", [M], lambda x: x.any(), grad=False)
case("all_dim", [M], lambda x: x.all(1), grad=False)
case("any_dim_keepdim", [M], lambda x: x.any(0, keepdim=True), grad=False)
case("all_float", [CMP_A - 2], lambda x: x.all(0), grad=False)

# ---- matmul in every form ----
case("matmul_1d_1d", [wave(3), wave(3, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_2d_1d", [wave(2, 3), wave(3, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_1d_2d", [wave(3), wave(3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_2d_2d", [wave(2, 3), wave(3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_3d_3d", [wave(2, 2, 3), wave(2, 3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_3d_2d", [wave(2, 2, 3), wave(3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_2d_3d", [wave(2, 3), wave(2, 3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_broadcast_4d", [wave(2, 1, 2, 3), wave(3, 3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_1d_3d", [wave(3), wave(2, 3, 4, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_3d_1d_f64", [wave(2, 2, 3, dtype=f64), wave(3, dtype=f64, phase=1.0)], lambda a, b: a.matmul(b))
case("matmul_transposed", [wave(3, 2), wave(4, 3, phase=1.0)], lambda a, b: a.t().matmul(b.t()))
case("mm", [wave(4, 3), wave(3, 5, phase=1.0)], lambda a, b: a.mm(b))
case("mm_f64", [wave(4, 3, dtype=f64), wave(3, 5, dtype=f64, phase=1.0)], lambda a, b: a.mm(b))
case("bmm", [wave(2, 3, 4), wave(2, 4, 2, phase=1.0)], lambda a, b: a.bmm(b))
case("bmm_transposed", [wave(2, 4, 3), wave(2, 4, 2, phase=1.0)], lambda a, b: a.transpose(1, 2).bmm(b))

# ---- softmax family ----
MASKED = wave(3, 4, scale=2.0).masked_fill(torch.tensor([[False, True, False, True],
                                                          [False, False, False, True],
                                                          [True, True, True, False]]), -inf)
case("softmax_last", [wave(2, 3, 4, scale=3.0)], lambda x: x.softmax(-1))
case("softmax_dim0", [wave(2, 3, 4, scale=3.0)], lambda x: x.softmax(0))
case("softmax_dim1_f64", [wave(2, 3, 4, dtype=f64, scale=3.0)], lambda x: x.softmax(1))
case("softmax_transposed", [wave(4, 3, scale=3.0)], lambda x: x.t().softmax(-1))
case("softmax_large_values", [wave(2, 5, scale=300.0)], lambda x: x.softmax(-1))
case("log_softmax_last", [wave(2, 3, 4, scale=3.0)], lambda x: x.log_softmax(-1))
case("log_softmax_dim0_f64", [wave(2, 3, 4, dtype=f64, scale=3.0)], lambda x: x.log_softmax(0))
case("softmax_masked", [MASKED], lambda x: x.softmax(-1))
case("log_softmax_masked", [MASKED], lambda x: x.log_softmax(-1))
case("softmax_fully_masked_row", [torch.tensor([[1.0, 2.0], [-inf, -inf]])], lambda x: x.softmax(-1), grad=False)

# ---- triangles ----
case("tril", [wave(3, 4)], lambda x: x.tril())
case("tril_diag1", [wave(3, 4)], lambda x: x.tril(1))
case("tril_diag_neg1_f64", [wave(4, 3, dtype=f64)], lambda x: x.tril(-1))
case("triu", [wave(3, 4)], lambda x: x.triu())
case("triu_diag2", [wave(3, 4)], lambda x: x.triu(2))
case("triu_batched", [wave(2, 3, 3)], lambda x: x.triu(-1))

# ---- joining and splitting ----
case("cat_dim0", [wave(2, 3), wave(1, 3, phase=1.0)], lambda a, b: torch.cat([a, b], 0))
case("cat_dim1", [wave(2, 3), wave(2, 2, phase=1.0)], lambda a, b: torch.cat([a, b], 1))
case("cat_neg_dim_3d", [wave(2, 1, 3), wave(2, 1, 2, phase=1.0), wave(2, 1, 1, phase=2.0)],
     lambda a, b, c: torch.cat([a, b, c], -1))
case("cat_transposed", [wave(3, 2), wave(2, 2, phase=1.0)], lambda a, b: torch.cat([a.t(), b], 1))
case("cat_int64", [I, J.reshape(1, 3)], lambda a, b: torch.cat([a, b], 0))
case("stack_dim0", [wave(2, 3), wave(2, 3, phase=1.0)], lambda a, b: torch.stack([a, b], 0))
case("stack_dim1", [wave(2, 3), wave(2, 3, phase=1.0)], lambda a, b: torch.stack([a, b], 1))
case("stack_neg_dim", [wave(2, 3), wave(2, 3, phase=1.0), wave(2, 3, phase=2.0)],
     lambda a, b, c: torch.stack([a, b, c], -1))
case("split", [wave(5, 3)], lambda x: x.split(2, 0))
case("split_dim1", [wave(2, 5)], lambda x: x.split(3, 1))
case("split_with_sizes", [wave(6, 2)], lambda x: x.split([1, 3, 2], 0))
case("chunk", [wave(5, 3)], lambda x: x.chunk(3, 0))
case("chunk_dim1", [wave(2, 6)], lambda x: x.chunk(4, 1))

# ---- indexing ----
IDX3 = torch.tensor([2, 0, 2])
case("index_select_dim0", [wave(4, 3), IDX3], lambda x, i: x.index_select(0, i))
case("index_select_dim1", [wave(2, 4), IDX3], lambda x, i: x.index_select(1, i))
case("gather_dim1", [wave(3, 4), torch.tensor([[0, 3], [1, 1], [2, 0]])], lambda x, i: x.gather(1, i))
case("gather_dim0", [wave(3, 4), torch.tensor([[2, 0, 1, 2], [0, 0, 2, 1]])], lambda x, i: x.gather(0, i))
case("scatter_add_dim0", [wave(3, 4), torch.tensor([[2, 0, 1, 2], [2, 1, 0, 2]]), wave(2, 4, phase=1.0)],
     lambda s, i, src: s.scatter_add(0, i, src))
case("scatter_add_dim1", [wave(2, 3), torch.tensor([[0, 0, 2, 1], [1, 2, 2, 0]]), wave(2, 4, phase=1.0)],
     lambda s, i, src: s.scatter_add(1, i, src))
case("index_add_dim0", [wave(4, 3), torch.tensor([0, 2, 0]), wave(3, 3, phase=1.0)],
     lambda s, i, src: s.index_add(0, i, src))
case("index_add_dim1_f64", [wave(2, 4, dtype=f64), torch.tensor([3, 1]), wave(2, 2, dtype=f64, phase=1.0)],
     lambda s, i, src: s.index_add(1, i, src))
case("embedding", [wave(5, 3), torch.tensor([[4, 0, 1], [1, 1, 3]])], lambda w, i: F.embedding(i, w))
case("embedding_padding", [wave(5, 3), torch.tensor([[4, 0, 1], [1, 1, 3]])],
     lambda w, i: F.embedding(i, w, padding_idx=1))
case("one_hot", [torch.tensor([0, 2, 1, 3])], lambda i: F.one_hot(i), grad=False)
case("one_hot_classes_2d", [torch.tensor([[0, 2], [1, 0]])], lambda i: F.one_hot(i, 5), grad=False)

# ---- creation ----
case("arange_int", [], lambda: torch.arange(5))
case("arange_start_step", [], lambda: torch.arange(-3, 7, 2))
case("arange_float", [], lambda: torch.arange(0.0, 1.0, 0.1))
case("arange_neg_step", [], lambda: torch.arange(5.0, -1.0, -1.5))
case("arange_f64", [], lambda: torch.arange(1, 2.5, 0.25, dtype=f64))
case("linspace", [], lambda: torch.linspace(0, 1, 5))
case("linspace_f64", [], lambda: torch.linspace(-2, 3, 7, dtype=f64))
case("linspace_one_step", [], lambda: torch.linspace(2, 5, 1))
case("eye", [], lambda: torch.eye(3))
case("eye_rect", [], lambda: torch.eye(2, 4))

if __name__ == "__main__":
    # One case per line, so a regenerated fixture diffs case by case.
    lines = [f"{json.dumps(k)}: {json.dumps(v, allow_nan=False)}" for k, v in CASES.items()]
    with open(OUT, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {len(CASES)} cases to {os.path.normpath(OUT)}")
