// Tensor methods against PyTorch 1.13: the scatter family (autograd/scatter.cpp: scatter, scatter_reduce,
// index_add/copy/fill, masked_scatter, put), unfold, the in-place comparisons and logicals, and the small
// methods of autograd/aten_methods.cpp (sum_to_size, aminmax, hardshrink, prelu, fill_diagonal_, ...):
// values and gradients, then gradcheck in float64, bad input (the message names the op and the value),
// and the queries a fixture cannot carry (is_signed, get_device, new_empty_strided).
//
// Fixtures come from scripts/gen_methods2_fixtures.py (tests/fixtures/methods2.json); each table line is
// the C++ twin of one `case(...)` there.
#include <functional>
#include <map>
#include <string>

#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

Tensor longs(std::vector<int64_t> values, IntArrayRef shape) { return from_vector(values, shape, dtype(kInt64)); }

const Tensor& idx23() {
  static const Tensor t = longs({2, 0, 1, 1, 2, 0}, {2, 3});
  return t;
}
const Tensor& sr_index() {
  static const Tensor t = longs({0, 1, 0, 3, 1, 2, 2, 0, 2, 1}, {2, 5});
  return t;
}

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    // ---- scatter ----
    t["scatter_src"] = [](const NamedInputs& in) { return in.at("x").scatter(0, idx23(), in.at("src")); };
    t["scatter_src_larger"] = t["scatter_src"];
    t["scatter_src_dim1"] = [](const NamedInputs& in) {
      return in.at("x").scatter(1, longs({3, 0, 1, 2, 0, 3}, {3, 2}), in.at("src"));
    };
    t["scatter_value"] = [](const NamedInputs& in) { return in.at("x").scatter(0, idx23(), 1.5); };
    t["scatter_reduce_add"] = [](const NamedInputs& in) { return in.at("x").scatter(0, idx23(), in.at("src"), "add"); };
    t["scatter_reduce_multiply"] = [](const NamedInputs& in) {
      return in.at("x").scatter(0, idx23(), in.at("src"), "multiply");
    };
    t["scatter_value_add"] = [](const NamedInputs& in) {
      return in.at("x").scatter(1, longs({0, 0, 3, 1, 2, 2}, {3, 2}), 2.0, "add");
    };
    t["scatter_value_multiply"] = [](const NamedInputs& in) {
      return in.at("x").scatter(1, longs({0, 0, 3, 1, 2, 2}, {3, 2}), 2.0, "multiply");
    };
    t["scatter_inplace"] = [](const NamedInputs& in) { return in.at("x").clone().scatter_(0, idx23(), in.at("src")); };
    t["scatter_inplace_value"] = [](const NamedInputs& in) {
      return in.at("x").clone().scatter_(-1, longs({1, 0, 3}, {3, 1}), -2.0);
    };
    t["scatter_one_hot"] = [](const NamedInputs& in) {
      return zeros({4, 5}).scatter_(1, in.at("labels").unsqueeze(1), 1);
    };
    t["scatter_int"] = t["scatter_src"];
    t["scatter_add_inplace"] = [](const NamedInputs& in) {
      return in.at("x").clone().scatter_add_(0, idx23(), in.at("src"));
    };
    t["scatter_repeated_index"] = [](const NamedInputs& in) {
      return in.at("x").scatter(0, longs({1, 3, 1, 3}, {4}), in.at("src"));
    };
    // ---- scatter_reduce ----
    for (const std::string reduce : {"sum", "prod", "mean", "amax", "amin"}) {
      t["scatter_reduce_" + reduce] = [reduce](const NamedInputs& in) {
        return in.at("x").scatter_reduce(1, sr_index(), in.at("src"), reduce);
      };
      t["scatter_reduce_" + reduce + "_exclude_self"] = [reduce](const NamedInputs& in) {
        return in.at("x").scatter_reduce(1, sr_index(), in.at("src"), reduce, /*include_self=*/false);
      };
    }
    t["scatter_reduce_prod_zero"] = t["scatter_reduce_prod"];
    t["scatter_reduce_mean_int"] = t["scatter_reduce_mean"];
    t["scatter_reduce_amax_float32"] = t["scatter_reduce_amax_exclude_self"];
    t["scatter_reduce_inplace"] = [](const NamedInputs& in) {
      return in.at("x").clone().scatter_reduce_(1, sr_index(), in.at("src"), "sum");
    };
    // ---- index_add, index_copy, index_fill ----
    t["index_add_alpha"] = [](const NamedInputs& in) {
      return in.at("x").index_add(0, longs({2, 0, 2}, {3}), in.at("src"), 2.5);
    };
    t["index_add_inplace"] = [](const NamedInputs& in) {
      return in.at("x").clone().index_add_(1, longs({3, 1, 3}, {3}), in.at("src"), -1);
    };
    t["index_copy"] = [](const NamedInputs& in) { return in.at("x").index_copy(1, longs({3, 0}, {2}), in.at("src")); };
    t["index_copy_inplace"] = [](const NamedInputs& in) {
      return in.at("x").clone().index_copy_(0, longs({2, 0}, {2}), in.at("src"));
    };
    t["index_fill_scalar"] = [](const NamedInputs& in) { return in.at("x").index_fill(1, longs({1, -1, 1}, {3}), -3.0); };
    t["index_fill_tensor"] = [](const NamedInputs& in) {
      return in.at("x").index_fill(0, longs({0, 2, 0}, {3}), in.at("value"));
    };
    t["index_fill_inplace"] = [](const NamedInputs& in) { return in.at("x").clone().index_fill_(0, longs({1}, {1}), 9.0); };
    t["index_fill_int"] = [](const NamedInputs& in) { return in.at("x").index_fill(1, longs({0, 2}, {2}), 7); };
    // ---- masked_scatter, put ----
    t["masked_scatter"] = [](const NamedInputs& in) {
      const Tensor mask = wave64({3, 4}, 0.8).gt(0);  // the generator's wave(3, 4, phase=0.8) > 0
      return in.at("x").masked_scatter(mask, in.at("src"));
    };
    t["masked_scatter_broadcast"] = [](const NamedInputs& in) {
      return in.at("x").clone().masked_scatter_(tensor({true, false, true, false}), in.at("src"));
    };
    t["put"] = [](const NamedInputs& in) { return in.at("x").put(longs({0, 5, -1, 7}, {2, 2}), in.at("src")); };
    t["put_accumulate"] = [](const NamedInputs& in) {
      return in.at("x").clone().put_(longs({3, -9, 3, 11}, {4}), in.at("src"), /*accumulate=*/true);
    };
    // ---- unfold ----
    t["unfold"] = [](const NamedInputs& in) { return in.at("x").unfold(1, 3, 2); };
    t["unfold_overlapping"] = [](const NamedInputs& in) { return in.at("x").unfold(-1, 4, 1); };
    t["unfold_dim0"] = [](const NamedInputs& in) { return in.at("x").unfold(0, 2, 3); };
    t["unfold_of_transpose"] = [](const NamedInputs& in) { return in.at("x").t().unfold(0, 2, 2); };
    // ---- in-place comparisons and logicals ----
    using Method = Tensor& (Tensor::*)(const Tensor&);
    using ScalarMethod = Tensor& (Tensor::*)(const Scalar&);
    const std::tuple<const char*, Method, ScalarMethod> comparisons[] = {
        {"eq", &Tensor::eq_, &Tensor::eq_},
        {"ne", &Tensor::ne_, &Tensor::ne_},
        {"lt", &Tensor::lt_, &Tensor::lt_},
        {"le", &Tensor::le_, &Tensor::le_},
        {"gt", &Tensor::gt_, &Tensor::gt_},
        {"ge", &Tensor::ge_, &Tensor::ge_},
        {"greater", &Tensor::greater_, &Tensor::greater_},
        {"greater_equal", &Tensor::greater_equal_, &Tensor::greater_equal_},
        {"less", &Tensor::less_, &Tensor::less_},
        {"less_equal", &Tensor::less_equal_, &Tensor::less_equal_},
        {"not_equal", &Tensor::not_equal_, &Tensor::not_equal_},
    };
    for (const auto& [op, m, sm] : comparisons) {
      t[std::string(op) + "_"] = [m = m](const NamedInputs& in) {
        Tensor a = in.at("a").clone();
        return (a.*m)(in.at("b"));
      };
      t[std::string(op) + "_scalar"] = [sm = sm](const NamedInputs& in) {
        Tensor a = in.at("a").clone();
        return (a.*sm)(0.0);
      };
    }
    t["ge_int"] = [](const NamedInputs& in) { return in.at("a").clone().ge_(0); };
    t["lt_broadcast"] = t["lt_"];
    t["logical_and_"] = [](const NamedInputs& in) { return in.at("a").clone().logical_and_(in.at("b")); };
    t["logical_or_"] = [](const NamedInputs& in) { return in.at("a").clone().logical_or_(in.at("b")); };
    t["logical_xor_"] = [](const NamedInputs& in) { return in.at("a").clone().logical_xor_(in.at("b")); };
    t["logical_not_"] = [](const NamedInputs& in) { return in.at("a").clone().logical_not_(); };
    t["logical_and_int"] = t["logical_and_"];
    // ---- other in-place forms ----
    t["tril_"] = [](const NamedInputs& in) { return in.at("x").clone().tril_(1); };
    t["triu_"] = [](const NamedInputs& in) { return in.at("x").clone().triu_(-1); };
    t["clamp_min_"] = [](const NamedInputs& in) { return in.at("x").clone().clamp_min_(0.1); };
    t["clamp_max_"] = [](const NamedInputs& in) { return in.at("x").clone().clamp_max_(-0.2); };
    t["fmod_"] = [](const NamedInputs& in) { return in.at("x").clone().fmod_(1.5); };
    t["fmod_tensor"] = [](const NamedInputs& in) { return in.at("x").clone().fmod_(in.at("y")); };
    t["remainder_"] = [](const NamedInputs& in) { return in.at("x").clone().remainder_(-1.5); };
    t["remainder_tensor"] = [](const NamedInputs& in) { return in.at("x").clone().remainder_(in.at("y")); };
    t["swapaxes_"] = [](const NamedInputs& in) { return in.at("x").clone().swapaxes_(0, 2); };
    t["swapdims_"] = [](const NamedInputs& in) { return in.at("x").clone().swapdims_(1, -1); };
    // ---- small ones ----
    t["sum_to_size"] = [](const NamedInputs& in) { return in.at("x").sum_to_size({3, 1}); };
    t["sum_to_size_keep"] = [](const NamedInputs& in) { return in.at("x").sum_to_size({2, 1, 4}); };
    t["aminmax_min"] = [](const NamedInputs& in) { return std::get<0>(in.at("x").aminmax(1)); };
    t["aminmax_max_keepdim"] = [](const NamedInputs& in) { return std::get<1>(in.at("x").aminmax(0, true)); };
    t["aminmax_all_min"] = [](const NamedInputs& in) { return std::get<0>(in.at("x").aminmax()); };
    t["aminmax_all_max"] = [](const NamedInputs& in) { return std::get<1>(in.at("x").aminmax()); };
    t["hardshrink"] = [](const NamedInputs& in) { return in.at("x").hardshrink(0.4); };
    t["hardshrink_default"] = [](const NamedInputs& in) { return in.at("x").hardshrink(); };
    t["prelu"] = [](const NamedInputs& in) { return in.at("x").prelu(in.at("w")); };
    t["fill_diagonal_"] = [](const NamedInputs& in) { return in.at("x").clone().fill_diagonal_(7.0); };
    t["fill_diagonal_tall_wrap"] = [](const NamedInputs& in) { return in.at("x").clone().fill_diagonal_(-1.0, true); };
    t["fill_diagonal_tall"] = [](const NamedInputs& in) { return in.at("x").clone().fill_diagonal_(-1.0); };
    t["fill_diagonal_3d"] = [](const NamedInputs& in) { return in.at("x").clone().fill_diagonal_(5.0); };
    t["type_as"] = [](const NamedInputs& in) { return in.at("x").type_as(in.at("other")); };
    t["multinomial"] = [](const NamedInputs& in) { return in.at("p").multinomial(3); };
    t["multinomial_replacement"] = [](const NamedInputs& in) { return in.at("p").multinomial(6, true); };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("methods2.json"); }

