"""What the PyTorch fixture generators (scripts/gen_*_fixtures.py) share: where fixtures go, the JSON
encoding of a tensor that tests/fixture_json.h reads back, the deterministic inputs (sin of a ramp),
one-entry-per-line writing, and loading a sibling generator as a module.

    from fixture_common import FIXTURES, encode, wave, write
"""
import importlib.util
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
f32, f64 = torch.float32, torch.float64


def encode_value(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def encode(t):
    return {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "values": [encode_value(v) for v in t.detach().reshape(-1).tolist()],
    }


def wave(*shape, dtype=f32, phase=0.0, scale=1.0, shift=0.0):
    """Irregular values in [shift - scale, shift + scale]: sin of a ramp."""
    n = math.prod(shape)
    x = torch.arange(n, dtype=f64).mul(0.731).add(0.3 + phase).sin() * scale + shift
    return x.to(dtype).reshape(shape)


def write(path, data):
    # One entry per line, so a regenerated fixture diffs entry by entry.
    lines = [f"{json.dumps(k)}: {json.dumps(v, allow_nan=False)}" for k, v in data.items()]
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {len(data)} entries to {os.path.normpath(path)}")


def record_case(table, name, inputs, fn, seed=None, no_grad=()):
    """table[name] = fn(**inputs) and the gradients of sum(output * wave) for each floating input
    (those in no_grad excepted); seed: torch.manual_seed before the call, kept in the entry."""
    assert name not in table, name
    inputs = {k: v.detach().clone() for k, v in inputs.items()}
    for k, t in inputs.items():
        if t.is_floating_point() and k not in no_grad:
            t.requires_grad_()
    if seed is not None:
        torch.manual_seed(seed)
    out = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()}, "output": encode(out)}
    if seed is not None:
        entry["seed"] = seed
    if out.requires_grad:
        w = wave(*out.shape, dtype=out.dtype, phase=0.41) if out.dim() > 0 else torch.tensor(0.7, dtype=out.dtype)
        (out * w).sum().backward()
        entry["weight"] = encode(w)
        entry["grads"] = {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}
    table[name] = entry


def load_script(name):
    """Another generator in scripts/ as a module (its cases run on loading; its __main__ does not)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
