#!/usr/bin/env python3
"""Writes tests/fixtures/autograd/*.json: PyTorch's numbers for the autograd tour and behaviour tests.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_autograd_fixtures.py
  tour.json       the micrograd README expression, Karpathy's tanh neuron and one attention head
                  (examples/autograd_tour.cpp prints them; tests/examples/test_examples_autograd.cpp compares)
  behaviour.json  hooks, retain_grad and gradient accumulation (tests/autograd/test_autograd_behaviour.cpp)
Each case keeps the snippet that produced it, so the C++ test can be read beside it.
"""
import json
import os

import torch

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "autograd")
f64 = torch.float64


def scalar(v):
    return torch.tensor(v, dtype=f64, requires_grad=True)


def values(t):
    return t.detach().reshape(-1).tolist()


def micrograd():
    # The expression from micrograd's README, with 0-dim float64 tensors.
    a, b = scalar(-4.0), scalar(2.0)
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    return {"g": g.item(), "a_grad": a.grad.item(), "b_grad": b.grad.item()}


def neuron():
    # o = tanh(x1 w1 + x2 w2 + b), the neuron of "The spelled-out intro to backpropagation".
    x1, x2, w1, w2 = scalar(2.0), scalar(0.0), scalar(-3.0), scalar(1.0)
    b = scalar(6.8813735870195432)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    o.backward()
    return {"n": n.item(), "o": o.item(), "x1_grad": x1.grad.item(), "w1_grad": w1.grad.item(),
            "x2_grad": x2.grad.item(), "w2_grad": w2.grad.item(), "b_grad": b.grad.item()}


def attention():
    # One causal self-attention head, T=3, C=4, HS=2, weights from sin ramps (no RNG).
    def weights(rows, cols, phase):
        w = ((torch.arange(rows * cols, dtype=f64) * 0.7 + phase).sin() * 0.5).view(rows, cols)
        return w.requires_grad_()

    x = weights(3, 4, 0.1)
    wq, wk, wv = weights(4, 2, 0.2), weights(4, 2, 0.3), weights(4, 2, 0.4)
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.t() / 2**0.5
    future = torch.ones(3, 3, dtype=torch.bool).triu(1)
    out = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
    out.sum().backward()
    # str(): Ember prints in PyTorch's format, so the tour's text must match these exactly.
    return {"out_str": str(out), "wq_grad_str": str(wq.grad)}


def hooks():
    # Hook order and the values they see; retain_grad registered before and after a hook.
    out = {}
    for order in ("retain_first", "hook_first"):
        calls = []
        x = torch.tensor([1.0, 2.0, 3.0], dtype=f64, requires_grad=True)
        x.register_hook(lambda g: calls.append(("x", values(g))) or g * 10)
        y = x * x
        if order == "retain_first":
            y.retain_grad()
        y.register_hook(lambda g: calls.append(("y", values(g))) or g * 2)
        if order == "hook_first":
            y.retain_grad()
        z = (y * torch.tensor([1.0, 2.0, 3.0], dtype=f64)).sum()
        z.backward()
        out[order] = {"calls": [name for name, _ in calls], "call_grads": [g for _, g in calls],
                      "y_grad": values(y.grad), "x_grad": values(x.grad)}
    return out


def accumulation():
    # Two backward calls add into .grad; an explicit gradient for a non-scalar output.
    x = torch.tensor([1.0, -2.0], dtype=f64, requires_grad=True)
    (x * x).sum().backward()
    first = values(x.grad)
    (x * 3).sum().backward()
    second = values(x.grad)
    y = x.exp()
    x.grad = None
    y.backward(torch.tensor([1.0, 0.5], dtype=f64))
    return {"first": first, "second": second, "explicit": values(x.grad)}


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    with open(os.path.join(OUT_DIR, "tour.json"), "w") as f:
        json.dump({"micrograd": micrograd(), "neuron": neuron(), "attention": attention()}, f, indent=1)
    with open(os.path.join(OUT_DIR, "behaviour.json"), "w") as f:
        json.dump({"hooks": hooks(), "accumulation": accumulation()}, f, indent=1)


if __name__ == "__main__":
    main()
