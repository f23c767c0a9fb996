// ATen's functions called as Tensor methods and operators, as libtorch programs write them:
// x.lgamma(), a & b, ~mask, x.addmm_(...), x.logcumsumexp(0), x.hsplit(2), ... (the free forms are
// the other programs' subject). In-place forms on the wrong dtype fail with libtorch's message.
#include <iomanip>
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

void show(const char* name, const torch::Tensor& t) { std::cout << name << "\n" << t << "\n"; }

}  // namespace

int main() {
  std::cout << std::setprecision(6);
  // ---- special functions, and their in-place forms ----
  auto x = torch::tensor({0.5, 1.5, 3.0}, torch::kFloat64);
  show("lgamma", x.lgamma());
  show("digamma", x.digamma());
  show("polygamma(1)", x.polygamma(1));
  show("mvlgamma(2)", (x + 1).mvlgamma(2));
  show("erfinv", torch::tensor({-0.5f, 0.0f, 0.9f}).erfinv());
  auto y = x.clone();
  y.lgamma_();
  show("lgamma_", y);
  y = x.clone();
  y.polygamma_(2);
  show("polygamma_(2)", y);
  try {
    torch::arange(3).lgamma_();
  } catch (const c10::Error& e) {
    // From "result type" on: Ember's message starts with the op's name ("lgamma_: result type ...").
    const std::string message = first_line(e.what());
    std::cout << "lgamma_ on int64: " << message.substr(message.find("result type")) << "\n";
  }
  // ---- bit functions and operators ----
  auto a = torch::tensor({12, 10, -3}, torch::kInt32);
  auto b = torch::tensor({10, 6, 5}, torch::kInt32);
  show("a & b", a & b);
  show("a | 3", a | 3);
  show("5 ^ a", 5 ^ a);
  show("~a", ~a);
  show("a.bitwise_xor(b)", a.bitwise_xor(b));
  show("a.bitwise_left_shift(2)", a.bitwise_left_shift(2));
  show("a.bitwise_right_shift(b)", a.bitwise_right_shift(torch::tensor({1, 2, 1}, torch::kInt32)));
  auto mask = torch::tensor({true, false, true});
  show("~mask", ~mask);
  show("mask ^ true", mask ^ true);
  auto c = a.clone();
  c &= b;
  show("c &= b", c);
  c |= torch::tensor({1, 1, 1}, torch::kInt32);
  show("c |= 1s", c);
  c ^= b;
  show("c ^= b", c);
  c.bitwise_not_();
  show("bitwise_not_", c);
  show("gcd", a.gcd(b));
  show("lcm", a.lcm(b));
  try {
    torch::ones({2}) & torch::ones({2});
  } catch (const c10::Error& e) {
    std::cout << "float &: " << first_line(e.what()) << "\n";
  }
  auto f = torch::tensor({-2.5, 0.75, 8.0}, torch::kFloat64);
  auto [mantissa, exponent] = f.frexp();
  show("frexp mantissa", mantissa);
  show("frexp exponent", exponent);
  show("ldexp", mantissa.ldexp(exponent));
  show("copysign", f.copysign(-1));
  show("copysign tensor", f.copysign(torch::tensor({1.0, -1.0, -0.0}, torch::kFloat64)));
  show("nextafter", torch::tensor({1.0f}).nextafter(torch::tensor({2.0f})) - 1);
  show("signbit", f.signbit());
  show("isposinf", torch::tensor({INFINITY, -INFINITY, 1.0f}).isposinf());
  show("isneginf", torch::tensor({INFINITY, -INFINITY, 1.0f}).isneginf());
  show("fmax", torch::tensor({1.0f, NAN, 3.0f}).fmax(torch::tensor({2.0f, 2.0f, NAN})));
  show("fmin", torch::tensor({1.0f, NAN, 3.0f}).fmin(torch::tensor({2.0f, 2.0f, NAN})));
  show("heaviside", torch::tensor({-1.0f, 0.0f, 2.0f}).heaviside(torch::tensor({0.5f})));
  show("positive", f.positive());
  // ---- products ----
  auto m = torch::arange(6, torch::kFloat64).reshape({2, 3});
  auto v = torch::tensor({1.0, -1.0, 2.0}, torch::kFloat64);
  auto bias = torch::ones({2}, torch::kFloat64);
  show("addmv", bias.addmv(m, v, 0.5, 2));
  show("addmm", torch::ones({2, 2}, torch::kFloat64).addmm(m, m.t()));
  show("addr", torch::zeros({2, 3}, torch::kFloat64).addr(torch::tensor({1.0, 2.0}, torch::kFloat64), v));
  auto batch = torch::arange(12, torch::kFloat64).reshape({2, 2, 3});
  show("baddbmm", torch::zeros({2, 2, 2}, torch::kFloat64).baddbmm(batch, batch.transpose(1, 2)));
  show("addbmm", torch::zeros({2, 2}, torch::kFloat64).addbmm(batch, batch.transpose(1, 2), 1, 0.5));
  auto acc = torch::ones({2, 2}, torch::kFloat64);
  acc.addmm_(m, m.t(), 2, 1);
  show("addmm_", acc);
  show("inner", v.inner(v));
  show("vdot", v.vdot(v));
  show("kron", torch::eye(2).kron(torch::ones({1, 2})));
  show("cross", v.cross(torch::tensor({0.0, 1.0, 0.0}, torch::kFloat64)));
  show("dist", v.dist(torch::zeros({3}, torch::kFloat64), 1));
  // ---- arranging, picking, scans, statistics ----
  show("fliplr", m.fliplr());
  show("flipud", m.flipud());
  for (const auto& part : m.hsplit(3)) show("hsplit", part);
  for (const auto& part : m.vsplit(2)) show("vsplit", part);
  show("diagflat", v.diagflat(1));
  show("diag_embed", m.diag_embed());
  show("rot90", m.rot90());
  show("msort", torch::tensor({{3, 1}, {2, 4}}).msort());
  show("take", m.take(torch::tensor({0, 5, 2})));
  show("take_along_dim", m.take_along_dim(torch::tensor({{2}, {0}}), 1));
  show("repeat_interleave", v.repeat_interleave(2));
  show("repeat_interleave tensor", v.repeat_interleave(torch::tensor({1, 0, 2})));
  auto [vals, idx] = torch::tensor({1.0f, 3.0f, 2.0f, 5.0f}).cummax(0);
  show("cummax values", vals);
  show("cummax indices", idx);
  show("cummin values", std::get<0>(torch::tensor({4.0f, 3.0f, 5.0f, 1.0f}).cummin(0)));
  show("logcumsumexp", x.logcumsumexp(0));
  show("cov", m.cov());
  show("corrcoef", torch::tensor({{1.0, 2.0, 4.0}, {2.0, 1.0, 0.5}}, torch::kFloat64).corrcoef());
  show("histc", torch::tensor({0.5f, 1.5f, 1.7f, 3.9f}).histc(4, 0, 4));
  show("bincount", torch::tensor({0, 2, 2, 3}).bincount());
  show("bincount weights", torch::tensor({0, 2, 2}).bincount(torch::tensor({0.5, 1.0, 2.0}, torch::kFloat64), 4));
  // ---- a gradient through method forms ----
  auto w = torch::tensor({0.25, 1.0, 2.0}, torch::kFloat64).requires_grad_();
  (w.lgamma().sum() + w.logcumsumexp(0).sum() + w.dist(torch::zeros_like(w))).backward();
  show("grad", w.grad());
  return 0;
}
