#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/optim/test_lbfgs.cpp.

Run: /usr/bin/python3 scripts/gen_lbfgs_fixtures.py

tests/fixtures/optim/lbfgs.json
    torch.optim.LBFGS in float64 on two problems, with and without line_search_fn="strong_wolfe":
    the 2-D Rosenbrock function, and a least-squares fit with two parameters (a weight matrix and a
    bias, so the flat vectors span several tensors). For each case: the options, the initial
    parameters, and after every step() the loss it returned, the parameters, and the state
    (func_evals, n_iter, t, prev_loss, H_diag, the history length, d).
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "optim", "lbfgs.json")


def tensor(t):
    t = torch.as_tensor(t)
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "values": t.detach().reshape(-1).tolist()}


def rosenbrock_problem():
    params = [torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)]

    def loss(ps):
        x, y = ps[0][0], ps[0][1]
        return (1 - x) ** 2 + 100 * (y - x * x) ** 2
    return params, loss, {}


def least_squares_problem():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(10, 3, generator=g, dtype=torch.float64)
    y = torch.randn(10, 2, generator=g, dtype=torch.float64)
    w = (torch.randn(3, 2, generator=g, dtype=torch.float64) * 0.5).requires_grad_()
    b = torch.zeros(2, dtype=torch.float64).requires_grad_()

    def loss(ps):
        return ((x @ ps[0] + ps[1] - y) ** 2).mean()
    return [w, b], loss, {"x": tensor(x), "y": tensor(y)}


PROBLEMS = {"rosenbrock": rosenbrock_problem, "least_squares": least_squares_problem}

# name -> (problem, LBFGS options, number of step() calls)
CASES = {
    "rosenbrock_plain": ("rosenbrock", dict(lr=0.1, max_iter=5), 4),
    "rosenbrock_wolfe": ("rosenbrock", dict(lr=1, max_iter=20, line_search_fn="strong_wolfe"), 3),
    "rosenbrock_wolfe_short_history": ("rosenbrock", dict(lr=1, max_iter=8, history_size=3,
                                                           line_search_fn="strong_wolfe"), 4),
    "least_squares_plain": ("least_squares", dict(lr=0.5, max_iter=4, max_eval=3), 3),
    "least_squares_wolfe": ("least_squares", dict(lr=1, max_iter=10, history_size=5,
                                                  line_search_fn="strong_wolfe"), 3),
    "least_squares_default": ("least_squares", dict(), 2),
}


def run(problem, options, steps):
    params, loss_fn, extra = PROBLEMS[problem]()
    case = {"problem": problem, "options": options, "initial": [tensor(p) for p in params], "steps": []}
    case.update(extra)
    opt = torch.optim.LBFGS(params, **options)

    def closure():
        opt.zero_grad()
        loss = loss_fn(params)
        loss.backward()
        return loss
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[params[0]]
        case["steps"].append({
            "loss": float(loss),
            "params": [tensor(p) for p in params],
            "func_evals": st["func_evals"], "n_iter": st["n_iter"],
            "t": float(st["t"]), "prev_loss": float(st["prev_loss"]), "H_diag": float(st["H_diag"]),
            "history": len(st["old_dirs"]), "d": tensor(st["d"]),
        })
    return case


def main():
    torch.set_default_dtype(torch.float64)
    cases = {name: run(*spec) for name, spec in CASES.items()}
    with open(OUT, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    for name, c in cases.items():
        print(name, [s["loss"] for s in c["steps"]], [s["func_evals"] for s in c["steps"]])


if __name__ == "__main__":
    main()
