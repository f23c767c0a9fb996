#!/usr/bin/python3
"""Writes the torch.save archives that tests/nn/test_pickle.cpp reads through ember::pickle_load.

    /usr/bin/python3 scripts/gen_pickle_fixtures.py    # Debian's python3-torch (1.13)

Each case is tests/fixtures/pickle/<name>.pt (what torch.save wrote) and its expected value in
tests/fixtures/pickle/expected.json, as a tree: {"type": "dict", "entries": [[key, value], ...]},
{"type": "list" | "tuple", "items": [...]}, {"type": "int" | "float" | "str" | "bool", "value": v},
{"type": "none"}, and tensors as {"type": "tensor", "dtype", "shape", "stride", "offset", "values"
(row-major, as float or int), "requires_grad", "storage" (an id: equal ids share one storage)}.
"""
import io
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "pickle")
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
          torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
          torch.float16: "float16", torch.bfloat16: "bfloat16"}


def describe(value, storages):
    if isinstance(value, torch.Tensor):
        key = value.storage().data_ptr()
        storages.setdefault(key, len(storages))
        flat = value.detach().reshape(-1)
        values = flat.tolist() if not flat.dtype.is_floating_point else flat.double().tolist()
        return {"type": "tensor", "dtype": DTYPES[value.dtype], "shape": list(value.shape),
                "stride": list(value.stride()), "offset": value.storage_offset(), "values": values,
                "requires_grad": value.requires_grad, "storage": storages[key]}
    if value is None:
        return {"type": "none"}
    if isinstance(value, bool):
        return {"type": "bool", "value": value}
    if isinstance(value, int):
        return {"type": "int", "value": value}
    if isinstance(value, float):
        return {"type": "float", "value": value}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, list):
        return {"type": "list", "items": [describe(v, storages) for v in value]}
    if isinstance(value, tuple):
        return {"type": "tuple", "items": [describe(v, storages) for v in value]}
    if isinstance(value, dict):
        return {"type": "dict", "entries": [[describe(k, storages), describe(v, storages)] for k, v in value.items()]}
    raise TypeError(type(value))


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/ember_pickle_pwned",))


def cases():
    torch.manual_seed(0)
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    linear = torch.nn.Linear(3, 2)
    yield "tensor", torch.tensor([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]]), {}
    yield "dict", {"w": torch.randn(2, 3), "b": torch.randn(3, dtype=torch.float64), "step": 10, "lr": 0.5,
                   "name": "ember"}, {}
    yield "mixed", [1, -2, 300, 70000, -70000, 2**40, -2**63, 2**63 - 1, 2.5, -0.1, "str", "\u00fcn\u00ef", "",
                    None, True, False, (1, "a", 2.0), (7,), (1, 2, 3, 4, 5), [], {}, (), {1: "one", 2: [3]}], {}
    # Views of one storage: torch.save writes the storage once and each view's offset and strides.
    yield "views", {"base": base, "t": base.t(), "row": base[1], "col": base[:, 2], "narrow": base[1:, 1:3],
                    "again": base}, {}
    yield "dtypes", {name: (torch.tensor([1, 0, 1, 1], dtype=dtype) if dtype == torch.bool else
                            torch.tensor([-3, 0, 5, 100], dtype=dtype) if dtype != torch.uint8 else
                            torch.tensor([0, 7, 200, 255], dtype=dtype)) for dtype, name in DTYPES.items()}, {}
    yield "noncontiguous", {"strided": torch.arange(20, dtype=torch.int64).reshape(4, 5)[::2, 1::2],
                            "expanded": torch.tensor([1.0, 2.0]).reshape(2, 1).expand(2, 3),
                            "empty": torch.zeros(0, 3), "scalar": torch.tensor(4.5),
                            "half_t": torch.arange(6, dtype=torch.float16).reshape(2, 3).t()}, {}
    yield "state_dict", linear.state_dict(), {}  # an OrderedDict with _metadata (BUILD)
    yield "parameter", {"p": torch.nn.Parameter(torch.tensor([1.0, 2.0])),
                        "g": torch.tensor([3.0], requires_grad=True)}, {}
    yield "protocol4", {"x": torch.arange(3, dtype=torch.int32), "s": "four", "l": [1.5, None]}, {"pickle_protocol": 4}


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    for name, value, options in cases():
        buffer = io.BytesIO()
        torch.save(value, buffer, **options)
        with open(os.path.join(OUT, name + ".pt"), "wb") as f:
            f.write(buffer.getvalue())
        expected[name] = describe(value, {})
    # torch.save to a path names the archive's folder after the file ("model/data.pkl").
    path = os.path.join(OUT, "model.pt")
    torch.save({"w": torch.ones(2)}, path)
    expected["model"] = describe({"w": torch.ones(2)}, {})
    # A pickle that would run a shell command if unpickled by Python's own pickle: pickle_load must refuse it.
    buffer = io.BytesIO()
    torch.save(Evil(), buffer)
    with open(os.path.join(OUT, "evil.pt"), "wb") as f:
        f.write(buffer.getvalue())
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f)
        f.write("\n")


if __name__ == "__main__":
    main()
