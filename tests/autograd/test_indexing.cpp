// Tensor indexing (autograd/indexing.cpp) against PyTorch 1.13: forward values and gradients of
// x[...] and x[...] = v (scripts/gen_indexing_fixtures.py, one C++ line per Python expression),
// views sharing storage, assignment through temporaries, the emulated CUDA device and bad input.
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

using namespace ember::indexing;

Tensor L(std::vector<int64_t> v) { return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kInt64)); }
Tensor mask() { return tensor({{true, false, true, false}, {false, false, true, true}, {true, true, false, false}}); }

// Mirrors GETS in gen_indexing_fixtures.py.
const std::map<std::string, std::function<Tensor(const Tensor&)>>& gets() {
  static const std::map<std::string, std::function<Tensor(const Tensor&)>> table = {
      {"int", [](const Tensor& x) { return x.index({1}); }},
      {"negative_int_step",
       [](const Tensor& x) {
         return x.index({-1, Slice(1, None, 2)});
       }},
      {"ellipsis",
       [](const Tensor& x) {
         return x.index({"...", 2});
       }},
      {"none",
       [](const Tensor& x) {
         return x.index({Slice(), None, 1, Slice(None, -2)});
       }},
      {"ellipsis_slices",
       [](const Tensor& x) {
         return x.index({Ellipsis, Slice(1, 3), Slice(None, None, 3)});
       }},
      {"true",
       [](const Tensor& x) {
         return x.index({1, true});
       }},
      {"repeated_rows",
       [](const Tensor& x) {
         return x.index({L({2, 0, 2})});
       }},
      {"broadcast_adjacent",
       [](const Tensor& x) {
         return x.index({Slice(), L({2, 0, 2}), L({2, 0}).view({2, 1})});
       }},
      {"separated",
       [](const Tensor& x) {
         return x.index({L({2, 0, 1}), Slice(), L({4, 0, 1})});
       }},
      {"mask", [](const Tensor& x) { return x.index({mask()}); }},
      {"mask_slice_int",
       [](const Tensor& x) {
         return x.index({Slice(), tensor({true, false, true, false}), 1});
       }},
      {"negative_tensor",
       [](const Tensor& x) {
         return x.index({L({-1}), Slice(None, 2), L({-5, 4})});
       }},
      {"two_tensors_none",
       [](const Tensor& x) {
         return x.index({L({1, 2}), None, L({0, 3})});
       }},
  };
  return table;
}

// Mirrors PUTS in gen_indexing_fixtures.py.
const std::map<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>& puts() {
  static const std::map<std::string, std::function<Tensor(const Tensor&, const Tensor&)>> table = {
      {"put_adv",
       [](const Tensor& x, const Tensor& v) {
         Tensor y = x * 1;
         y.index_put_({L({0, 2}), L({1, 3})}, v);
         return y;
       }},
      {"put_accumulate",
       [](const Tensor& x, const Tensor& v) {
         return (x * 1).index_put_({L({0, 1, 1})}, v, true);
       }},
      {"put_mask_scalar",
       [](const Tensor& x, const Tensor& v) {
         Tensor y = x * 1;
         y.index_put_({mask()}, 0.5);
         return y * v.sum();
       }},
      {"put_basic",
       [](const Tensor& x, const Tensor& v) {
         Tensor y = x * 1;
         y.index({1, Slice(), 2}) = v;
         return y;
       }},
      {"put_separated",
       [](const Tensor& x, const Tensor& v) {
         Tensor y = x * 1;
         y.index_put_({L({2, 0}), Slice(1, 3), L({4, 1})}, v);
         return y;
       }},
  };
  return table;
}

TEST(Indexing, MatchesPyTorch) {
  const nlohmann::json fixture = load_fixture("core/indexing.json");
  int checked = 0;
  for (const auto& [key, c] : fixture.items()) {
    SCOPED_TRACE(key);
    const std::string name = key.substr(0, key.find('/'));
    Tensor x = tensor_from_json(c.at("inputs").at("x")).requires_grad_();
    Tensor v = c.at("inputs").contains("v") ? tensor_from_json(c.at("inputs").at("v")).requires_grad_() : Tensor();
    Tensor out = v.defined() ? puts().at(name)(x, v) : gets().at(name)(x);
    const double tol = x.dtype() == kFloat32 ? 1e-5 : 1e-12;
    EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), tol, tol);
    (out * tensor_from_json(c.at("weight"))).sum().backward();
    EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(c.at("grads").at("x")), tol, tol);
    if (v.defined()) EXPECT_TENSOR_CLOSE(v.grad(), tensor_from_json(c.at("grads").at("v")), tol, tol);
    ++checked;
  }
  EXPECT_EQ(checked, 36);
}

TEST(Indexing, Gradcheck) {
  Tensor x = wave64({3, 4}).requires_grad_();
  Tensor v = wave64({2}, 1.0).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) {
        return in[0].index({L({2, 0, 2}), Slice(1, None, 2)});
      },
      {x}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) {
        Tensor y = in[0] * 1;
        y.index_put_({L({1, 0}), L({3, 3})}, in[1]);
        return y;
      },
      {x, v}));
}

