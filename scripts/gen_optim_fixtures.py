#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/optim/test_optim.cpp and tests/nn/test_serialize.cpp.

Run: /usr/bin/python3 scripts/gen_optim_fixtures.py

tests/fixtures/optim/optimizers.json
    10 steps of SGD / Adam / AdamW (torch's single-tensor loops, foreach=False) on a fixed
    two-layer linear regression, in float32 and float64: the initial parameters, and for every
    step the gradients PyTorch computed and the parameters after the update.
tests/fixtures/optim/schedulers.json   StepLR and LambdaLR learning rates over 10 epochs.
tests/fixtures/optim/clip_grad.json    clip_grad_norm_ total norms and clipped gradients.
tests/fixtures/serialize/reference.safetensors
    a safetensors file written here byte by byte (struct + json, no safetensors package), holding
    one tensor of each dtype Ember supports; Ember must load it, and must write these same bytes.
tests/fixtures/serialize/torch_mlp.safetensors, torch_mlp.json
    the state_dict of torch.nn.Sequential(Linear(3, 4), ReLU(), Linear(4, 2), LayerNorm(2)) and its
    output for one input: Ember loads the weights into the same nn::Sequential and must match.
"""
import json
import math
import os
import struct

import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
OPTIM = os.path.join(ROOT, "optim")
SERIAL = os.path.join(ROOT, "serialize")


def tensor(t):
    """A tensor as tests/fixture_json.h reads it; float32 values are written as the doubles they widen to."""
    def enc(v):
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return v
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "values": [enc(v) for v in t.detach().reshape(-1).tolist()]}


# ---- optimizers ----

def problem(dtype):
    """A fixed two-layer linear regression: out = (x @ w1 + b1) @ w2 + b2, loss = mean((out - y)^2)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, generator=g).to(dtype)
    y = torch.randn(8, 2, generator=g).to(dtype)
    params = [torch.randn(3, 4, generator=g).to(dtype) * 0.5, torch.randn(4, generator=g).to(dtype) * 0.1,
              torch.randn(4, 2, generator=g).to(dtype) * 0.5, torch.randn(2, generator=g).to(dtype) * 0.1]
    params = [p.clone().requires_grad_() for p in params]
    return x, y, params


def loss_fn(x, y, params):
    w1, b1, w2, b2 = params
    out = (x @ w1 + b1) @ w2 + b2
    return ((out - y) ** 2).mean()


# name -> (optimizer class, options, group split): "split" puts weights and biases in two groups
# whose options override the defaults.
CASES = {
    "sgd": (torch.optim.SGD, dict(lr=0.1), None),
    "sgd_momentum": (torch.optim.SGD, dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01), None),
    "sgd_nesterov": (torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01), None),
    "sgd_maximize": (torch.optim.SGD, dict(lr=0.01, momentum=0.5, maximize=True), None),
    "adam": (torch.optim.Adam, dict(lr=0.01), None),
    "adam_weight_decay": (torch.optim.Adam, dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), None),
    "adam_amsgrad": (torch.optim.Adam, dict(lr=0.01, amsgrad=True, weight_decay=0.05), None),
    "adamw": (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1), None),
    "adamw_amsgrad": (torch.optim.AdamW, dict(lr=0.03, betas=(0.9, 0.95), amsgrad=True), None),
    "adamw_groups": (torch.optim.AdamW, dict(lr=0.01, weight_decay=0.1),
                     [dict(weight_decay=0.2), dict(lr=0.005, weight_decay=0.0)]),
}


def run_case(cls, options, split, dtype):
    x, y, params = problem(dtype)
    if split:
        groups = [dict(params=[params[0], params[2]], **split[0]), dict(params=[params[1], params[3]], **split[1])]
        opt = cls(groups, foreach=False, **options)
    else:
        opt = cls(params, foreach=False, **options)
    record = {"initial": [tensor(p) for p in params], "steps": []}
    for _ in range(10):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(x, y, params)
        loss.backward()
        grads = [tensor(p.grad) for p in params]
        opt.step()
        record["steps"].append({"loss": loss.item(), "grads": grads, "params": [tensor(p) for p in params]})
    record["x"] = tensor(x)
    record["y"] = tensor(y)
    return record


def optimizers():
    out = {}
    for name, (cls, options, split) in CASES.items():
        for dtype in (torch.float32, torch.float64):
            key = f"{name}_{str(dtype).replace('torch.', '')}"
            out[key] = run_case(cls, options, split, dtype)
    return out


# ---- schedulers ----

def schedulers():
    def lrs_over(make):
        w = torch.zeros(2, requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1)
        sched = make(opt)
        lrs = [sched.get_last_lr()]
        for _ in range(10):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return lrs

    return {
        "step_lr": lrs_over(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
        "step_lr_gamma_0.1": lrs_over(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=2)),
        "lambda_lr_one": lrs_over(lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e)),
        "lambda_lr_per_group": lrs_over(lambda o: torch.optim.lr_scheduler.LambdaLR(
            o, [lambda e: 1.0 / (e + 1), lambda e: min(1.0, (e + 1) / 4)])),
    }


