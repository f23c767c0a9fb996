// nn::ParameterList, nn::ParameterDict, nn::utils::parameters_to_vector / vector_to_parameters, and
// adaptive pooling with output sizes of None. Values are hand-computed; the compat program
// tests/compat/programs/parameter_containers.cpp checks the same API against a libtorch 1.13 build.
#include <sstream>

#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

std::vector<std::string> names_of(const nn::Module::NamedTensors& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.key());
  return names;
}

std::string printed(const nn::Module& module) {
  std::ostringstream out;
  out << module;
  return out.str();
}

struct HolderImpl : nn::Module {
  HolderImpl() {
    list = register_module("list", nn::ParameterList(ones({2}).requires_grad_(), zeros({3})));
    dict = register_module("dict", nn::ParameterDict());
    dict->insert("w", full({2, 2}, 2.0).requires_grad_());
  }
  nn::ParameterList list{nullptr};
  nn::ParameterDict dict{nullptr};
};
EMBER_MODULE(Holder);

}  // namespace

TEST(ParameterContainers, ListRegistersEachTensorWithItsRequiresGrad) {
  nn::ParameterList list(ones({2}).requires_grad_(), zeros({3}));
  list->append(arange(4, kFloat32).requires_grad_());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(names_of(list->named_parameters()), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list[1].requires_grad());
  EXPECT_EQ(list->at(2).sizes(), IntArrayRef({4}));
  // at() hands out the stored handle: writing through it changes the module's parameter.
  {
    NoGradGuard no_grad;
    list[2].fill_(7.0);
  }
  EXPECT_EQ(list->parameters()[2].sum().item<float>(), 28.f);
  EXPECT_THROWS_WITH(list->at(3), "Index out of range");

  nn::ParameterList more;
  more->extend(*list);  // items of another list
  more->extend(std::vector<Tensor>{full({1}, 5.0)});
  *more += std::vector<Tensor>{full({1}, 6.0)};
  EXPECT_EQ(more->size(), 5u);
  EXPECT_EQ(more[4].item<float>(), 6.f);
  EXPECT_TRUE(more[0].requires_grad());
  int64_t count = 0;
  for (const auto& item : *more) count += item.value().numel();
  EXPECT_EQ(count, 2 + 3 + 4 + 1 + 1);
}

TEST(ParameterContainers, DictInsertsPopsUpdatesAndComplains) {
  nn::ParameterDict dict;
  EXPECT_TRUE(dict->empty());
  dict->insert("a", ones({2}).requires_grad_());
  dict->insert("b", zeros({1}));
  EXPECT_THROWS_WITH(dict->insert("a", ones({1})), "Parameter 'a' already defined");
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(dict->contains("b"));
  EXPECT_FALSE(dict->contains("c"));
  EXPECT_TRUE(dict["a"].requires_grad());
  EXPECT_FALSE(dict->get("b").requires_grad());

  // update: an existing key's tensor is replaced in place in the order, a new key is appended.
  nn::Module::NamedTensors changes;
  changes.insert("b", full({1}, 3.0));
  changes.insert("c", full({2}, 4.0));
  dict->update(changes);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(dict["b"].item<float>(), 3.f);
  EXPECT_EQ(dict->values()[2].sum().item<float>(), 8.f);

  Tensor popped = dict->pop("a");
  EXPECT_EQ(popped.sizes(), IntArrayRef({2}));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"b", "c"}));
  EXPECT_THROWS_WITH(dict->pop("a"), "Parameter 'a' is not defined");
  EXPECT_THROWS_WITH(dict->get("zz"), "Parameter 'zz' is not defined");
  dict->clear();
  EXPECT_EQ(dict->size(), 0u);
  EXPECT_TRUE(dict->parameters().empty());
}

TEST(ParameterContainers, NestedInAModuleTheyAreItsParametersAndPrintAsLibtorch) {
  Holder holder;
  EXPECT_EQ(names_of(holder->named_parameters()), (std::vector<std::string>{"list.0", "list.1", "dict.w"}));
  // parameters() lists every registered tensor, whether or not it requires grad, as PyTorch.
  EXPECT_EQ(holder->parameters().size(), 3u);
  EXPECT_EQ(printed(*holder->list),
            "ParameterList(\n(0): Parameter containing: [Float of size [2]]\n"
            "(1): Parameter containing: [Float of size [3]]\n)");
  EXPECT_EQ(printed(*holder->dict), "ParameterDict(\n(w): Parameter containing: [Float of size [2, 2]]\n)");

  // Gradients reach the entries.
  (holder->list[0].sum() * holder->dict["w"].sum()).backward();
  EXPECT_TENSOR_CLOSE(holder->list[0].grad(), full({2}, 8.0));
  EXPECT_TENSOR_CLOSE(holder->dict["w"].grad(), full({2, 2}, 2.0));
  EXPECT_FALSE(holder->list[1].grad().defined());
}

