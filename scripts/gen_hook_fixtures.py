#!/usr/bin/env python3
"""Writes tests/fixtures/hooks/*.json: what PyTorch's gradient hooks see and do, for tests/autograd/test_hooks.cpp.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_hook_fixtures.py
  tensor_hooks.json  Tensor.register_hook on leaves and non-leaves (inspect, modify by returning,
                     several hooks in a row, removal through the handle, a tensor used twice) and
                     retain_grad (non-leaf, two backward calls, on a leaf). Each case lists the hook
                     calls in order with the gradient each one saw, then the .grad of every tensor.
  node_order.json    the order in which the engine runs the nodes of a small MLP and of one causal
                     attention head, with each node's PyTorch name, the gradients flowing in and
                     the gradients it produced (one per next edge, null where none).
Everything is float64 and deterministic (sin ramps, no RNG). The comment above each case is the
PyTorch snippet; the C++ test repeats it line for line.
"""
import json
import os

import torch
import torch.nn.functional as F

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "hooks")
f64 = torch.float64


def encode(t):
    if t is None:
        return None
    return {"shape": list(t.shape), "dtype": "float64", "values": t.detach().reshape(-1).tolist()}


def leaf(*values):
    return torch.tensor(values, dtype=f64, requires_grad=True)


def ramp(rows, cols, phase, scale=0.5):
    return ((torch.arange(rows * cols, dtype=f64) * 0.7 + phase).sin() * scale).view(rows, cols)


class Recorder:
    """Hooks that append (name, gradient seen) to one list, then return what `fn` makes of it."""

    def __init__(self):
        self.calls = []

    def hook(self, name, fn=lambda g: None):
        def h(g):
            self.calls.append({"name": name, "grad": encode(g)})
            return fn(g)
        return h


def case(rec, **grads):
    return {"calls": rec.calls, **{k: encode(v) for k, v in grads.items()}}


# ---------------------------------------------------------------------------------------------
# tensor_hooks.json

def tensor_hooks():
    out = {}
    c = torch.tensor([1.0, 2.0, 3.0], dtype=f64)

    # x = [1, 2, 3] (leaf); x.register_hook(inspect); ((x * x) * c).sum().backward()
    rec = Recorder()
    x = leaf(1.0, 2.0, 3.0)
    x.register_hook(rec.hook("x"))
    ((x * x) * c).sum().backward()
    out["leaf_inspect"] = case(rec, x_grad=x.grad)

    # the same with x.register_hook(lambda g: g * 2): the leaf's .grad is the hook's result
    rec = Recorder()
    x = leaf(1.0, 2.0, 3.0)
    x.register_hook(rec.hook("x", lambda g: g * 2))
    ((x * x) * c).sum().backward()
    out["leaf_modify"] = case(rec, x_grad=x.grad)

    # y = x.exp() (non-leaf); y.register_hook(lambda g: g + 1); (y * c).sum().backward()
    rec = Recorder()
    x = leaf(0.5, -1.0, 2.0)
    y = x.exp()
    y.register_hook(rec.hook("y", lambda g: g + 1))
    (y * c).sum().backward()
    out["nonleaf_modify"] = case(rec, x_grad=x.grad)

    # Three hooks on y = x.sin(), then two on x: each sees what the one before returned.
    # y hooks: g * 2, inspect, g - 1; x hooks: inspect, g * 10
    rec = Recorder()
    x = leaf(0.3, 1.1, -0.7)
    y = x.sin()
    y.register_hook(rec.hook("y1", lambda g: g * 2))
    y.register_hook(rec.hook("y2"))
    y.register_hook(rec.hook("y3", lambda g: g - 1))
    x.register_hook(rec.hook("x1"))
    x.register_hook(rec.hook("x2", lambda g: g * 10))
    (y * c).sum().backward()
    out["several_hooks_in_order"] = case(rec, x_grad=x.grad)

    # Removal through the handle: h = y.register_hook(g * 100); x's hook too; both removed, one kept.
    rec = Recorder()
    x = leaf(1.0, 2.0, 3.0)
    y = x * 3
    h1 = y.register_hook(rec.hook("y_removed", lambda g: g * 100))
    y.register_hook(rec.hook("y_kept", lambda g: g * 2))
    h2 = x.register_hook(rec.hook("x_removed", lambda g: g * 100))
    h1.remove()
    h2.remove()
    (y * c).sum().backward()
    out["removed_hooks"] = case(rec, x_grad=x.grad)

    # A tensor used twice: its hook runs once, on the sum of both uses' gradients.
    # x used twice by x * x; y = x * 2 used by y * y and y.sin()
    rec = Recorder()
    x = leaf(0.5, 1.5, -1.0)
    x.register_hook(rec.hook("x"))
    y = x * 2
    y.register_hook(rec.hook("y"))
    ((y * y) + y.sin() + x * x).sum().backward()
    out["used_twice"] = case(rec, x_grad=x.grad)

    # retain_grad on a non-leaf: y.grad is kept; x.grad as usual.
    x = leaf(1.0, 2.0, 3.0)
    y = x * x
    y.retain_grad()
    (y * c).sum().backward()
    out["retain_grad_nonleaf"] = {"retains_grad": y.retains_grad, **case(Recorder(), y_grad=y.grad, x_grad=x.grad)}

    # Two backward calls through the same graph (retain_graph=True): y.grad accumulates, like x.grad,
    # and y's hook runs once per backward.
    rec = Recorder()
    x = leaf(1.0, 2.0, 3.0)
    y = x.tanh()
    y.retain_grad()
    y.register_hook(rec.hook("y"))
    loss = (y * c).sum()
    loss.backward(retain_graph=True)
    first_y, first_x = y.grad.clone(), x.grad.clone()
    loss.backward()
    out["retain_grad_two_backwards"] = case(rec, first_y_grad=first_y, first_x_grad=first_x, y_grad=y.grad,
                                            x_grad=x.grad)

    # retain_grad on a leaf does nothing: retains_grad stays False, .grad is the ordinary leaf grad.
    x = leaf(1.0, 2.0, 3.0)
    x.retain_grad()
    (x * c).sum().backward()
    out["retain_grad_leaf"] = {"retains_grad": x.retains_grad, **case(Recorder(), x_grad=x.grad)}
    return out


