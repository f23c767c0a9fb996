"""PyTorch 1.13 references for torch.special (autograd/special.h), for tests/core/test_special.cpp:
erfcx, ndtr, ndtri, log_ndtr, entr, xlog1py, i0, i0e, i1, i1e (values and gradients, float32 and
float64, tails and edges), the orthogonal polynomials over degrees 0..12 and their edge cases, and the
torch.special spellings of ops Ember already has. Each case's C++ twin is a table line in the test.

    /usr/bin/python3 scripts/gen_special_fixtures.py   # writes tests/fixtures/special.json
"""
import os

import torch

from fixture_common import FIXTURES, f32, f64, record_case, write

CASES = {}
inf, nan = float("inf"), float("nan")
S = torch.special


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


def t(values, dtype):
    return torch.tensor(values, dtype=dtype)


wide = [-30.0, -9.5, -3.2, -1.1, -0.4, 0.0, 0.3, 0.9, 1.7, 4.2, 8.8, 27.0]
probabilities = [1e-300, 1e-20, 1e-6, 0.003, 0.1, 0.35, 0.5, 0.8, 0.99, 0.999999]
positive = [1e-8, 0.05, 0.3, 0.9, 1.0, 2.5, 7.0, 40.0]
bessel = [-45.0, -12.0, -2.5, -0.3, 0.0, 0.4, 1.0, 3.7, 9.0, 25.0, 39.0, 41.0, 90.0]

for dtype, sfx in [(f32, ""), (f64, "_f64")]:
    case("erfcx" + sfx, {"x": t(wide + [30.0, 1e3], dtype)}, lambda x: S.erfcx(x))
    case("ndtr" + sfx, {"x": t(wide, dtype)}, lambda x: S.ndtr(x))
    case("log_ndtr" + sfx, {"x": t(wide + [-40.0, 6.0], dtype)}, lambda x: S.log_ndtr(x))
    case("ndtri" + sfx, {"p": t(probabilities[1:] if dtype == f32 else probabilities, dtype)}, lambda p: S.ndtri(p))
    case("ndtri_edges" + sfx, {"p": t([0.0, 1.0, -0.5, 1.5, nan], dtype)}, lambda p: S.ndtri(p), no_grad=("p",))
    case("entr" + sfx, {"x": t(positive, dtype)}, lambda x: S.entr(x))
    case("entr_edges" + sfx, {"x": t([0.0, -1.0, inf, nan], dtype)}, lambda x: S.entr(x), no_grad=("x",))
    case("xlog1py" + sfx, {"a": t([[0.5, -2.0, 3.0], [0.0, 1.5, -0.25]], dtype), "b": t([0.3, 4.0, -0.5], dtype)},
         lambda a, b: S.xlog1py(a, b))
    case("xlog1py_edges" + sfx, {"a": t([0.0, 0.0, 0.0, 2.0, 0.0], dtype), "b": t([-1.0, inf, nan, -1.0, -3.0], dtype)},
         lambda a, b: S.xlog1py(a, b), no_grad=("a", "b"))
    for name in ["i0", "i0e", "i1", "i1e"]:
        xs = bessel if dtype == f64 or name.endswith("e") else bessel[1:-1]  # i0(90) overflows float
        case(name + sfx, {"x": t(xs, dtype)}, lambda x, f=getattr(S, name): f(x))
    case("xlogy" + sfx, {"a": t([0.0, 0.0, 1.5, -2.0], dtype), "b": t([2.0, 0.5, 3.0, 0.25], dtype)},
         lambda a, b: S.xlogy(a, b))

xs = t([-1.0, -0.7, -0.2, 0.0, 0.35, 0.9, 1.0, 1.3, 2.5], f64)
ns = t(list(range(13)) + [-1], f64)
grid = {"x": xs.unsqueeze(1), "n": ns.unsqueeze(0)}
for name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
             "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]:
    case(name, grid, lambda x, n, f=getattr(S, name): f(x, n), no_grad=("x", "n"))
for name in ["shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w"]:
    case(name, {"x": (xs.unsqueeze(1) + 1) / 2, "n": ns.unsqueeze(0)}, lambda x, n, f=getattr(S, name): f(x, n),
         no_grad=("x", "n"))
case("chebyshev_polynomial_t_f32", {"x": t([0.3, -0.8, 1.0], f32), "n": t([3, 9, 4], torch.int64)},
     lambda x, n: S.chebyshev_polynomial_t(x, n), no_grad=("x",))

# torch.special's spellings of ops Ember has.
x = t([-2.5, -0.6, 0.2, 0.7, 1.9], f64)
unit = t([0.05, 0.3, 0.5, 0.8, 0.97], f64)
case("expit", {"x": x}, lambda x: S.expit(x))
case("gammaln", {"x": x + 3}, lambda x: S.gammaln(x))
case("psi", {"x": x + 3}, lambda x: S.psi(x))
case("multigammaln", {"x": x + 3}, lambda x: S.multigammaln(x, 2))
case("polygamma", {"x": x + 3}, lambda x: S.polygamma(2, x))
case("erfinv", {"x": unit}, lambda x: S.erfinv(x))
case("logit", {"x": unit}, lambda x: S.logit(x, 0.1))
case("round", {"x": x * 3.217}, lambda x: S.round(x, decimals=2), no_grad=("x",))
case("sinc", {"x": x}, lambda x: S.sinc(x))
case("log_softmax", {"x": x.reshape(1, 5)}, lambda x: S.log_softmax(x, 1))
case("softmax", {"x": x.reshape(1, 5)}, lambda x: S.softmax(x, 1))
case("logsumexp", {"x": x.reshape(1, 5)}, lambda x: S.logsumexp(x, [1]))


def main():
    write(os.path.join(FIXTURES, "special.json"), CASES)


if __name__ == "__main__":
    main()
