#!/usr/bin/python3
"""Writes random einsum equations and PyTorch 1.13's answers for tests/core/test_aten_functions.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_einsum_fixtures.py

tests/fixtures/einsum_random.json
    {"valid": [...], "invalid": [...]}: 1-3 operands over the subscripts abcdeAB (sizes 1-4), repeated
    subscripts, size-1 dims that broadcast, an ellipsis covering 0-2 dims (some of size 1), explicit
    outputs in random order (with or without the ellipsis) and implicit ones; each valid case holds
    the float64 inputs and torch.einsum's output. About half the equations get a wrong shape or an
    output subscript that no input has: those PyTorch rejects are kept with the first line of its error.
"""
import json
import os
import random

import torch

from fixture_common import FIXTURES

random.seed(7)
torch.manual_seed(7)
LETTERS = "abcdeAB"


def encode(t):
    return {"shape": list(t.shape), "values": [round(v, 12) for v in t.flatten().tolist()]}


def random_case():
    sizes = {label: random.randint(1, 4) for label in LETTERS}
    ellipsis_dims = random.randint(0, 2)
    ellipsis_sizes = [random.randint(1, 3) for _ in range(ellipsis_dims)]
    use_ellipsis = ellipsis_dims > 0 and random.random() < 0.4
    terms, tensors = [], []
    for _ in range(random.randint(1, 3)):
        labels = [random.choice(LETTERS) for _ in range(random.randint(0, 3))]
        shape = [sizes[label] if random.random() > 0.15 else 1 for label in labels]
        for i, label in enumerate(labels):  # a repeated subscript has one size within its operand
            for j in range(i):
                if labels[j] == label:
                    shape[i] = shape[j]
        term = "".join(labels)
        if use_ellipsis and random.random() < 0.8:
            at = random.randint(0, len(labels))
            covered = random.randint(0, ellipsis_dims)
            dims = [ellipsis_sizes[ellipsis_dims - covered + i] if random.random() > 0.2 else 1 for i in range(covered)]
            term = term[:at] + "..." + term[at:]
            shape = shape[:at] + dims + shape[at:]
        terms.append(term)
        tensors.append(torch.randn(shape, dtype=torch.float64))
    equation = ",".join(terms)
    if random.random() < 0.5:
        seen = sorted(set("".join(terms).replace(".", "")))
        out = [label for label in seen if random.random() < 0.5]
        random.shuffle(out)
        out = "".join(out)
        if "..." in equation and random.random() < 0.7:
            at = random.randint(0, len(out))
            out = out[:at] + "..." + out[at:]
        equation += "->" + out
    if random.random() < 0.5:  # spoil it: one operand's shape, or an output subscript from nowhere
        i = random.randrange(len(tensors))
        shape = list(tensors[i].shape)
        r = random.random()
        if r < 0.3:
            shape.append(2)
        elif r < 0.5 and shape:
            shape.pop()
        elif shape:
            shape[random.randrange(len(shape))] += random.randint(1, 2)
        tensors[i] = torch.randn(shape, dtype=torch.float64)
        if random.random() < 0.2:
            equation += "z" if "->" in equation else "->z"
    return equation, tensors


valid, invalid = [], []
while len(valid) < 150 or len(invalid) < 60:
    equation, tensors = random_case()
    try:
        out = torch.einsum(equation, tensors)
    except RuntimeError as e:
        if len(invalid) < 60:
            invalid.append({"equation": equation, "shapes": [list(t.shape) for t in tensors],
                            "error": str(e).split("\n")[0]})
        continue
    if len(valid) < 150:
        valid.append({"equation": equation, "inputs": [encode(t) for t in tensors], "output": encode(out)})

if __name__ == "__main__":
    path = os.path.join(FIXTURES, "einsum_random.json")
    with open(path, "w") as f:
        json.dump({"valid": valid, "invalid": invalid}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(valid)} valid and {len(invalid)} invalid equations to {path}")