TEST(Indexing, BasicIndexingIsAViewAndAssignmentWrites) {
  Tensor x = zeros({3, 4});
  Tensor row = x.index({1});
  EXPECT_TRUE(row.is_alias_of(x));
  row.fill_(7);
  EXPECT_EQ(x.index({1, 3}).item<float>(), 7);
  x[0][2] = 5;
  x[2] = tensor({1.0f, 2.0f, 3.0f, 4.0f});
  x.index({Slice(), 0}) = -1;
  x.index({Slice(1, None), Slice(2, None)}) = tensor({10.0f, 20.0f});
  EXPECT_TENSOR_CLOSE(x, tensor({{-1.0f, 0.0f, 5.0f, 0.0f}, {-1.0f, 7.0f, 10.0f, 20.0f}, {-1.0f, 2.0f, 10.0f, 20.0f}}));
  // Assigning to a named tensor rebinds the handle and leaves x alone.
  Tensor y = x[0];
  y = ones({4});
  EXPECT_EQ(x.index({0, 1}).item<float>(), 0);
  EXPECT_EQ(x[tensor(int64_t{2})][1].item<float>(), 2);
  // Advanced indexing copies.
  EXPECT_FALSE(x.index({L({0, 1})}).is_alias_of(x));
  EXPECT_TRUE(x.index({"..."}).is_alias_of(x));
  EXPECT_FALSE(x.index({"..."}).is_same(x));
}

TEST(Indexing, AtenListForms) {
  Tensor x = arange(12, dtype(kFloat32)).view({3, 4});
  EXPECT_TENSOR_CLOSE(x.index(std::vector<std::optional<Tensor>>{std::nullopt, L({3, 0})}),
                      tensor({{3.0f, 0.0f}, {7.0f, 4.0f}, {11.0f, 8.0f}}));
  Tensor acc = zeros({4});
  acc.index_put_({L({0, 1, 1, 3, 1})}, ones({5}), /*accumulate=*/true);
  EXPECT_TENSOR_CLOSE(acc, tensor({1.0f, 3.0f, 0.0f, 1.0f}));
  Tensor put = x.index_put({L({2})}, full({4}, -1.0f));
  EXPECT_EQ(put.index({2, 1}).item<float>(), -1);
  EXPECT_EQ(x.index({2, 1}).item<float>(), 9);
}

TEST(Indexing, EmulatedCuda) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = arange(12, dtype(kFloat32)).view({3, 4}).to(kCUDA).requires_grad_();
  Tensor y = x.index({tensor({true, false, true}), L({3, 1})});
  EXPECT_TRUE(y.is_cuda());
  EXPECT_TENSOR_CLOSE(y.cpu(), tensor({3.0f, 9.0f}));
  y.sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad().cpu().index({Slice(), 1}), tensor({0.0f, 0.0f, 1.0f}));
  Tensor z = zeros({3, 4}, TensorOptions().device(kCUDA));
  z.index_put_({L({0, 2}), 1}, 5);
  z.index({1}) = 2;
  EXPECT_TENSOR_CLOSE(z.cpu().sum({1}), tensor({5.0f, 8.0f, 5.0f}));
}

TEST(Indexing, BadInput) {
  Tensor x = zeros({3, 4, 5});
  EXPECT_THROWS_WITH(x.index({3}), "index: index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_THROWS_WITH(x.index({0, 0, 0, 0}), "index: too many indices for tensor of dimension 3");
  EXPECT_THROWS_WITH(x.index({Slice(), L({0, 4})}), "index: index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_THROWS_WITH(x.index({tensor({true, false})}),
                     "index: the shape of the mask [2] at index 0 does not match the shape of the indexed tensor");
  EXPECT_THROWS_WITH(x.index({tensor({0.0f})}), "index: tensors used as indices must be long, byte or bool tensors");
  EXPECT_THROWS_WITH(x.index({L({0, 1}), L({0, 1, 2})}),
                     "index: shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  EXPECT_THROWS_WITH(x.index_put_({L({0, 1})}, ones({3})),
                     "index_put_: shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of "
                     "shape [2, 4, 5]");
  EXPECT_THROWS_WITH(x.index_put_({0}, ones({2})), "index_put_: shape mismatch: value tensor of shape [2]");
  EXPECT_THROWS_WITH(x.index_put_({L({0})}, ones({5}, dtype(kFloat64))),
                     "index_put_: Index put requires the source and destination dtypes match, got Float for the "
                     "destination and Double for the source");
  EXPECT_THROWS_WITH(zeros({}).index({0}), "invalid index of a 0-dim tensor");
  EXPECT_THROWS_WITH(x[tensor({1, 2})], "operator[]: can only index with tensors that are scalars");
}

}  // namespace
}  // namespace ember::test
