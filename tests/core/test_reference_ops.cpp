// Forward values and gradients of the core ops against PyTorch, plus the errors bad input raises.
//
// Fixtures come from scripts/gen_core_fixtures.py (tests/fixtures/core_ops.json). Each table line
// below is the C++ twin of one `case(...)` in that script: it maps the case's inputs to its
// outputs. The harness compares every output (dtype and values), then backpropagates
// sum_k (out_k * w_k).sum() with the stored weights and compares each input's gradient.
#include <functional>
#include <limits>
#include <map>

#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using ember::test::load_fixture;
using ember::test::tensor_from_json;
using ember::test::tensors_from_json;

namespace {

using In = const tensor_list&;
using RefOp = std::function<tensor_list(In)>;
constexpr double kInf = std::numeric_limits<double>::infinity();

tensor_list pair(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }

// Each line mirrors the case of the same name in gen_core_fixtures.py (its lambda is the Python twin).
const std::map<std::string, RefOp>& reference_ops() {
  static const std::map<std::string, RefOp> ops = {
      // elementwise binary
      {"add", [](In x) -> tensor_list { return {x[0] + x[1]}; }},
      {"add_broadcast", [](In x) -> tensor_list { return {x[0] + x[1]}; }},
      {"add_alpha_f64", [](In x) -> tensor_list { return {x[0].add(x[1], 2.5)}; }},
      {"add_scalar", [](In x) -> tensor_list { return {x[0] + 1.5}; }},
      {"add_int64", [](In x) -> tensor_list { return {x[0] + x[1]}; }},
      {"add_int_float_promotion", [](In x) -> tensor_list { return {x[0] + x[1]}; }},
      {"sub", [](In x) -> tensor_list { return {x[0] - x[1]}; }},
      {"sub_alpha", [](In x) -> tensor_list { return {x[0].sub(x[1], 0.5)}; }},
      {"rsub_scalar", [](In x) -> tensor_list { return {2 - x[0]}; }},
      {"mul_broadcast_f64", [](In x) -> tensor_list { return {x[0] * x[1]}; }},
      {"mul_transposed", [](In x) -> tensor_list { return {x[0].t() * x[1]}; }},
      {"mul_scalar", [](In x) -> tensor_list { return {x[0] * -3}; }},
      {"div", [](In x) -> tensor_list { return {x[0] / x[1]}; }},
      {"div_transposed_broadcast", [](In x) -> tensor_list { return {x[0].t() / x[1].t()}; }},
      {"div_scalar", [](In x) -> tensor_list { return {x[0] / 4}; }},
      {"rdiv_scalar", [](In x) -> tensor_list { return {2 / x[0]}; }},
      {"div_int64", [](In x) -> tensor_list { return {x[0] / x[1]}; }},
      {"pow_tensor", [](In x) -> tensor_list { return {x[0].pow(x[1])}; }},
      {"pow_scalar_2", [](In x) -> tensor_list { return {x[0].pow(2)}; }},
      {"pow_scalar_frac_f64", [](In x) -> tensor_list { return {x[0].pow(2.5)}; }},
      {"pow_scalar_neg", [](In x) -> tensor_list { return {x[0].pow(-1.5)}; }},
      {"maximum", [](In x) -> tensor_list { return {maximum(x[0], x[1])}; }},
      {"minimum_f64", [](In x) -> tensor_list { return {minimum(x[0], x[1])}; }},
      {"maximum_ties", [](In x) -> tensor_list { return {maximum(x[0], x[1])}; }},
      // elementwise unary
      {"neg", [](In x) -> tensor_list { return {x[0].neg()}; }},
      {"exp", [](In x) -> tensor_list { return {x[0].exp()}; }},
      {"exp_transposed_f64", [](In x) -> tensor_list { return {x[0].t().exp()}; }},
      {"log", [](In x) -> tensor_list { return {x[0].log()}; }},
      {"log1p_f64", [](In x) -> tensor_list { return {x[0].log1p()}; }},
      {"sqrt", [](In x) -> tensor_list { return {x[0].sqrt()}; }},
      {"rsqrt_f64", [](In x) -> tensor_list { return {x[0].rsqrt()}; }},
      {"abs", [](In x) -> tensor_list { return {x[0].abs()}; }},
      {"sign", [](In x) -> tensor_list { return {x[0].sign()}; }},
      {"square", [](In x) -> tensor_list { return {x[0].square()}; }},
      {"reciprocal", [](In x) -> tensor_list { return {(x[0] + 2).reciprocal()}; }},
      {"sin", [](In x) -> tensor_list { return {x[0].sin()}; }},
      {"cos_f64", [](In x) -> tensor_list { return {x[0].cos()}; }},
      {"erf", [](In x) -> tensor_list { return {x[0].erf()}; }},
      {"erf_f64", [](In x) -> tensor_list { return {x[0].erf()}; }},
      {"tanh", [](In x) -> tensor_list { return {x[0].tanh()}; }},
      {"sigmoid", [](In x) -> tensor_list { return {x[0].sigmoid()}; }},
      {"sigmoid_f64", [](In x) -> tensor_list { return {x[0].sigmoid()}; }},
      {"relu", [](In x) -> tensor_list { return {x[0].relu()}; }},
      {"gelu", [](In x) -> tensor_list { return {x[0].gelu()}; }},
      {"gelu_f64", [](In x) -> tensor_list { return {x[0].gelu()}; }},
      {"gelu_tanh", [](In x) -> tensor_list { return {x[0].gelu("tanh")}; }},
      {"gelu_tanh_f64", [](In x) -> tensor_list { return {x[0].gelu("tanh")}; }},
      {"clamp", [](In x) -> tensor_list { return {x[0].clamp(-0.5, 0.5)}; }},
      {"clamp_min", [](In x) -> tensor_list { return {x[0].clamp_min(0.1)}; }},
      {"clamp_max_f64", [](In x) -> tensor_list { return {x[0].clamp_max(-0.2)}; }},
      {"unary_chain_sliced", [](In x) -> tensor_list { return {x[0].slice(0, 1).slice(1, 0, {}, 2).tanh().exp()}; }},
      // comparisons, logical ops, where, masked_fill
      {"eq", [](In x) -> tensor_list { return {x[0].eq(x[1])}; }},
      {"ne", [](In x) -> tensor_list { return {x[0].ne(x[1])}; }},
      {"lt", [](In x) -> tensor_list { return {x[0].lt(x[1])}; }},
      {"le", [](In x) -> tensor_list { return {x[0].le(x[1])}; }},
      {"gt", [](In x) -> tensor_list { return {x[0].gt(x[1])}; }},
      {"ge", [](In x) -> tensor_list { return {x[0].ge(x[1])}; }},
      {"eq_scalar", [](In x) -> tensor_list { return {x[0].eq(2)}; }},
      {"ne_scalar", [](In x) -> tensor_list { return {x[0].ne(2)}; }},
      {"lt_scalar", [](In x) -> tensor_list { return {x[0].lt(2.5)}; }},
      {"le_scalar", [](In x) -> tensor_list { return {x[0].le(2)}; }},
      {"gt_scalar", [](In x) -> tensor_list { return {x[0].gt(1.5)}; }},
      {"ge_scalar", [](In x) -> tensor_list { return {x[0].ge(2)}; }},
      {"lt_int64", [](In x) -> tensor_list { return {x[0].lt(x[1])}; }},
      {"logical_and", [](In x) -> tensor_list { return {x[0].logical_and(x[1])}; }},
      {"logical_or", [](In x) -> tensor_list { return {x[0].logical_or(x[1])}; }},
      {"logical_xor", [](In x) -> tensor_list { return {x[0].logical_xor(x[1])}; }},
      {"logical_not", [](In x) -> tensor_list { return {x[0].logical_not()}; }},
      {"logical_and_float", [](In x) -> tensor_list { return {x[0].logical_and(x[1])}; }},
      {"where", [](In x) -> tensor_list { return {where(x[0], x[1], x[2])}; }},
      {"where_broadcast_cond", [](In x) -> tensor_list { return {where(x[0], x[1], x[2])}; }},
      {"masked_fill", [](In x) -> tensor_list { return {x[0].masked_fill(x[1], -1.5)}; }},
      {"masked_fill_neg_inf", [](In x) -> tensor_list { return {x[0].masked_fill(x[1], -kInf).softmax(-1)}; }},
      // reductions
      {"sum_all", [](In x) -> tensor_list { return {x[0].sum()}; }},
      {"sum_dim1", [](In x) -> tensor_list { return {x[0].sum(1)}; }},
      {"sum_dims_keepdim",
       [](In x) -> tensor_list {
         return {x[0].sum({0, 2}, true)};
       }},
      {"sum_neg_dim_f64", [](In x) -> tensor_list { return {x[0].sum(-1)}; }},
      {"sum_transposed", [](In x) -> tensor_list { return {x[0].t().sum(0)}; }},
      {"sum_int64", [](In x) -> tensor_list { return {x[0].sum(0)}; }},
      {"sum_bool", [](In x) -> tensor_list { return {x[0].sum()}; }},
      {"mean_all", [](In x) -> tensor_list { return {x[0].mean()}; }},
      {"mean_dim_keepdim", [](In x) -> tensor_list { return {x[0].mean(1, true)}; }},
      {"mean_dims_f64",
       [](In x) -> tensor_list {
         return {x[0].mean({0, 2})};
       }},
      {"var_all", [](In x) -> tensor_list { return {x[0].var()}; }},
      {"var_dim_biased", [](In x) -> tensor_list { return {x[0].var(1, false)}; }},
      {"var_keepdim_f64",
       [](In x) -> tensor_list {
         return {x[0].var({0, 2}, true, true)};
       }},
      {"std_all", [](In x) -> tensor_list { return {x[0].std()}; }},
      {"std_dim_keepdim", [](In x) -> tensor_list { return {x[0].std(-1, true, true)}; }},
      {"max_all", [](In x) -> tensor_list { return {x[0].max()}; }},
      {"min_all", [](In x) -> tensor_list { return {x[0].min()}; }},
      {"max_all_ties", [](In x) -> tensor_list { return {x[0].max()}; }},
      {"max_dim", [](In x) { return pair(x[0].max(1)); }},
      {"min_dim_keepdim", [](In x) { return pair(x[0].min(0, true)); }},
      {"max_dim_int64", [](In x) { return pair(x[0].max(1)); }},
      {"amax",
       [](In x) -> tensor_list {
         return {x[0].amax({0, 2})};
       }},
      {"amin_keepdim", [](In x) -> tensor_list { return {x[0].amin(1, true)}; }},
      {"argmax_all", [](In x) -> tensor_list { return {x[0].argmax()}; }},
      {"argmax_dim", [](In x) -> tensor_list { return {x[0].argmax(1)}; }},
      {"argmax_keepdim", [](In x) -> tensor_list { return {x[0].argmax(-1, true)}; }},
      {"argmin_dim", [](In x) -> tensor_list { return {x[0].argmin(0)}; }},
      {"argmax_ties", [](In x) -> tensor_list { return {x[0].argmax(1)}; }},
      {"logsumexp", [](In x) -> tensor_list { return {x[0].logsumexp(1)}; }},
      {"logsumexp_keepdim_f64",
       [](In x) -> tensor_list {
         return {x[0].logsumexp({0, 2}, true)};
       }},
      {"norm_2", [](In x) -> tensor_list { return {x[0].norm()}; }},
      {"norm_1_f64", [](In x) -> tensor_list { return {x[0].norm(1)}; }},
      {"all_full", [](In x) -> tensor_list { return {x[0].all()}; }},
      {"any_full", [](In x) -> tensor_list { return {x[0].any()}; }},
      {"all_dim", [](In x) -> tensor_list { return {x[0].all(1)}; }},
      {"any_dim_keepdim", [](In x) -> tensor_list { return {x[0].any(0, true)}; }},
      {"all_float", [](In x) -> tensor_list { return {x[0].all(0)}; }},
      // matmul in every form
      {"matmul_1d_1d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_2d_1d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_1d_2d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_2d_2d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_3d_3d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_3d_2d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_2d_3d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_broadcast_4d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_1d_3d", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_3d_1d_f64", [](In x) -> tensor_list { return {x[0].matmul(x[1])}; }},
      {"matmul_transposed", [](In x) -> tensor_list { return {x[0].t().matmul(x[1].t())}; }},
      {"mm", [](In x) -> tensor_list { return {x[0].mm(x[1])}; }},
      {"mm_f64", [](In x) -> tensor_list { return {x[0].mm(x[1])}; }},
      {"bmm", [](In x) -> tensor_list { return {x[0].bmm(x[1])}; }},
      {"bmm_transposed", [](In x) -> tensor_list { return {x[0].transpose(1, 2).bmm(x[1])}; }},
      // softmax family
      {"softmax_last", [](In x) -> tensor_list { return {x[0].softmax(-1)}; }},
      {"softmax_dim0", [](In x) -> tensor_list { return {x[0].softmax(0)}; }},
      {"softmax_dim1_f64", [](In x) -> tensor_list { return {x[0].softmax(1)}; }},
      {"softmax_transposed", [](In x) -> tensor_list { return {x[0].t().softmax(-1)}; }},
      {"softmax_large_values", [](In x) -> tensor_list { return {x[0].softmax(-1)}; }},
      {"log_softmax_last", [](In x) -> tensor_list { return {x[0].log_softmax(-1)}; }},
      {"log_softmax_dim0_f64", [](In x) -> tensor_list { return {x[0].log_softmax(0)}; }},
      {"softmax_masked", [](In x) -> tensor_list { return {x[0].softmax(-1)}; }},
      {"log_softmax_masked", [](In x) -> tensor_list { return {x[0].log_softmax(-1)}; }},
      {"softmax_fully_masked_row", [](In x) -> tensor_list { return {x[0].softmax(-1)}; }},
      // triangles
      {"tril", [](In x) -> tensor_list { return {x[0].tril()}; }},
      {"tril_diag1", [](In x) -> tensor_list { return {x[0].tril(1)}; }},
      {"tril_diag_neg1_f64", [](In x) -> tensor_list { return {x[0].tril(-1)}; }},
      {"triu", [](In x) -> tensor_list { return {x[0].triu()}; }},
      {"triu_diag2", [](In x) -> tensor_list { return {x[0].triu(2)}; }},
      {"triu_batched", [](In x) -> tensor_list { return {x[0].triu(-1)}; }},
      // joining and splitting
      {"cat_dim0", [](In x) -> tensor_list { return {cat({x[0], x[1]}, 0)}; }},
      {"cat_dim1", [](In x) -> tensor_list { return {cat({x[0], x[1]}, 1)}; }},
      {"cat_neg_dim_3d", [](In x) -> tensor_list { return {cat({x[0], x[1], x[2]}, -1)}; }},
      {"cat_transposed", [](In x) -> tensor_list { return {cat({x[0].t(), x[1]}, 1)}; }},
      {"cat_int64", [](In x) -> tensor_list { return {cat({x[0], x[1]}, 0)}; }},
      {"stack_dim0", [](In x) -> tensor_list { return {stack({x[0], x[1]}, 0)}; }},
      {"stack_dim1", [](In x) -> tensor_list { return {stack({x[0], x[1]}, 1)}; }},
      {"stack_neg_dim", [](In x) -> tensor_list { return {stack({x[0], x[1], x[2]}, -1)}; }},
      {"split", [](In x) { return x[0].split(2, 0); }},
      {"split_dim1", [](In x) { return x[0].split(3, 1); }},
      {"split_with_sizes", [](In x) { return x[0].split_with_sizes({1, 3, 2}, 0); }},
      {"chunk", [](In x) { return x[0].chunk(3, 0); }},
      {"chunk_dim1", [](In x) { return x[0].chunk(4, 1); }},
      // indexing
      {"index_select_dim0", [](In x) -> tensor_list { return {x[0].index_select(0, x[1])}; }},
      {"index_select_dim1", [](In x) -> tensor_list { return {x[0].index_select(1, x[1])}; }},
      {"gather_dim1", [](In x) -> tensor_list { return {x[0].gather(1, x[1])}; }},
      {"gather_dim0", [](In x) -> tensor_list { return {x[0].gather(0, x[1])}; }},
      {"scatter_add_dim0", [](In x) -> tensor_list { return {x[0].scatter_add(0, x[1], x[2])}; }},
      {"scatter_add_dim1", [](In x) -> tensor_list { return {x[0].scatter_add(1, x[1], x[2])}; }},
      {"index_add_dim0", [](In x) -> tensor_list { return {x[0].index_add(0, x[1], x[2])}; }},
      {"index_add_dim1_f64", [](In x) -> tensor_list { return {x[0].index_add(1, x[1], x[2])}; }},
      {"embedding", [](In x) -> tensor_list { return {embedding(x[0], x[1])}; }},
      {"embedding_padding", [](In x) -> tensor_list { return {embedding(x[0], x[1], 1)}; }},
      {"one_hot", [](In x) -> tensor_list { return {one_hot(x[0])}; }},
      {"one_hot_classes_2d", [](In x) -> tensor_list { return {one_hot(x[0], 5)}; }},
      // creation
      {"arange_int", [](In) -> tensor_list { return {arange(5)}; }},
      {"arange_start_step", [](In) -> tensor_list { return {arange(-3, 7, 2)}; }},
      {"arange_float", [](In) -> tensor_list { return {arange(0.0, 1.0, 0.1)}; }},
      {"arange_neg_step", [](In) -> tensor_list { return {arange(5.0, -1.0, -1.5)}; }},
      {"arange_f64", [](In) -> tensor_list { return {arange(1, 2.5, 0.25, kFloat64)}; }},
      {"linspace", [](In) -> tensor_list { return {linspace(0, 1, 5)}; }},
      {"linspace_f64", [](In) -> tensor_list { return {linspace(-2, 3, 7, kFloat64)}; }},
      {"linspace_one_step", [](In) -> tensor_list { return {linspace(2, 5, 1)}; }},
      {"eye", [](In) -> tensor_list { return {eye(3)}; }},
      {"eye_rect", [](In) -> tensor_list { return {eye(2, 4)}; }},
  };
  return ops;
}

const nlohmann::json& core_fixture() {
  static const nlohmann::json cases = load_fixture("core_ops.json");
  return cases;
}

// float32 results may differ from PyTorch's by a few ulps (summation order, vectorised exp).
::testing::AssertionResult close_to_reference(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << actual.dtype() << ", expected " << expected.dtype();
  if (expected.dtype() == kFloat64) return test::tensors_close(actual, expected, 1e-10, 1e-12);
  return test::tensors_close(actual, expected, 2e-5, 2e-6);
}

std::vector<std::string> reference_case_names() {
  std::vector<std::string> names;
  for (const auto& [name, op] : reference_ops()) names.push_back(name);
  return names;
}

class Reference : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Reference, MatchesPyTorch) {
  const std::string& name = GetParam();
  ASSERT_TRUE(core_fixture().contains(name)) << name << " is missing from core_ops.json; rerun gen_core_fixtures.py";
  const nlohmann::json& c = core_fixture()[name];
  tensor_list in = tensors_from_json(c["inputs"]);
  tensor_list out = reference_ops().at(name)(in);
  ASSERT_EQ(out.size(), c["outputs"].size());
  Tensor loss;
  for (size_t k = 0; k < out.size(); ++k) {
    EXPECT_TRUE(close_to_reference(out[k], tensor_from_json(c["outputs"][k]))) << "output " << k;
    if (c["weights"][k].is_null()) continue;
    Tensor term = (out[k] * tensor_from_json(c["weights"][k])).sum();
    loss = loss.defined() ? loss + term : term;
  }
  if (!loss.defined()) return;
  loss.backward();
  for (size_t i = 0; i < in.size(); ++i) {
    if (c["grads"][i].is_null()) continue;
    ASSERT_TRUE(in[i].grad().defined()) << "input " << i << " got no gradient";
    EXPECT_TRUE(close_to_reference(in[i].grad(), tensor_from_json(c["grads"][i]))) << "gradient of input " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(CoreOps, Reference, ::testing::ValuesIn(reference_case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ReferenceFixture, EveryCaseHasACppTwin) {
  for (const auto& [name, c] : core_fixture().items()) EXPECT_TRUE(reference_ops().count(name)) << name;
}
// Bad input: every error names the op and the shapes or values involved.
struct ErrorCase {
  const char* name;
  std::function<void()> run;
  const char* message;  // a substring of the expected message
};

TEST(ReferenceErrors, NameTheOpAndTheShapes) {
  Tensor a = ones({2, 3});
  const std::vector<ErrorCase> cases = {
      {"matmul_2d",
       [&] {
         a.matmul(ones({4, 5}));
       },
       "matmul: shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"},
      {"matmul_2d_1d", [&] { a.matmul(ones({4})); }, "matmul: shapes [2, 3] and [4] cannot be multiplied (3 != 4)"},
      {"matmul_1d_2d", [&] { ones({4}).matmul(a); }, "matmul: shapes [4] and [2, 3] cannot be multiplied (4 != 2)"},
      {"matmul_1d_1d", [&] { ones({3}).matmul(ones({4})); },
       "matmul: inconsistent tensor size, expected tensor [3] and src [4]"},
      {"matmul_batch",
       [&] {
         ones({2, 2, 3}).matmul(ones({3, 3, 4}));
       },
       "matmul: shapes [2] and [3] cannot be broadcast"},
      {"matmul_0d", [&] { ones({}).matmul(ones({3})); },
       "matmul: both arguments need to be at least 1D, but they are 0D and 1D"},
      {"mm_shapes",
       [&] {
         a.mm(ones({4, 5}));
       },
       "mm: shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"},
      {"mm_3d",
       [&] {
         ones({2, 2, 3}).mm(a);
       },
       "mm: expected 2-D tensors, got 3-D and 2-D (shapes [2, 2, 3] and [2, 3])"},
      {"bmm_shapes",
       [&] {
         ones({2, 2, 3}).bmm(ones({2, 4, 3}));
       },
       "bmm: shapes [2, 2, 3] and [2, 4, 3] cannot be multiplied (3 != 4)"},
      {"bmm_batch",
       [&] {
         ones({2, 2, 3}).bmm(ones({3, 3, 3}));
       },
       "bmm: batch sizes differ: shapes [2, 2, 3] and [3, 3, 3] (2 != 3)"},
      {"bmm_2d", [&] { a.bmm(a); }, "bmm: expected 3-D tensors, got 2-D and 2-D (shapes [2, 3] and [2, 3])"},
      {"broadcast_mul", [&] { a* ones({4}); }, "mul: shapes [2, 3] and [4] cannot be broadcast"},
      {"broadcast_where", [&] { where(ones({2}, kBool), a, a); }, "where: shapes [2, 3] and [2] cannot be broadcast"},
      {"dim_sum", [&] { a.sum(2); }, "sum: dimension out of range (expected to be in range of [-2, 1], but got 2)"},
      {"dim_softmax", [&] { a.softmax(-3); },
       "softmax: dimension out of range (expected to be in range of [-2, 1], but got -3)"},
      {"dim_transpose", [&] { a.transpose(0, 5); },
       "transpose: dimension out of range (expected to be in range of [-2, 1], but got 5)"},
      {"dim_cat",
       [&] {
         cat({a, a}, 2);
       },
       "cat: dimension out of range (expected to be in range of [-2, 1], but got 2)"},
      {"select", [&] { a.select(0, 2); }, "select: index 2 out of range for tensor of size [2, 3] at dimension 0"},
      {"index_select",
       [&] {
         a.index_select(1, tensor({0, 3}));
       },
       "index_select: index 3 is out of bounds for dimension 1 with size 3 (input shape [2, 3])"},
      {"index_select_negative", [&] { a.index_select(0, tensor({-3})); },
       "index_select: index -3 is out of bounds for dimension 0 with size 2 (input shape [2, 3])"},
      {"gather",
       [&] {
         a.gather(1, tensor({{0, 5}}));
       },
       "gather: index 5 is out of bounds for dimension 1 with size 3 (input shape [2, 3])"},
      {"embedding",
       [&] {
         embedding(ones({5, 3}), tensor({1, 5}));
       },
       "embedding: index 5 is out of bounds for dimension 0 with size 5 (input shape [5, 3])"},
      {"scatter_add",
       [&] {
         a.scatter_add(0, tensor({{2, 0, 0}}), ones({1, 3}));
       },
       "scatter_add: index 2 is out of bounds for dimension 0 with size 2 (input shape [2, 3])"},
      {"one_hot",
       [&] {
         one_hot(tensor({0, 4}), 3);
       },
       "one_hot: index 4 is out of bounds for size 3"},
      {"view_non_contiguous", [&] { a.t().view({6}); },
       "view: size [6] is not compatible with input tensor's size [3, 2] and stride [1, 3]"},
      {"cat_shapes",
       [&] {
         cat({a, ones({2, 4})}, 0);
       },
       "cat: sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
       "the "
       "list (shapes [2, 3] and [2, 4])"},
      {"cat_ranks",
       [&] {
         cat({a, ones({3})}, 0);
       },
       "cat: tensors must have the same number of dimensions: got 2 and 1"},
      {"stack_shapes",
       [&] {
         stack({a, ones({3, 2})}, 0);
       },
       "stack: expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"},
  };
  for (const ErrorCase& c : cases) EXPECT_THROWS_WITH(c.run(), c.message) << c.name;
}