TEST(ParameterContainers, CloneCopiesEveryEntry) {
  nn::ParameterList list(arange(3, kFloat32).requires_grad_(), zeros({2}));
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->size(), 2u);
  EXPECT_TENSOR_CLOSE(copy->at(0), arange(3, kFloat32));
  EXPECT_TRUE(copy->at(0).requires_grad());
  EXPECT_FALSE(copy->at(1).requires_grad());
  EXPECT_TRUE(copy->at(0).is_leaf());
  {
    NoGradGuard no_grad;
    copy->at(0).fill_(9.0);
  }
  EXPECT_EQ(list[0].sum().item<float>(), 3.f);  // the original is untouched

  nn::ParameterDict dict;
  dict->insert("k", ones({2}).requires_grad_());
  auto dict_copy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(dict->clone());
  ASSERT_NE(dict_copy, nullptr);
  EXPECT_EQ(dict_copy->keys(), std::vector<std::string>{"k"});
  EXPECT_NE(dict_copy->get("k").data_ptr(), dict->get("k").data_ptr());

}

TEST(ParameterContainers, ParametersToVectorAndBack) {
  Tensor a = arange(6, kFloat32).reshape({2, 3}).requires_grad_();
  Tensor b = full({2}, 10.0).requires_grad_();
  Tensor flat = nn::utils::parameters_to_vector({a, b});
  EXPECT_TENSOR_CLOSE(flat, from_vector<float>({0, 1, 2, 3, 4, 5, 10, 10}, {8}));
  // Differentiable: d(sum(flat * w))/da is w's first six entries.
  Tensor w = arange(8, kFloat32);
  (flat * w).sum().backward();
  EXPECT_TENSOR_CLOSE(a.grad(), arange(6, kFloat32).reshape({2, 3}));
  EXPECT_TENSOR_CLOSE(b.grad(), from_vector<float>({6, 7}, {2}));

  // Back: each parameter becomes a view of its slice (PyTorch's semantics: they share the vector).
  Tensor vec = arange(8, kFloat32).neg();
  nn::utils::vector_to_parameters(vec, {a, b});
  EXPECT_TENSOR_CLOSE(a, from_vector<float>({0, -1, -2, -3, -4, -5}, {2, 3}));
  EXPECT_TENSOR_CLOSE(b, from_vector<float>({-6, -7}, {2}));
  EXPECT_TRUE(a.requires_grad());
  vec.fill_(1.0);
  EXPECT_EQ(b.sum().item<float>(), 2.f);

  EXPECT_THROWS_WITH(nn::utils::vector_to_parameters(zeros({7}), {a, b}),
                     "the vector has 7 elements, the parameters hold 8");
  EXPECT_THROWS_WITH(nn::utils::vector_to_parameters(zeros({2, 4}), {a, b}), "expected a 1-D vector");
  EXPECT_THROWS_WITH(nn::utils::parameters_to_vector({}), "at least one parameter");
}

TEST(ParameterContainers, AdaptivePoolingKeepsTheInputSizeWhereNone) {
  Tensor x = arange(2 * 3 * 4 * 5, kFloat32).reshape({2, 3, 4, 5});
  Tensor kept = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 2}));
  EXPECT_TENSOR_CLOSE(kept, F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({4, 2})));
  // Row 0 of plane (1, 2): the columns [0, 3) and [2, 5) of 100..104 -> 101, 103.
  EXPECT_TENSOR_CLOSE(kept[1][2][0], from_vector<float>({101, 103}, {2}));
  Tensor all = F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions({std::nullopt, std::nullopt}));
  EXPECT_TENSOR_CLOSE(all, x);
  // Unbatched (C, H, W) input: None takes H from the last two dims.
  EXPECT_EQ(F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 1})).sizes(),
            IntArrayRef({3, 4, 1}));

  Tensor volume = arange(2 * 3 * 4 * 5, kFloat32).reshape({1, 2, 3, 4, 5});
  nn::AdaptiveAvgPool3d pool(nn::AdaptiveAvgPool3dOptions({std::nullopt, 2, std::nullopt}));
  EXPECT_EQ(pool(volume).sizes(), IntArrayRef({1, 2, 3, 2, 5}));
  EXPECT_TENSOR_CLOSE(pool(volume)[0][1][2][0], from_vector<float>({102.5, 103.5, 104.5, 105.5, 106.5}, {5}));
  EXPECT_EQ(printed(*pool), "AdaptiveAvgPool3d(output_size=[None, 2, None])");
  nn::AdaptiveMaxPool2d max_pool(nn::AdaptiveMaxPool2dOptions({3, std::nullopt}));
  EXPECT_EQ(printed(*max_pool), "AdaptiveMaxPool2d(output_size=[3, None])");
  EXPECT_EQ(printed(*nn::AdaptiveAvgPool2d(3)), "AdaptiveAvgPool2d(output_size=[3, 3])");
  EXPECT_THROWS_WITH(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({std::nullopt, -1})),
                     "output_size must be non-negative");
}
