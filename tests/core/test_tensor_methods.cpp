// libtorch's Tensor methods of issue 33 against PyTorch 1.13 (scripts/gen_tensor_methods_fixtures.py):
// flip, roll, repeat, sort, argsort, topk, cumsum, cumprod, var_mean, std_mean, isnan/isinf/isfinite,
// unique and unique_consecutive, prod, nansum, nanmean, count_nonzero, median, kthvalue, nonzero,
// masked_select, outer, dot, mv, movedim, tile, diagonal, diag, trace, tensor_split, diff, the stacking
// helpers and meshgrid, values and gradients; float64 gradcheck and gradgradcheck; the
// in-place views (unsqueeze_, squeeze_, t_, transpose_) with autograd; new_zeros and its kin;
// is_nonzero; the emulated CUDA device against the CPU; and bad input.
#include <cmath>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "autograd/gradcheck.h"
#include "tests/cuda_test_util.h"
#include "tests/fixture_cases.h"
#include "tests/fixture_json.h"
#include "tests/test_util.h"

namespace ember::test {
namespace {

Tensor first(const std::tuple<Tensor, Tensor>& t) { return std::get<0>(t); }
Tensor second(const std::tuple<Tensor, Tensor>& t) { return std::get<1>(t); }

// The inputs of the output-only cases (gen_tensor_methods_fixtures.py's ties, SPECIAL and L).
Tensor ties(ScalarType dt) {
  return tensor({{2, 1, 2, 0, 1, 2}, {5, 5, 5, 5, 5, 5}, {-1, 3, 3, -1, 0, 3}}).to(dt);
}
Tensor special(ScalarType dt) {
  return tensor({{1.0f, NAN, -INFINITY, 0.0f}, {INFINITY, -2.5f, NAN, 3.0f}}).to(dt);
}
Tensor L() { return tensor({{3, -1, 4, 1}, {5, 9, -2, 6}}); }
Tensor wave(IntArrayRef sizes, ScalarType dt) { return wave64(sizes).to(dt); }

// Mirrors GRAD_CASES: f(x).
const std::map<std::string, std::function<Tensor(const Tensor&)>>& grad_cases() {
  static const std::map<std::string, std::function<Tensor(const Tensor&)>> table = {
      {"flip_both",
       [](const Tensor& x) {
         return x.flip({0, 1});
       }},
      {"flip_last", [](const Tensor& x) { return x.flip({-1}); }},
      {"roll_one", [](const Tensor& x) { return x.roll({2}, {1}); }},
      {"roll_two",
       [](const Tensor& x) {
         return x.roll({1, -7}, {0, 1});
       }},
      {"roll_flat", [](const Tensor& x) { return x.roll({7}); }},
      {"repeat",
       [](const Tensor& x) {
         return x.repeat({2, 1, 3});
       }},
      {"sort_values", [](const Tensor& x) { return first(x.sort(1)); }},
      {"sort_descending_dim0", [](const Tensor& x) { return first(x.sort(0, /*descending=*/true)); }},
      {"topk_values", [](const Tensor& x) { return first(x.topk(3, 1)); }},
      {"topk_smallest_dim0", [](const Tensor& x) { return first(x.topk(2, 0, /*largest=*/false)); }},
      {"cumsum_dim1", [](const Tensor& x) { return x.cumsum(1); }},
      {"cumsum_dim0", [](const Tensor& x) { return x.cumsum(0); }},
      {"cumprod_dim1", [](const Tensor& x) { return x.cumprod(1); }},
      {"cumprod_zeros", [](const Tensor& x) { return x.cumprod(1); }},
      {"var_mean",
       [](const Tensor& x) {
         auto [v, m] = var_mean(x, 1);  // var_mean(x, {1}) too (the compat program calls that)
         return stack({v, m});
       }},
      {"std_mean",
       [](const Tensor& x) {
         auto [s, m] = std_mean(x, {0}, /*unbiased=*/false, /*keepdim=*/true);
         return cat({s, m});
       }},
      {"prod_all", [](const Tensor& x) { return x.prod(); }},
      {"prod_dim1", [](const Tensor& x) { return x.prod(1); }},
      {"prod_keepdim_dim0", [](const Tensor& x) { return x.prod(0, /*keepdim=*/true); }},
      {"prod_zeros_dim1", [](const Tensor& x) { return x.prod(1); }},
      {"prod_zeros_all", [](const Tensor& x) { return x.prod(); }},
      {"prod_one_zero_all", [](const Tensor& x) { return x[0].prod(); }},
      {"nansum_dim1", [](const Tensor& x) { return x.nansum({1}); }},
      {"nanmean_dim0", [](const Tensor& x) { return x.nanmean({0}); }},
      {"median_all", [](const Tensor& x) { return x.median(); }},
      {"median_dim1", [](const Tensor& x) { return first(x.median(1)); }},
      {"median_dim0_keepdim", [](const Tensor& x) { return first(x.median(0, /*keepdim=*/true)); }},
      {"kthvalue_dim0", [](const Tensor& x) { return first(x.kthvalue(2, 0)); }},
      {"kthvalue_keepdim", [](const Tensor& x) { return first(x.kthvalue(4, 1, true)); }},
      {"masked_select", [](const Tensor& x) { return x.masked_select(x > 0); }},
      {"masked_select_broadcast",
       [](const Tensor& x) {
         return x.masked_select(tensor({true, false, true, true, false}));
       }},
      {"outer", [](const Tensor& x) { return x[0].outer(x[1]); }},
      {"dot", [](const Tensor& x) { return x[0].dot(x[2]); }},
      {"mv", [](const Tensor& x) { return x.mv(x[1]); }},
      {"movedim",
       [](const Tensor& x) {
         return x.reshape({1, 3, 5}).movedim({0, 1}, {2, 0});
       }},
      {"tile", [](const Tensor& x) { return x.tile({2}); }},
      {"tile_more_dims",
       [](const Tensor& x) {
         return x.tile({2, 1, 2});
       }},
      {"diagonal", [](const Tensor& x) { return x.diagonal(1); }},
      {"diagonal_negative", [](const Tensor& x) { return x.diagonal(-1); }},
      {"diagonal_3d",
       [](const Tensor& x) {
         return x.reshape({3, 5, 1}).expand({3, 5, 4}).diagonal(0, 1, 2);
       }},
      {"diag_matrix", [](const Tensor& x) { return x[0].diag(1); }},
      {"diag_of_matrix", [](const Tensor& x) { return x.diag(-1); }},
      {"trace", [](const Tensor& x) { return x.trace(); }},
      {"tensor_split",
       [](const Tensor& x) {
         tensor_list p = x.tensor_split(2, 1);
         return cat({p[0], p[1] * 2}, 1);
       }},
      {"tensor_split_indices",
       [](const Tensor& x) {
         tensor_list p = x.tensor_split({1, 4}, 1);
         return cat({p[0], p[1] * 2, p[2] * 3}, 1);
       }},
      {"diff", [](const Tensor& x) { return x.diff(); }},
      {"diff_twice_dim0", [](const Tensor& x) { return x.diff(2, 0); }},
      {"diff_prepend_append", [](const Tensor& x) { return x.diff(1, 1, x.narrow(1, 0, 1) * 2, x.narrow(1, 4, 1)); }},
      {"hstack",
       [](const Tensor& x) {
         return hstack({x, x * 2});
       }},
      {"vstack",
       [](const Tensor& x) {
         return vstack({x[0], x[1] * 2, x});
       }},
      {"dstack",
       [](const Tensor& x) {
         return dstack({x, x * 2});
       }},
      {"column_stack",
       [](const Tensor& x) {
         return column_stack({x[0], x[1] * 2});
       }},
      {"meshgrid_ij",
       [](const Tensor& x) {
         return stack(meshgrid({x[0], x[1].narrow(0, 0, 3) * 2}, "ij"));
       }},
      {"meshgrid_xy",
       [](const Tensor& x) {
         return stack(meshgrid({x[0], x[1].narrow(0, 0, 3) * 2}, "xy"));
       }},
  };
  return table;
}

// Mirrors VALUE_CASES: f(dtype), output only.
const std::map<std::string, std::function<Tensor(ScalarType)>>& value_cases() {
  static const std::map<std::string, std::function<Tensor(ScalarType)>> table = {
      {"sort_indices_ties", [](ScalarType dt) { return second(ties(dt).sort(1)); }},
      {"sort_indices_ties_descending", [](ScalarType dt) { return second(ties(dt).sort(1, true)); }},
      {"argsort_dim0",
       [](ScalarType dt) { return ties(dt).argsort(int64_t{0}); }},  // argsort(0) is ambiguous, as in libtorch,
      {"topk_indices",
       [](ScalarType dt) {
         return second(wave({4, 6}, dt).topk(4, 1));
       }},
      {"sort_nan_values", [](ScalarType dt) { return first(special(dt).sort(1)); }},
      {"sort_nan_indices_descending", [](ScalarType dt) { return second(special(dt).sort(1, true)); }},
      {"isnan", [](ScalarType dt) { return special(dt).isnan(); }},
      {"isinf", [](ScalarType dt) { return special(dt).isinf(); }},
      {"isfinite", [](ScalarType dt) { return special(dt).isfinite(); }},
      {"unique_values", [](ScalarType dt) { return std::get<0>(unique(ties(dt), true, true, true)); }},
      {"unique_inverse", [](ScalarType dt) { return std::get<1>(unique(ties(dt), true, true, true)); }},
      {"unique_counts", [](ScalarType dt) { return std::get<2>(unique(ties(dt), true, true, true)); }},
      {"unique_consecutive_values",
       [](ScalarType dt) { return std::get<0>(unique_consecutive(ties(dt), true, true)); }},
      {"unique_consecutive_inverse",
       [](ScalarType dt) { return std::get<1>(unique_consecutive(ties(dt), true, true)); }},
      {"unique_consecutive_counts",
       [](ScalarType dt) { return std::get<2>(unique_consecutive(ties(dt), true, true)); }},
      {"nonzero", [](ScalarType dt) { return ties(dt).nonzero(); }},
      {"argwhere", [](ScalarType dt) { return (ties(dt) - 1).argwhere(); }},
      {"count_nonzero_dim1", [](ScalarType dt) { return ties(dt).count_nonzero(IntArrayRef{1}); }},
      {"median_nan_values", [](ScalarType dt) { return first(special(dt).median(1)); }},
      {"median_nan_indices", [](ScalarType dt) { return second(special(dt).median(1)); }},
      {"median_nan_all", [](ScalarType dt) { return special(dt).median(); }},
      {"kthvalue_nan", [](ScalarType dt) { return first(special(dt).kthvalue(3, 1)); }},
      {"nansum_special", [](ScalarType dt) { return special(dt).nansum({1}); }},
      {"nanmean_special", [](ScalarType dt) { return special(dt).nanmean({0}); }},
      {"prod_special", [](ScalarType dt) { return special(dt).prod(1); }},
  };
  return table;
}

// Mirrors INT_CASES.
const std::map<std::string, std::function<Tensor()>>& int_cases() {
  static const std::map<std::string, std::function<Tensor()>> table = {
      {"int_cumsum", [] { return L().cumsum(1); }},
      {"int_cumprod", [] { return L().cumprod(0); }},
      {"bool_cumsum", [] { return L().gt(2).cumsum(1); }},
      {"int_sort_descending", [] { return first(L().sort(1, true)); }},
      {"int_flip", [] { return L().flip({0}); }},
      {"int_repeat",
       [] {
         return L().repeat({1, 2});
       }},
      {"int_isfinite", [] { return L().isfinite(); }},
      {"int_unique", [] { return std::get<0>(unique(L())); }},
      {"float_cumsum_to_float64",
       [] {
         return wave({2, 3}, kFloat32).cumsum(1, kFloat64);
       }},
      {"int_prod", [] { return L().prod(1); }},
      {"bool_prod", [] { return L().gt(-2).prod(); }},
      {"int_prod_to_float64", [] { return L().prod(0, false, kFloat64); }},
      {"int_trace", [] { return L().narrow(1, 0, 2).trace(); }},
      {"int_diag", [] { return L()[0].diag(); }},
      {"int_count_nonzero", [] { return (L() - 1).count_nonzero(); }},
      {"int_diff", [] { return L().diff(); }},
      {"bool_diff", [] { return L().gt(2).diff(); }},
      {"int_median", [] { return first(L().median(1)); }},
      {"int_kthvalue", [] { return second(L().kthvalue(3, 1)); }},
      {"int_nonzero_1d", [] { return (L()[0] - 1).nonzero(); }},
      {"int_outer", [] { return L()[0].outer(L()[1]); }},
      {"int_dot", [] { return L()[0].dot(L()[1]); }},
  };
  return table;
}

TEST(TensorMethods, MatchesPyTorch) {
  const nlohmann::json& fixture = cached_fixture("core/tensor_methods.json");
  int checked = 0;
  for (const auto& [key, c] : fixture.items()) {
    SCOPED_TRACE(key);
    const std::string name = key.substr(0, key.find('/')), tag = key.substr(key.find('/') + 1);
    const ScalarType dt = tag == "float64" ? kFloat64 : kFloat32;
    if (grad_cases().count(name)) {
      check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad,
                         [&](const NamedInputs& in) { return grad_cases().at(name)(in.at("x")); });
    } else {
      Tensor out = value_cases().count(name) ? value_cases().at(name)(dt) : int_cases().at(name)();
      Tensor expected = tensor_from_json(c.at("output"));
      EXPECT_EQ(out.dtype(), expected.dtype());
      EXPECT_TENSOR_CLOSE(out, expected, 1e-6, 1e-6);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2 * (54 + 25) + 22);
}

TEST(TensorMethods, Gradcheck) {
  Tensor x = wave64({3, 5});
  Tensor zeroed = x.clone();
  zeroed.index_put_({tensor({0, 1, 1, 2}), tensor({1, 3, 4, 0})}, 0.0);  // cumprod past a row's first zero
  check_grad_cases({
      {"flip",
       [](const tensor_list& in) {
         return in[0].flip({0, 1});
       },
       {x}},
      {"roll",
       [](const tensor_list& in) {
         return in[0].roll({1, -2}, {0, 1});
       },
       {x}},
      {"repeat",
       [](const tensor_list& in) {
         return in[0].repeat({2, 1, 2});
       },
       {x}},
      {"sort", [](const tensor_list& in) { return first(in[0].sort(1, true)); }, {x}},
      {"topk", [](const tensor_list& in) { return first(in[0].topk(2, 0)); }, {x}},
      {"cumsum", [](const tensor_list& in) { return in[0].cumsum(1); }, {x}},
      {"cumprod", [](const tensor_list& in) { return in[0].cumprod(1); }, {x}},
      {"cumprod_zeros", [](const tensor_list& in) { return in[0].cumprod(1); }, {zeroed}},
      {"cumprod_dim0", [](const tensor_list& in) { return in[0].cumprod(0); }, {zeroed}},
      {"var_mean", [](const tensor_list& in) { return first(var_mean(in[0], 0)) + second(var_mean(in[0], 0)); }, {x}},
      {"prod", [](const tensor_list& in) { return in[0].prod(1); }, {x}},
      {"prod_zeros", [](const tensor_list& in) { return in[0].prod(1); }, {zeroed}},
      {"prod_all_one_zero", [](const tensor_list& in) { return in[0][0].prod(); }, {zeroed}},
      {"median", [](const tensor_list& in) { return first(in[0].median(1)); }, {x}},
      {"kthvalue", [](const tensor_list& in) { return first(in[0].kthvalue(2, 0, true)); }, {x}},
      {"masked_select", [](const tensor_list& in) { return in[0].masked_select(in[0].detach() > 0); }, {x}},
      {"outer_dot_mv",
       [](const tensor_list& in) {
         return in[0][0].outer(in[0][1]) * in[0][0].dot(in[0][2]) + in[0].mv(in[0][1]).sum();
       },
       {x}},
      {"diagonal", [](const tensor_list& in) { return in[0].diagonal(1) * 2; }, {x}},
      {"diag", [](const tensor_list& in) { return in[0][1].diag(-2); }, {x}},
      {"trace", [](const tensor_list& in) { return in[0].trace(); }, {x}},
      {"diff", [](const tensor_list& in) { return in[0].diff(2, 1, in[0].narrow(1, 0, 2)); }, {x}},
      {"stacks",
       [](const tensor_list& in) {
         return dstack({in[0], column_stack({in[0][0], in[0][1], in[0][2]}).t()});
       },
       {x}},
  });
}

TEST(TensorMethods, DiagonalIsAView) {
  Tensor m = zeros({3, 4});
  m.diagonal(1).fill_(7);
  EXPECT_EQ(m.sum().item<float>(), 21.0f);
  EXPECT_EQ(m.diagonal(1).stride(0), 5);
  EXPECT_EQ(m.diagonal(-3).numel(), 0);
  EXPECT_EQ(m.diagonal(9).numel(), 0);
  EXPECT_EQ(m.t().diagonal().sizes(), IntArrayRef({3}));
}

TEST(TensorMethods, InPlaceViewsChangeEveryHandle) {
  Tensor x = arange(6, dtype(kFloat32)).view({2, 3});
  Tensor alias = x;
  x.unsqueeze_(0);
  EXPECT_EQ(alias.sizes(), IntArrayRef({1, 2, 3}));
  alias.squeeze_();
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3}));
  x.t_();
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(x.strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(x.index({2, 1}).item<float>(), 5);
  x.transpose_(0, 1).unsqueeze_(-1).squeeze_(2);
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(x.index({1, 2}).item<float>(), 5);
  EXPECT_EQ(x.squeeze_(0).sizes(), IntArrayRef({2, 3}));  // a dim that is not 1 stays
}

