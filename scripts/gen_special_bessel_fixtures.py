"""PyTorch 1.13 references for torch.special's Bessel functions (autograd/special_bessel.cpp) and the
incomplete gamma functions (autograd/special.cpp), for tests/core/test_special_bessel.cpp: J, Y, the
modified I and K (scaled too), spherical_bessel_j0, airy_ai and zeta over small, moderate and large
arguments (across each method's switch points: J/Y at 1e-3 and 25, K at 1e-9 and 30, Ai at -10 and 1)
with their edges (0, -0, negatives, inf, NaN), float32 and float64; gammainc and gammaincc over a grid
of (a, x) and at PyTorch's edges, with the gradient for x; zeta's gradient for q. Each case's C++
twin is a table line in the test.

    /usr/bin/python3 scripts/gen_special_bessel_fixtures.py   # writes tests/fixtures/special_bessel.json
"""
import math
import os

import mpmath
import torch

from fixture_common import FIXTURES, f32, f64, record_case, write

CASES = {}
inf, nan = float("inf"), float("nan")
S = torch.special


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


def t(values, dtype):
    return torch.tensor(values, dtype=dtype)


mpmath.mp.dps = 40
EXACT = {
    "bessel_j0": lambda x: mpmath.besselj(0, x), "bessel_j1": lambda x: mpmath.besselj(1, x),
    "bessel_y0": lambda x: mpmath.bessely(0, x), "bessel_y1": lambda x: mpmath.bessely(1, x),
    "modified_bessel_i0": lambda x: mpmath.besseli(0, x), "modified_bessel_i1": lambda x: mpmath.besseli(1, x),
    "modified_bessel_k0": lambda x: mpmath.besselk(0, x), "modified_bessel_k1": lambda x: mpmath.besselk(1, x),
    "scaled_modified_bessel_k0": lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
    "scaled_modified_bessel_k1": lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
    "spherical_bessel_j0": lambda x: mpmath.sin(x) / x, "airy_ai": mpmath.airyai,
}


def unary_case(name, sfx, xs, dtype):
    """In float64, the finite nonzero points where PyTorch 1.13's own value is off the true one (mpmath)
    by more than 1e-13 go to name_rough_f64, which keeps the true values beside PyTorch's."""
    f = getattr(S, name)
    rough = []
    if dtype == f64:
        for x in xs:
            negative_ok = name not in ("bessel_y0", "bessel_y1") and "_k" not in name
            if math.isfinite(x) and (x > 0 or (x < 0 and negative_ok)):
                exact = float(EXACT[name](mpmath.mpf(x)))
                got = f(t([x], f64)).item()
                if abs(got - exact) > 1e-13 * (1 + abs(exact)):
                    rough.append((x, exact))
    tight = [x for x in xs if x not in [r[0] for r in rough]]
    case(name + sfx, {"x": t(tight, dtype)}, lambda x: f(x), no_grad=("x",))
    if rough:
        case(name + "_rough" + sfx, {"x": t([r[0] for r in rough], dtype)}, lambda x: f(x), no_grad=("x",))
        CASES[name + "_rough" + sfx]["exact"] = [r[1] for r in rough]


edges = [inf, -inf, nan]
first_kind = [-30.0, -7.3, -1.5, -0.0, 0.0, 1e-6, 5e-4, 0.3, 1.0, 2.4, 5.0, 8.0, 12.5, 19.0, 24.9, 25.1, 40.0, 100.0]
second_kind = [1e-8, 5e-4, 0.1, 0.9, 2.0, 3.7, 6.0, 11.0, 18.0, 24.9, 25.1, 33.0, 120.0, 0.0, -0.0, -1.0]
modified_first = [-50.0, -9.0, -1.3, 0.0, 1e-6, 0.7, 3.0, 8.5, 20.0, 39.0, 41.0, 80.0]
modified_second = [1e-12, 1e-5, 0.1, 0.9, 2.0, 5.0, 12.0, 29.9, 30.1, 60.0, 0.0, -0.0, -1.0]
spherical = [-20.0, -3.0, -1e-4, 0.0, 1e-9, 0.5, 2.0, 7.0, 100.0, 1e4]
airy = [-30.0, -10.5, -9.5, -6.2, -3.0, -1.4, -0.5, 0.0, 0.4, 1.0, 1.5, 3.0, 6.0, 12.0, 30.0]