# ---------------------------------------------------------------------------------------------
# node_order.json

def node_name(fn):
    # PyTorch names the leaf node with its C++ namespace, "torch::autograd::AccumulateGrad"; Ember's
    # node names carry no namespace, so the fixture keeps the short "AccumulateGrad".
    return fn.name().replace("torch::autograd::", "")


def record_nodes(loss):
    """Registers a post-hook on every node reachable from loss.grad_fn, runs backward and returns the
    nodes in the order they ran. PyTorch's post-hook receives (grad_inputs, grad_outputs): grad_inputs
    are what the node produced (one per next edge), grad_outputs what flowed in."""
    visits = []
    seen = set()
    todo = [loss.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)

        def hook(produced, incoming, fn=fn):
            visits.append({"name": node_name(fn), "grads_in": [encode(g) for g in incoming],
                           "grads_out": [encode(g) for g in produced]})
        fn.register_hook(hook)
        todo.extend(next_fn for next_fn, _ in fn.next_functions)
    loss.backward()
    return visits


def mlp():
    # x (4, 3) -> Linear(3, 5) -> tanh -> Linear(5, 2) -> cross_entropy(targets [0, 1, 1, 0])
    x = ramp(4, 3, 0.1, scale=1.0)
    w1, b1 = ramp(5, 3, 0.2).requires_grad_(), ramp(1, 5, 0.3).view(5).requires_grad_()
    w2, b2 = ramp(2, 5, 0.4).requires_grad_(), ramp(1, 2, 0.5).view(2).requires_grad_()
    target = torch.tensor([0, 1, 1, 0])
    h = F.linear(x, w1, b1).tanh()
    loss = F.cross_entropy(F.linear(h, w2, b2), target)
    return {"loss": loss.item(), "visits": record_nodes(loss)}


def attention_head():
    # x (3, 4) -> q, k, v = x @ Wq, x @ Wk, x @ Wv (4, 2) -> causal softmax(q k^T / sqrt(2)) @ v -> sum
    x = ramp(3, 4, 0.1).requires_grad_()
    wq, wk, wv = ramp(4, 2, 0.2).requires_grad_(), ramp(4, 2, 0.3).requires_grad_(), ramp(4, 2, 0.4).requires_grad_()
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.t() / 2**0.5
    future = torch.ones(3, 3, dtype=torch.bool).triu(1)
    out = scores.masked_fill(future, float("-inf")).softmax(-1) @ v
    return {"visits": record_nodes(out.sum())}


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for name, cases in (("tensor_hooks.json", tensor_hooks()),
                        ("node_order.json", {"mlp": mlp(), "attention_head": attention_head()})):
        with open(os.path.join(OUT_DIR, name), "w") as f:
            json.dump(cases, f, indent=1)
            f.write("\n")
        print("wrote", os.path.join(OUT_DIR, name))


if __name__ == "__main__":
    main()