TEST(TensorMethods, InPlaceViewsCarryAutograd) {
  Tensor w = wave64({2, 3}).requires_grad_();
  Tensor y = w * 2;
  const uint32_t before = y._version();
  y.unsqueeze_(0);
  EXPECT_EQ(y.grad_fn_name(), "UnsqueezeBackward0");
  EXPECT_GT(y._version(), before);
  EXPECT_THROWS_WITH(y.t_(), "t: expects a tensor with <= 2 dimensions, but self is 3D");  // as libtorch
  EXPECT_EQ(y.sizes(), IntArrayRef({1, 2, 3}));
}

TEST(TensorMethods, InPlaceViewsGradients) {
  Tensor w = wave64({2, 3}).requires_grad_();
  Tensor y = w * 2;
  y.unsqueeze_(0).transpose_(1, 2);  // (1, 3, 2)
  (y * arange(6, dtype(kFloat64)).view({1, 3, 2})).sum().backward();
  // dy/dw = 2 at the transposed position: w[i, j] meets weight 2 * j + i.
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({{0.0, 4.0, 8.0}, {2.0, 6.0, 10.0}}));
  Tensor leaf = zeros({2, 3}, requires_grad());
  EXPECT_THROWS_WITH(leaf.unsqueeze_(0), "a leaf Variable that requires grad is being used in an in-place operation");
  {
    NoGradGuard no_grad;
    leaf.unsqueeze_(0);  // allowed without grad mode, as in libtorch
  }
  EXPECT_EQ(leaf.sizes(), IntArrayRef({1, 2, 3}));
  EXPECT_TRUE(leaf.requires_grad());
}

