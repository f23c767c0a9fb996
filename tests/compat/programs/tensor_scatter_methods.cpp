// The scatter family and the in-place comparisons as libtorch programs call them: one-hot labels by
// scatter_, scatter with a reduce, scatter_reduce, index_add_/index_copy/index_fill, masked_scatter,
// put_, gradients through scatter and unfold, and the small methods (aminmax, sum_to_size,
// fill_diagonal_, hardshrink, type_as). A bad index is an error in both; only its kind is printed,
// as the wording differs.
#include <iomanip>
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

void show(const char* name, const torch::Tensor& t) { std::cout << name << "\n" << t << "\n"; }

template <typename F>
void expect_error(const char* name, const std::string& needle, F f) {
  try {
    f();
    std::cout << name << ": no error\n";
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    std::cout << name << ": error" << (what.find(needle) != std::string::npos ? " (" + needle + ")" : "") << "\n";
  }
}

}  // namespace

int main() {
  std::cout << std::setprecision(6);
  // ---- one-hot by scatter_, scatter's forms ----
  auto labels = torch::tensor({2, 0, 3, 1}, torch::kLong);
  show("one_hot", torch::zeros({4, 5}).scatter_(1, labels.unsqueeze(1), 1));
  auto x = torch::arange(12, torch::kFloat32).reshape({3, 4});
  auto idx = torch::tensor({{2, 0, 1}, {1, 2, 0}}, torch::kLong);
  auto src = torch::tensor({{10.f, 20.f, 30.f}, {40.f, 50.f, 60.f}});
  show("scatter(0, idx, src)", x.scatter(0, idx, src));
  show("scatter(0, idx, -1)", x.scatter(0, idx, -1));
  show("scatter add", x.scatter(0, idx, src, "add"));
  show("scatter multiply", x.scatter(0, idx, 2.0, "multiply"));
  show("torch::scatter", torch::scatter(x, 1, torch::tensor({{3}, {0}, {1}}, torch::kLong), 7.5));
  auto y = x.clone();
  y.scatter_add_(0, idx, src);
  show("scatter_add_", y);
  // ---- scatter_reduce ----
  auto self = torch::tensor({{1.0, 2.0, 3.0, 4.0}, {5.0, 6.0, 7.0, 8.0}}, torch::kFloat64);
  auto rsrc = torch::tensor({{1.5, -2.0, 3.0, 0.5, 4.0}, {2.0, -1.0, 6.0, 3.0, 0.25}}, torch::kFloat64);
  auto ridx = torch::tensor({{0, 1, 0, 3, 1}, {2, 2, 0, 2, 1}}, torch::kLong);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    std::cout << "scatter_reduce " << reduce << "\n" << self.scatter_reduce(1, ridx, rsrc, reduce) << "\n";
    std::cout << "  without self\n" << torch::scatter_reduce(self, 1, ridx, rsrc, reduce, false) << "\n";
  }
  auto z = self.clone();
  z.scatter_reduce_(1, ridx, rsrc, "amax");
  show("scatter_reduce_ amax", z);
  // ---- index_add_, index_copy, index_fill ----
  auto m = torch::zeros({3, 4});
  m.index_add_(0, torch::tensor({2, 0, 2}, torch::kLong), torch::ones({3, 4}), 2.5);
  show("index_add_ alpha", m);
  show("index_copy", x.index_copy(1, torch::tensor({3, 0}, torch::kLong), torch::full({3, 2}, -1.f)));
  show("torch::index_copy", torch::index_copy(x, 0, torch::tensor({1}, torch::kLong), torch::ones({1, 4})));
  show("index_fill", x.index_fill(1, torch::tensor({1, -1}, torch::kLong), 0.5));
  show("index_fill tensor", torch::index_fill(x, 0, torch::tensor({0}, torch::kLong), torch::tensor(9.f)));
  auto f = x.clone();
  f.index_fill_(0, torch::tensor({2}, torch::kLong), -7);
  show("index_fill_", f);
  // ---- masked_scatter, put ----
  auto mask = x.remainder(3).eq(0);
  show("masked_scatter", x.masked_scatter(mask, torch::arange(100, 112, torch::kFloat32)));
  show("torch::masked_scatter", torch::masked_scatter(x, torch::tensor({true, false, false, true}),
                                                      torch::full({8}, -3.f)));
  auto p = torch::zeros({2, 3});
  p.put_(torch::tensor({0, -1, 4}, torch::kLong), torch::tensor({1.f, 2.f, 3.f}));
  show("put_", p);
  p.put_(torch::tensor({0, 0}, torch::kLong), torch::tensor({10.f, 20.f}), true);
  show("put_ accumulate", p);
  show("torch::put", torch::put(p, torch::tensor({5}, torch::kLong), torch::tensor({-1.f})));
  // ---- gradients ----
  auto w = torch::linspace(-1, 1, 12, torch::kFloat64).reshape({3, 4}).requires_grad_();
  auto s = torch::tensor({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}}, torch::kFloat64).requires_grad_();
  auto out = w.scatter(0, idx, s);
  (out * out).sum().backward();
  show("scatter: d self", w.grad());
  show("scatter: d src", s.grad());
  auto u = torch::linspace(0, 1, 7, torch::kFloat64).requires_grad_();
  auto windows = u.unfold(0, 3, 2);
  show("unfold", windows);
  (windows * windows).sum().backward();
  show("unfold: d self", u.grad());
  auto v = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kFloat64).requires_grad_();
  torch::scatter_reduce(torch::zeros({2}, torch::kFloat64), 0, torch::tensor({0, 1, 0, 1}, torch::kLong), v, "mean")
      .pow(2)
      .sum()
      .backward();
  show("scatter_reduce mean: d src", v.grad());
  // ---- in-place comparisons and logicals ----
  auto c = torch::tensor({-1.5, 0.0, 2.0, 3.0});
  auto c1 = c.clone();
  c1.gt_(0);
  show("gt_(0)", c1);
  auto c2 = c.clone();
  c2.le_(torch::tensor({0.0, 0.0, 5.0, 1.0}));
  show("le_(tensor)", c2);
  auto c3 = c.clone();
  c3.logical_not_();
  show("logical_not_", c3);
  auto c4 = torch::tensor({3, 0, -2, 5});
  c4.logical_and_(torch::tensor({1, 1, 0, 2}));
  show("logical_and_ int", c4);
  auto t = torch::arange(9, torch::kFloat32).reshape({3, 3});
  t.tril_();
  show("tril_", t);
  t.clamp_min_(2).clamp_max_(6);
  show("clamp_min_ clamp_max_", t);
  t.fmod_(4);
  show("fmod_", t);
  // ---- small ones ----
  auto [lo, hi] = x.aminmax(1);
  show("aminmax min", lo);
  show("aminmax max", hi);
  show("sum_to_size", x.sum_to_size({1, 4}));
  auto d = torch::zeros({5, 3});
  d.fill_diagonal_(1, true);
  show("fill_diagonal_ wrap", d);
  show("hardshrink", torch::tensor({-1.0f, -0.3f, 0.2f, 0.7f}).hardshrink());
  show("type_as", x.type_as(torch::zeros({1}, torch::kInt32)));
  std::cout << "is_signed " << x.is_signed() << " " << torch::zeros({1}, torch::kUInt8).is_signed() << "\n";
  std::cout << "get_device " << x.get_device() << " is_same_size " << x.is_same_size(x.t()) << "\n";
  // ---- bad input ----
  expect_error("scatter index out of range", "out of bounds",
               [&] { x.scatter(1, torch::tensor({{4}}, torch::kLong), 1.0); });
  expect_error("index_copy index out of range", "out of bounds",
               [&] { x.index_copy(0, torch::tensor({3}, torch::kLong), torch::ones({1, 4})); });
  expect_error("scatter int32 index", "int64", [&] { x.scatter(1, torch::tensor({{0}}, torch::kInt), 1.0); });
  return 0;
}