class TensorMethods2Reference : public ::testing::TestWithParam<std::string> {};

TEST_P(TensorMethods2Reference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, TensorMethods2Reference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(TensorMethods2, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  EXPECT_EQ(cases().size(), fixture().size());
}

// Distinct indices per written element where a gradient depends on which write won; scatter_reduce
// amax/amin on values without ties, prod away from zero.
TEST(TensorMethods2, GradcheckFloat64) {
  const Tensor idx = longs({2, 0, 1, 1, 2, 0}, {2, 3});
  const Tensor rep = longs({0, 1, 0, 3, 1, 2, 2, 0, 2, 1}, {2, 5});
  auto reduce_case = [&](const char* name, const char* reduce, bool include_self) {
    return GradCase{name,
                    [=](const tensor_list& x) { return x[0].scatter_reduce(1, rep, x[1], reduce, include_self); },
                    {wave64({2, 4}, 0.0, 1.0, 1.5), wave64({2, 5}, 0.7, 1.0, 1.5)},
                    /*second_order=*/false};
  };
  check_grad_cases({
      {"scatter", [&](const tensor_list& x) { return x[0].scatter(0, idx, x[1]); }, {wave64({3, 4}), wave64({2, 3}, 1.3)}},
      {"scatter_value", [&](const tensor_list& x) { return x[0].scatter(0, idx, 2.5); }, {wave64({3, 4})}},
      {"scatter_add_", [&](const tensor_list& x) { return x[0].clone().scatter_add_(0, idx, x[1]); },
       {wave64({3, 4}), wave64({2, 3}, 1.3)}},
      reduce_case("scatter_reduce_sum", "sum", true),
      reduce_case("scatter_reduce_sum_exclude_self", "sum", false),
      reduce_case("scatter_reduce_mean", "mean", true),
      reduce_case("scatter_reduce_mean_exclude_self", "mean", false),
      reduce_case("scatter_reduce_amax", "amax", true),
      reduce_case("scatter_reduce_amin_exclude_self", "amin", false),
      reduce_case("scatter_reduce_prod", "prod", true),
      reduce_case("scatter_reduce_prod_exclude_self", "prod", false),
      {"index_add", [](const tensor_list& x) { return x[0].index_add(1, longs({3, 1, 3}, {3}), x[1], 0.5); },
       {wave64({3, 4}), wave64({3, 3}, 0.2)}},
      {"index_copy", [](const tensor_list& x) { return x[0].index_copy(1, longs({3, 0}, {2}), x[1]); },
       {wave64({3, 4}), wave64({3, 2}, 0.6)}},
      {"index_fill", [](const tensor_list& x) { return x[0].index_fill(0, longs({0, 2, 0}, {3}), x[1]); },
       {wave64({3, 4}), wave64({}, 0.4)}},
      {"masked_scatter", [](const tensor_list& x) { return x[0].masked_scatter(tensor({false, true, true}), x[1]); },
       {wave64({2, 3}), wave64({5}, 0.9)}},
      {"put_accumulate", [](const tensor_list& x) { return x[0].put(longs({3, -1, 3}, {3}), x[1], true); },
       {wave64({2, 3}), wave64({3}, 0.9)}},
      {"put", [](const tensor_list& x) { return x[0].put(longs({4, 0}, {2}), x[1]); }, {wave64({2, 3}), wave64({2}, 0.9)}},
      {"unfold", [](const tensor_list& x) { return x[0].unfold(1, 3, 1); }, {wave64({2, 6})}},
      {"unfold_strided", [](const tensor_list& x) { return x[0].t().unfold(0, 2, 3); }, {wave64({3, 7})}},
      {"sum_to_size", [](const tensor_list& x) { return x[0].sum_to_size({3, 1}); }, {wave64({2, 3, 4})}},
      {"prelu", [](const tensor_list& x) { return x[0].prelu(x[1]); }, {wave64({2, 3, 2}), wave64({3}, 0.3)}},
  });
}

// The classic use: labels to one-hot rows, in place on zeros.
TEST(TensorMethods2, OneHotByScatter) {
  const Tensor labels = longs({2, 0, 1}, {3});
  const Tensor one_hot = zeros({3, 4}).scatter_(1, labels.unsqueeze(1), 1);
  EXPECT_TENSOR_CLOSE(one_hot, tensor({{0.f, 0.f, 1.f, 0.f}, {1.f, 0.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}}), 0, 0);
}

// Each message names the op and the value at fault.
TEST(TensorMethods2, BadInputNamesTheOpAndTheValue) {
  const Tensor x = zeros({2, 3});
  const Tensor idx = longs({0, 5}, {2, 1});
  EXPECT_THROWS_WITH(x.scatter(1, idx, 1.0), "scatter: index 5 is out of bounds for dimension 1 with size 3");
  EXPECT_THROWS_WITH(x.scatter(1, longs({-1}, {1, 1}), 1.0), "scatter: index -1 is out of bounds");
  EXPECT_THROWS_WITH(x.scatter(2, idx, 1.0), "scatter: dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROWS_WITH(x.scatter(1, idx.to(kInt32), 1.0), "scatter: expected an int64 index tensor, got int32");
  EXPECT_THROWS_WITH(x.scatter(1, longs({0}, {1}), 1.0),
                     "scatter: index tensor must have the same number of dimensions as self tensor");
  EXPECT_THROWS_WITH(x.scatter(0, longs({0, 0, 0, 0}, {1, 4}), 1.0), "scatter: expected index [1, 4]");
  EXPECT_THROWS_WITH(x.scatter(1, longs({0, 1}, {2, 1}), zeros({2, 1}, dtype(kFloat64))),
                     "scatter: expected self and src to have the same dtype, got float32 and float64");
  EXPECT_THROWS_WITH(x.scatter(1, longs({0, 1}, {2, 1}), zeros({2, 1}), "max"),
                     "scatter: reduce argument must be either add or multiply, got max");
  EXPECT_THROWS_WITH(x.scatter_reduce(1, longs({0, 1}, {2, 1}), zeros({2, 1}), "max"),
                     "scatter_reduce: reduce argument must be one of sum, prod, mean, amax or amin, got max");
  EXPECT_THROWS_WITH(x.index_copy(0, longs({2}, {1}), zeros({1, 3})),
                     "index_copy: index 2 is out of bounds for dimension 0 with size 2");
  EXPECT_THROWS_WITH(x.index_copy(0, longs({0, 1}, {2}), zeros({1, 3})), "index_copy: source [1, 3]");
  EXPECT_THROWS_WITH(x.index_fill(1, longs({-4}, {1}), 1.0),
                     "index_fill: index -4 is out of bounds for dimension 1 with size 3");
  EXPECT_THROWS_WITH(x.index_fill(1, longs({0}, {1}), zeros({1})), "index_fill: only supports a 0-dimensional value");
  EXPECT_THROWS_WITH(zeros({2, 3}).index_add_(0, longs({3}, {1}), zeros({1, 3}), 2),
                     "index_add: index 3 is out of bounds for dimension 0 with size 2");
  EXPECT_THROWS_WITH(x.masked_scatter(ones({2, 3}, dtype(kBool)), zeros({4})),
                     "masked_scatter: mask has 6 true elements but source has only 4 elements");
  EXPECT_THROWS_WITH(x.masked_scatter(ones({2, 3}), zeros({6})), "masked_scatter: only supports boolean masks");
  EXPECT_THROWS_WITH(x.put(longs({6}, {1}), zeros({1})), "put: index 6 is out of bounds for a tensor of 6 elements");
  EXPECT_THROWS_WITH(x.put(longs({0, 1}, {2}), zeros({1})), "put: expected source and index to have the same number");
  EXPECT_THROWS_WITH(x.unfold(1, 4, 1), "unfold: maximum size for tensor at dimension 1 is 3 but size is 4");
  EXPECT_THROWS_WITH(x.unfold(1, 2, 0), "unfold: step is 0 but must be > 0");
  EXPECT_THROWS_WITH(x.sum_to_size({4}), "sum_to_size: size [4] is not expandable to size [2, 3]");
  EXPECT_THROWS_WITH(zeros({2, 3, 4}).fill_diagonal_(1), "fill_diagonal_: all dimensions of input must be of equal");
}

// In-place writes bump the version and keep autograd: a scatter_ into a non-leaf sends the
// gradient to src through the write.
TEST(TensorMethods2, InPlaceScatterKeepsTheGraph) {
  const Tensor w = wave64({2, 3}).requires_grad_();
  const Tensor src = wave64({1, 3}, 0.5).requires_grad_();
  Tensor y = w * 2;
  y.scatter_(0, longs({1, 0, 1}, {1, 3}), src);
  (y * y).sum().backward();
  const Tensor y_ref = (w * 2).detach().scatter(0, longs({1, 0, 1}, {1, 3}), src.detach());
  EXPECT_TENSOR_CLOSE(src.grad(), (y_ref * 2).gather(0, longs({1, 0, 1}, {1, 3})), 1e-12, 0);
  EXPECT_TENSOR_CLOSE(w.grad(), (y_ref * 4).scatter(0, longs({1, 0, 1}, {1, 3}), 0), 1e-12, 0);
}

TEST(TensorMethods2, Queries) {
  EXPECT_TRUE(zeros({2}).is_signed());
  EXPECT_TRUE(zeros({2}, dtype(kInt8)).is_signed());
  EXPECT_FALSE(zeros({2}, dtype(kUInt8)).is_signed());
  EXPECT_FALSE(zeros({2}, dtype(kBool)).is_signed());
  EXPECT_EQ(zeros({2}, dtype(kFloat64)).itemsize(), 8u);
  EXPECT_EQ(zeros({2}).get_device(), -1);
  EXPECT_FALSE(zeros({2}).is_inference());
  EXPECT_TRUE(zeros({2, 3}).is_same_size(ones({2, 3})));
  EXPECT_FALSE(zeros({2, 3}).is_same_size(ones({3, 2})));
  const Tensor s = zeros({1}, dtype(kFloat64)).new_empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(s.strides(), IntArrayRef({1, 2}));
  EXPECT_EQ(s.dtype(), kFloat64);
  Tensor r = zeros({6});
  r.resize_as_(zeros({2, 3}));
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
}

}  // namespace