# ---- clip_grad ----

def clip_grad():
    g = torch.Generator().manual_seed(3)
    shapes = [(3, 4), (5,), (2, 2)]
    grads = [torch.randn(s, generator=g) for s in shapes]
    out = {"grads": [tensor(t) for t in grads], "cases": []}
    for max_norm, norm_type in [(1.0, 2.0), (100.0, 2.0), (0.5, float("inf")), (2.0, 1.0), (1.5, 3.0)]:
        params = [torch.zeros(s, requires_grad=True) for s in shapes]
        for p, gr in zip(params, grads):
            p.grad = gr.clone()
        total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type)
        out["cases"].append({"max_norm": max_norm, "norm_type": "inf" if math.isinf(norm_type) else norm_type,
                             "total_norm": total.item(), "clipped": [tensor(p.grad) for p in params]})
    params = [torch.zeros(s, requires_grad=True) for s in shapes]
    for p, gr in zip(params, grads):
        p.grad = gr.clone()
    torch.nn.utils.clip_grad_value_(params, 0.5)
    out["value_0.5"] = [tensor(p.grad) for p in params]
    return out


# ---- safetensors, by hand ----

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.bool: "BOOL"}


def safetensors_bytes(tensors, metadata):
    """The file layout: u64 header length, compact JSON header (metadata first with its keys sorted,
    then the tensors in the given order), padded with spaces to a multiple of 8, then the raw
    little-endian data."""
    header, offset, data = {}, 0, b""
    if metadata:
        header["__metadata__"] = dict(sorted(metadata.items()))
    for name, t in tensors:
        raw = t.contiguous().numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        data += raw
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def read_safetensors(blob):
    """The reader the test's expected bytes are checked with: returns (tensors in order, metadata)."""
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    names = {v: k for k, v in DTYPES.items()}
    tensors = []
    for name, info in header.items():
        b, e = info["data_offsets"]
        raw = bytearray(blob[8 + n + b:8 + n + e])
        t = torch.frombuffer(raw, dtype=names[info["dtype"]]) if raw else torch.empty(0, dtype=names[info["dtype"]])
        tensors.append((name, t.reshape(info["shape"])))
    return tensors, metadata


def reference_tensors():
    return [
        ("weight", torch.tensor([[0.5, -1.25, 3.0], [1e-8, -0.0, 65504.0]], dtype=torch.float32)),
        ("scale", torch.tensor(math.pi, dtype=torch.float64)),
        ("ids", torch.tensor([0, -1, 2 ** 40, -(2 ** 62)], dtype=torch.int64)),
        ("mask", torch.tensor([[True, False], [False, True]])),
        ("empty", torch.zeros(0, 3, dtype=torch.float32)),
        ("blocks.0.attn.bias", torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)),
    ]


REFERENCE_METADATA = {"format": "pt", "step": "42", "note": "caf\u00e9 \"quoted\""}


def write_safetensors_fixture():
    os.makedirs(SERIAL, exist_ok=True)
    blob = safetensors_bytes(reference_tensors(), REFERENCE_METADATA)
    tensors, metadata = read_safetensors(blob)
    assert metadata == REFERENCE_METADATA
    for (n1, t1), (n2, t2) in zip(tensors, reference_tensors()):
        assert n1 == n2 and t1.dtype == t2.dtype and t1.shape == t2.shape and torch.equal(t1, t2), n1
    with open(os.path.join(SERIAL, "reference.safetensors"), "wb") as f:
        f.write(blob)


def write_torch_model_fixture():
    torch.manual_seed(11)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2), torch.nn.LayerNorm(2))
    with torch.no_grad():  # LayerNorm's defaults (ones, zeros) would not show a mix-up
        model[3].weight.uniform_(0.5, 1.5)
        model[3].bias.uniform_(-0.5, 0.5)
    state = [(k, v.detach()) for k, v in model.state_dict().items()]
    with open(os.path.join(SERIAL, "torch_mlp.safetensors"), "wb") as f:
        f.write(safetensors_bytes(state, {"framework": "torch 1.13"}))
    x = torch.randn(5, 3)
    with open(os.path.join(SERIAL, "torch_mlp.json"), "w") as f:
        json.dump({"x": tensor(x), "y": tensor(model(x))}, f)


def main():
    os.makedirs(OPTIM, exist_ok=True)
    torch.set_num_threads(1)
    for name, data in [("optimizers", optimizers()), ("schedulers", schedulers()), ("clip_grad", clip_grad())]:
        with open(os.path.join(OPTIM, name + ".json"), "w") as f:
            json.dump(data, f)
    write_safetensors_fixture()
    write_torch_model_fixture()


if __name__ == "__main__":
    main()