for dtype, sfx in [(f32, ""), (f64, "_f64")]:
    big = [1e3, 1e5] if dtype == f64 else [1e3]  # float32's own kernels lose the phase at 1e5
    for name in ["bessel_j0", "bessel_j1"]:
        unary_case(name, sfx, first_kind + big + edges, dtype)
    for name in ["bessel_y0", "bessel_y1"]:
        unary_case(name, sfx, second_kind + big + edges, dtype)
    for name in ["modified_bessel_i0", "modified_bessel_i1"]:
        xs = modified_first + ([600.0, 750.0, -750.0] if dtype == f64 else [100.0])  # overflow to +-inf
        unary_case(name, sfx, xs + edges, dtype)
    for name in ["modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]:
        unary_case(name, sfx, modified_second + [200.0, 800.0] + edges, dtype)  # K underflows
    unary_case("spherical_bessel_j0", sfx, spherical + edges, dtype)
    unary_case("airy_ai", sfx, airy + ([-200.0, 105.0] if dtype == f64 else []) + edges, dtype)

    # zeta(x, q): the grid crosses PyTorch's edges (x <= 1, q a non-positive integer, negative q).
    zx = t([0.5, 1.0, 1.5, 2.0, 3.5, 7.0, 30.0, inf, nan], dtype).unsqueeze(1)
    zq = t([-2.0, -1.5, 0.0, 0.3, 1.0, 2.5, 10.0, 1e3, 1e9, inf, nan], dtype).unsqueeze(0)
    case("zeta" + sfx, {"x": zx, "q": zq}, lambda x, q: S.zeta(x, q), no_grad=("x", "q"))
    case("zeta_grad" + sfx, {"x": t([2.0, 3.5, 5.0, 1.5], dtype), "q": t([0.5, 1.0, 2.5, 12.0], dtype)},
         lambda x, q: S.zeta(x, q), no_grad=("x",))

    # P(a, x) and Q(a, x) over a grid crossing the series / continued fraction boundary, tails too.
    ga = t([1e-3, 0.1, 0.5, 1.0, 2.5, 7.5, 12.0, 30.0, 99.5, 150.0, 1e3, 1e4], dtype).unsqueeze(1)
    gx = t([1e-5, 0.01, 0.3, 0.5, 0.9, 1.2, 2.5, 9.9, 28.0, 31.0, 100.0, 160.0, 990.0, 1e4, 1.02e4], dtype).unsqueeze(0)
    # PyTorch 1.13's float64 P and Q are off by up to 1e-9 where it takes Temme's expansion (a > 20,
    # |x - a| < 0.3 a), so the float64 grid keeps the true values too (as name_rough_f64).
    for name in ["gammainc", "gammaincc"]:
        grid = name + ("_rough" if dtype == f64 else "") + sfx
        case(grid, {"a": ga, "x": gx}, lambda a, x, f=getattr(S, name): f(a, x), no_grad=("a", "x"))
        if dtype == f64:
            CASES[grid]["exact"] = [float(mpmath.gammainc(a, 0, x, regularized=True) if name == "gammainc" else
                                          mpmath.gammainc(a, x, mpmath.inf, regularized=True))
                                    for a in ga.flatten().tolist() for x in gx.flatten().tolist()]
        case(name + "_grad" + sfx, {"a": t([0.5, 2.0, 3.0, 11.0, 40.0], dtype), "x": t([1.0, 2.0, 0.7, 9.0, 20.0], dtype)},
             lambda a, x, f=getattr(S, name): f(a, x), no_grad=("a",))
    ea = t([-1.0, 0.0, 0.0, 0.0, 2.0, inf, inf, inf, nan, nan, nan, 2.0, 2.0], dtype)
    ex = t([1.0, 0.0, 3.0, inf, -1.0, 0.0, 3.0, inf, 0.0, inf, 1.0, nan, inf], dtype)
    for name in ["gammainc", "gammaincc"]:
        case(name + "_edges" + sfx, {"a": ea, "x": ex}, lambda a, x, f=getattr(S, name): f(a, x), no_grad=("a", "x"))


def main():
    write(os.path.join(FIXTURES, "special_bessel.json"), CASES)


if __name__ == "__main__":
    main()
