#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_grid_sample.cpp (sampling grids and pdist).

Run with Debian's torch: /usr/bin/python3 scripts/gen_grid_sample_fixtures.py

tests/fixtures/nn/grid_sample.json
    one case per call of F.grid_sample: every mode x padding_mode x align_corners on 4-d inputs in
    float32 and float64, bilinear and nearest on 5-d inputs (every padding mode and align_corners in
    float32, a few in float64), grids reaching outside [-1, 1] (some far enough for several
    reflections); of F.affine_grid (2-d and 3-d, both align_corners) and of the two chained; of
    F.pdist for p = 0, 0.5, 1, 1.5, 2, 3 and inf (with repeated rows and tied largest differences);
    in the format of gen_resample_fixtures.py: named inputs, the output, fixed weights w and the
    gradients of (out * w).sum().
"""
import os

import torch
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f32, f64, wave, write

CASES = {}


def case(name, inputs, fn):
    """inputs: name -> tensor (all require grad); fn(**inputs) -> output."""
    assert name not in CASES, name
    inputs = {k: v.detach().clone().requires_grad_() for k, v in inputs.items()}
    out = fn(**inputs)
    w = wave(*out.shape, dtype=out.dtype, phase=0.41)
    (out * w).sum().backward()
    CASES[name] = {"inputs": {k: encode(v) for k, v in inputs.items()}, "output": encode(out), "weight": encode(w),
                   "grads": {k: encode(v.grad) for k, v in inputs.items()}}


def sample(mode, padding_mode, align_corners):
    return lambda x, grid: F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]

# ---- F.grid_sample, 4-d: (2, 2, 3, 4) sampled at (2, 3, 3) points reaching to +-1.3 ----
for dtype, suffix in [(f32, ""), (f64, "_f64")]:
    for mode in MODES:
        for padding in PADDINGS:
            for align in [False, True]:
                name = f"{mode}_{padding}_{'align' if align else 'noalign'}{suffix}"
                case(name, {"x": wave(2, 2, 3, 4, dtype=dtype), "grid": wave(2, 3, 3, 2, dtype=dtype, phase=0.2,
                                                                               scale=1.3)},
                     sample(mode, padding, align))

# Far outside: several reflections, borders held, zeros everywhere out there.
for mode in MODES:
    for padding in PADDINGS:
        case(f"{mode}_{padding}_far", {"x": wave(1, 2, 3, 4), "grid": wave(1, 5, 3, 2, phase=1.1, scale=3.7)},
             sample(mode, padding, False))
case("bilinear_reflection_far_align_f64", {"x": wave(1, 2, 3, 4, dtype=f64),
                                           "grid": wave(1, 5, 3, 2, dtype=f64, phase=1.1, scale=3.7)},
     sample("bilinear", "reflection", True))
# A single row and column: with align_corners the reflection has no span.
case("bilinear_reflection_single_pixel_align", {"x": wave(1, 2, 1, 1), "grid": wave(1, 2, 3, 2, phase=0.5)},
     sample("bilinear", "reflection", True))
case("bicubic_border_single_row", {"x": wave(1, 1, 1, 5), "grid": wave(1, 2, 3, 2, phase=0.5, scale=1.2)},
     sample("bicubic", "border", False))

# ---- F.grid_sample, 5-d: (1, 2, 3, 4, 3) sampled at (2, 2, 3) points ----
for mode in ["bilinear", "nearest"]:
    for padding in PADDINGS:
        for align in [False, True]:
            name = f"{mode}_{padding}_{'align' if align else 'noalign'}_3d"
            case(name, {"x": wave(1, 2, 3, 4, 3), "grid": wave(1, 2, 2, 3, 3, phase=0.7, scale=1.3)},
                 sample(mode, padding, align))
for mode, padding, align in [("bilinear", "zeros", False), ("bilinear", "reflection", True),
                             ("nearest", "border", False), ("bilinear", "border", True)]:
    name = f"{mode}_{padding}_{'align' if align else 'noalign'}_3d_f64"
    case(name, {"x": wave(2, 2, 2, 3, 4, dtype=f64), "grid": wave(2, 3, 2, 2, 3, dtype=f64, phase=0.7, scale=1.6)},
         sample(mode, padding, align))

# ---- F.affine_grid, and a spatial transformer (affine_grid into grid_sample) ----
THETA_2D = torch.tensor([[[0.9, -0.3, 0.1], [0.25, 1.1, -0.2]], [[1.2, 0.4, 0.3], [-0.5, 0.8, 0.05]]])
THETA_3D = torch.tensor([[[0.9, -0.3, 0.1, 0.2], [0.25, 1.1, -0.2, 0.0], [0.1, 0.3, 0.7, -0.1]]])
for align in [False, True]:
    tag = "align" if align else "noalign"
    case(f"affine_grid_2d_{tag}", {"theta": THETA_2D}, lambda theta, a=align: F.affine_grid(theta, [2, 3, 4, 5], a))
    case(f"affine_grid_3d_{tag}", {"theta": THETA_3D}, lambda theta, a=align: F.affine_grid(theta, [1, 2, 2, 3, 4], a))
    case(f"affine_grid_2d_{tag}_f64", {"theta": THETA_2D.double()},
         lambda theta, a=align: F.affine_grid(theta, [2, 1, 3, 1], a))
case("affine_grid_3d_align_f64", {"theta": THETA_3D.double()},
     lambda theta: F.affine_grid(theta, [1, 1, 1, 2, 3], True))
case("spatial_transformer", {"x": wave(2, 3, 4, 5), "theta": THETA_2D},
     lambda x, theta: F.grid_sample(x, F.affine_grid(theta, [2, 3, 3, 6], False), mode="bilinear",
                                    padding_mode="border", align_corners=False))

# ---- F.pdist ----
for p, tag in [(0.0, "0"), (0.5, "0_5"), (1.0, "1"), (1.5, "1_5"), (2.0, "2"), (3.0, "3"), (float("inf"), "inf")]:
    case(f"pdist_p{tag}", {"x": wave(5, 4)}, lambda x, p=p: F.pdist(x, p))
    case(f"pdist_p{tag}_f64", {"x": wave(4, 3, dtype=f64, phase=0.6)}, lambda x, p=p: F.pdist(x, p))
# Rows 0 and 2 the same (distance 0, gradient 0 there), and entries that are equal in |.| (ties for inf).
REPEATED = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75], [0.5, -1.0, 0.25], [-0.5, 1.0, 0.0]])
for p, tag in [(0.5, "0_5"), (1.5, "1_5"), (2.0, "2"), (3.0, "3"), (float("inf"), "inf")]:
    case(f"pdist_p{tag}_repeated_rows", {"x": REPEATED}, lambda x, p=p: F.pdist(x, p))
case("pdist_one_row", {"x": wave(1, 3)}, lambda x: F.pdist(x))


if __name__ == "__main__":
    torch.set_num_threads(1)
    write(os.path.join(FIXTURES, "nn", "grid_sample.json"), CASES)