TEST(TensorMethods, NewTensorsFollowSelf) {
  Tensor x = ones({2}, dtype(kFloat64));
  Tensor z = x.new_zeros({3, 1});
  EXPECT_EQ(z.dtype(), kFloat64);
  EXPECT_EQ(z.sizes(), IntArrayRef({3, 1}));
  EXPECT_EQ(z.sum().item<double>(), 0);
  EXPECT_EQ(x.new_ones({2, 2}, dtype(kInt64)).dtype(), kInt64);
  EXPECT_EQ(x.new_full({2}, 2.5).sum().item<double>(), 5);
  EXPECT_EQ(x.new_empty({4}).numel(), 4);
  EXPECT_FALSE(x.requires_grad_().new_zeros({1}).requires_grad());
  EXPECT_TRUE(x.new_ones({1}, requires_grad()).requires_grad());
}

TEST(TensorMethods, IsNonzero) {
  EXPECT_TRUE(tensor({2.5f}).is_nonzero());
  EXPECT_FALSE(tensor(0.0).is_nonzero());
  EXPECT_TRUE(tensor(NAN).is_nonzero());
  EXPECT_FALSE(tensor({false}).is_nonzero());
  EXPECT_TRUE(tensor({{int64_t{-3}}}).is_nonzero());
  EXPECT_THROWS_WITH(zeros({0}).is_nonzero(), "Boolean value of Tensor with no values is ambiguous");
  EXPECT_THROWS_WITH(zeros({2}).is_nonzero(), "Boolean value of Tensor with more than one value is ambiguous");
}

TEST(TensorMethods, EdgeShapes) {
  // 0-dim: one row of one element; empty rows; k = 0; flip of nothing copies.
  auto [v, i] = tensor(5.0).sort();
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_EQ(tensor(5.0).cumsum(0).item<double>(), 5);
  EXPECT_EQ(first(zeros({3, 0}).sort(1)).sizes(), IntArrayRef({3, 0}));
  EXPECT_EQ(zeros({0, 4}).cumprod(1).sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(first(ones({2, 5}).topk(0)).sizes(), IntArrayRef({2, 0}));
  Tensor s = tensor(2.0).requires_grad_();
  auto [top, where] = s.topk(1);
  EXPECT_EQ(top.dim(), 0);
  EXPECT_EQ(where.item<int64_t>(), 0);
  (first(s.sort()) * 3 + top).backward();
  EXPECT_EQ(s.grad().item<double>(), 4);
  Tensor x = ones({2});
  Tensor same = x.flip({});
  EXPECT_FALSE(same.is_alias_of(x));
  EXPECT_EQ(std::get<0>(unique(zeros({0}))).numel(), 0);
  EXPECT_EQ(tensor(3.0).repeat({2}).sizes(), IntArrayRef({2}));
  // int64 cumprod wraps as in PyTorch (two's complement), never undefined behaviour.
  Tensor big = full({3}, int64_t{1} << 62, dtype(kInt64));
  EXPECT_EQ(big.cumprod(0).to_vector<int64_t>(), (std::vector<int64_t>{int64_t{1} << 62, 0, 0}));
  // In place keeps the dtype.
  Tensor c = tensor({1.0f, 2.0f, 3.0f});
  c.cumsum_(0);
  EXPECT_TENSOR_CLOSE(c, tensor({1.0f, 3.0f, 6.0f}));
  c.cumprod_(0);
  EXPECT_TENSOR_CLOSE(c, tensor({1.0f, 3.0f, 18.0f}));
}

TEST(TensorMethods, BFloat16SortsAndScans) {
  Tensor x = tensor({3.0f, -1.0f, 2.0f}).to(kBFloat16);
  auto [v, i] = x.sort();
  EXPECT_EQ(v.dtype(), kBFloat16);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(x.cumsum(0).dtype(), kBFloat16);
  EXPECT_TENSOR_CLOSE(x.cumsum(0).to(kFloat32), tensor({3.0f, 2.0f, 4.0f}));
}

TEST(TensorMethods, EmulatedCudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = wave({4, 7}, kFloat32);
  x.index_put_({1, 2}, NAN);
  x.index_put_({2}, 0.5f);  // a row of ties
  Tensor g = x.to(kCUDA);
  for (bool descending : {false, true}) {
    auto [cv, ci] = x.sort(1, descending);
    auto [gv, gi] = g.sort(1, descending);
    EXPECT_TENSOR_CLOSE(gv.cpu(), cv);
    EXPECT_EQ(gi.cpu().to_vector<int64_t>(), ci.to_vector<int64_t>());
  }
  EXPECT_EQ(second(g.sort(0)).cpu().to_vector<int64_t>(), second(x.sort(0)).to_vector<int64_t>());
  EXPECT_TENSOR_CLOSE(g.cumsum(1).cpu(), x.cumsum(1), 1e-5, 1e-6);
  EXPECT_TENSOR_CLOSE(g.cumprod(0).cpu(), x.cumprod(0), 1e-5, 1e-6);
  EXPECT_EQ(L().to(kCUDA).cumprod(1).cpu().to_vector<int64_t>(), L().cumprod(1).to_vector<int64_t>());
  EXPECT_EQ(L().gt(2).to(kCUDA).cumsum(1).cpu().to_vector<int64_t>(), L().gt(2).cumsum(1).to_vector<int64_t>());
  Tensor w = wave({3, 5}, kFloat64).to(kCUDA).requires_grad_();
  (first(w.topk(2, 1)) * 3).sum().backward();
  EXPECT_EQ(w.grad().cpu().sum().item<double>(), 18);
  auto [u, inverse, counts] = unique(ties(kFloat32).to(kCUDA), true, true, true);
  EXPECT_TENSOR_CLOSE(u.cpu(), std::get<0>(unique(ties(kFloat32))));
  EXPECT_EQ(counts.cpu().to_vector<int64_t>(), std::get<2>(unique(ties(kFloat32), true, false, true)).to_vector<int64_t>());
  EXPECT_TRUE(g.flip({1}).is_cuda());
  EXPECT_TENSOR_CLOSE(g.roll({3}, {1}).cpu(), x.roll({3}, {1}));
  const Tensor y = wave({4, 7}, kFloat32);
  const Tensor gy = y.to(kCUDA);
  EXPECT_TENSOR_CLOSE(gy.prod(1).cpu(), y.prod(1), 1e-5, 1e-6);
  EXPECT_TENSOR_CLOSE(first(gy.median(1)).cpu(), first(y.median(1)));
  EXPECT_EQ(second(gy.kthvalue(3, 0)).cpu().to_vector<int64_t>(), second(y.kthvalue(3, 0)).to_vector<int64_t>());
  EXPECT_EQ(gy.gt(0).nonzero().cpu().to_vector<int64_t>(), y.gt(0).nonzero().to_vector<int64_t>());
  EXPECT_TENSOR_CLOSE(gy.masked_select(gy > 0).cpu(), y.masked_select(y > 0));
  EXPECT_TENSOR_CLOSE(gy.diagonal(2).cpu(), y.diagonal(2));
  EXPECT_TENSOR_CLOSE(gy.mv(gy[0]).cpu(), y.mv(y[0]), 1e-5, 1e-6);
  EXPECT_TENSOR_CLOSE(gy.diff(1, 0).cpu(), y.diff(1, 0));
  Tensor leaf = y.to(kCUDA).requires_grad_();
  (leaf.prod(0) * 2).sum().backward();
  Tensor leaf_cpu = y.clone().requires_grad_();
  (leaf_cpu.prod(0) * 2).sum().backward();
  EXPECT_TENSOR_CLOSE(leaf.grad().cpu(), leaf_cpu.grad(), 1e-5, 1e-6);
}

TEST(TensorMethods, BadInput) {
  Tensor x = zeros({3, 2});
  EXPECT_THROWS_WITH(x.roll({1, 2}, {0}), "roll: shifts and dimensions must align. shifts: 2, dims:1");
  EXPECT_THROWS_WITH(x.roll({1, 2}), "roll: `shifts` required to be of size 1 when `dims` is empty");
  EXPECT_THROWS_WITH(x.repeat({2}), "Number of dimensions of repeat dims can not be smaller than number of dimensions");
  EXPECT_THROWS_WITH(x.repeat({2, -1}), "repeat: Trying to create tensor with negative dimension -1");
  EXPECT_THROWS_WITH(x.flip({0, 0}), "flip: dim 0 appears multiple times in the list of dims");
  EXPECT_THROWS_WITH(x.topk(4), "topk: selected index k out of range (k = 4, dimension 1 has size 2)");
  EXPECT_THROWS_WITH(x.topk(-1), "topk: selected index k out of range");
  EXPECT_THROWS_WITH(x.sort(2), "sort: dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROWS_WITH(x.cumsum(-3), "cumsum: dimension out of range");
  EXPECT_THROWS_WITH(x.unsqueeze_(3), "unsqueeze: dimension out of range");
  EXPECT_THROWS_WITH(zeros({2, 2, 2}).t_(), "t: expects a tensor with <= 2 dimensions, but self is 3D");
  EXPECT_THROWS_WITH(unique_consecutive(x, false, false, 0), "unique_consecutive: a `dim` is not supported");
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 2}));  // failed in-place views leave the tensor as it was
  EXPECT_THROWS_WITH(x.prod(2), "prod: dimension out of range");
  EXPECT_THROWS_WITH(zeros({2, 0}).median(1), "median(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROWS_WITH(zeros({0}).median(), "median() input tensor cannot be empty");
  EXPECT_THROWS_WITH(x.kthvalue(3, 1), "kthvalue(): selected number k out of range for dimension 1 (k = 3, size 2)");
  EXPECT_THROWS_WITH(x.kthvalue(0, 0), "kthvalue(): selected number k out of range");
  EXPECT_THROWS_WITH(x.masked_select(x), "masked_select: expected BoolTensor for mask, got float32");
  EXPECT_THROWS_WITH(x.masked_select(tensor({true, false, true})), "masked_select");
  EXPECT_THROWS_WITH(x.outer(x), "outer: Expected 1-D argument self, but got 2-D (shape [3, 2])");
  EXPECT_THROWS_WITH(x[0].dot(x), "dot: 1D tensors expected, but got 1D and 2D tensors");
  EXPECT_THROWS_WITH(x[0].dot(zeros({3})), "dot: inconsistent tensor size, expected tensor [2] and src [3]");
  EXPECT_THROWS_WITH(x[0].dot(x[0].to(kFloat64)),
                     "dot : expected both vectors to have same dtype, but found Float and Double");
  EXPECT_THROWS_WITH(x.mv(zeros({3})), "mv: size mismatch");
  EXPECT_THROWS_WITH(x.movedim({0, 1}, {0}), "movedim: Invalid source or destination dims: source ([0, 1] dims)");
  EXPECT_THROWS_WITH(x.movedim({0, 0}, {0, 1}), "movedim: repeated dim in `source` ([0, 0])");
  EXPECT_THROWS_WITH(x[0].diagonal(), "diagonal: expected a tensor with at least 2 dimensions, got shape [2]");
  EXPECT_THROWS_WITH(x.diagonal(0, 1, -1), "diagonal dimensions cannot be identical 1, -1");
  EXPECT_THROWS_WITH(zeros({2, 2, 2}).diag(), "diag(): Supports 1D or 2D tensors. Got 3D");
  EXPECT_THROWS_WITH(x[0].trace(), "trace: expected a matrix, but got tensor with dim 1");
  EXPECT_THROWS_WITH(x.tensor_split(0), "tensor_split: number of sections must be greater than 0, but was 0");
  EXPECT_THROWS_WITH(x.diff(-1), "order must be non-negative but got -1");
  EXPECT_THROWS_WITH(zeros({}).diff(), "diff expects input to be at least one-dimensional");
  EXPECT_THROWS_WITH(hstack({}), "hstack expects a non-empty TensorList");
  EXPECT_THROWS_WITH(meshgrid({x}), "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: 2D");
  EXPECT_THROWS_WITH(meshgrid({x[0]}, "yx"), "torch.meshgrid: indexing must be one of \"xy\" or \"ij\"");
  EXPECT_THROWS_WITH(tensor({1, 2}).nanmean(), "nanmean(): expected input to have floating point dtype but got Long");
}

}  // namespace
}  // namespace ember::test
