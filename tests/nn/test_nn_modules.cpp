// nn::Module and the layer modules: PyTorch's initialisation after manual_seed, forward/backward with
// parameters copied in from PyTorch, the module tree (names, modes, zero_grad, to, apply, printout),
// containers, and bad input.
//
// Fixtures come from scripts/gen_nn_fixtures.py (tests/fixtures/nn/modules.json).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using ember::test::load_fixture;
using ember::test::tensor_from_json;

namespace {

const nlohmann::json& fixture() {
  static const nlohmann::json j = load_fixture("nn/modules.json");
  return j;
}

std::vector<std::string> names_of(const nn::Module::NamedTensors& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.key());
  return names;
}

// Every parameter of `module` equals the fixture's tensor of the same name (and no name is missing).
void expect_params(const nn::Module& module, const nlohmann::json& expected, double tol) {
  auto named = module.named_parameters();
  EXPECT_EQ(named.size(), expected.size());
  for (const auto& [name, p] : named) {
    SCOPED_TRACE(module.name() + " parameter " + name);
    ASSERT_TRUE(expected.contains(name));
    EXPECT_TENSOR_CLOSE(p, tensor_from_json(expected.at(name)), tol, tol);
  }
}

// ---- PyTorch's default initialisation, draw for draw ----

using Builder = std::function<std::vector<std::shared_ptr<nn::Module>>()>;

// Each line mirrors the init_case of the same name in gen_nn_fixtures.py.
const std::map<std::string, Builder>& init_cases() {
  static const std::map<std::string, Builder> table = {
      {"linear_3_2", [] { return std::vector<std::shared_ptr<nn::Module>>{nn::Linear(3, 2).ptr()}; }},
      {"linear_5_4_no_bias",
       [] { return std::vector<std::shared_ptr<nn::Module>>{nn::Linear(nn::LinearOptions(5, 4).bias(false)).ptr()}; }},
      {"linear_64_48", [] { return std::vector<std::shared_ptr<nn::Module>>{nn::Linear(64, 48).ptr()}; }},
      {"embedding_10_3", [] { return std::vector<std::shared_ptr<nn::Module>>{nn::Embedding(10, 3).ptr()}; }},
      {"embedding_padding",
       [] {
         return std::vector<std::shared_ptr<nn::Module>>{
             nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(-2)).ptr()};
       }},
      {"layer_norm",
       [] { return std::vector<std::shared_ptr<nn::Module>>{nn::LayerNorm(nn::LayerNormOptions({4})).ptr()}; }},
      {"sequence",
       [] {
         // Evaluated left to right (braced list), in the same order as the Python list.
         return std::vector<std::shared_ptr<nn::Module>>{nn::Embedding(8, 4).ptr(), nn::Linear(4, 6).ptr(),
                                                         nn::LayerNorm(nn::LayerNormOptions({6})).ptr(),
                                                         nn::Linear(6, 8).ptr()};
       }},
  };
  return table;
}

TEST(NnModules, DefaultInitMatchesPyTorchAfterManualSeed) {
  for (const auto& [name, c] : fixture().at("init").items()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(init_cases().count(name));
    manual_seed(c.at("seed").get<uint64_t>());
    auto modules = init_cases().at(name)();
    ASSERT_EQ(modules.size(), c.at("params").size());
    for (size_t i = 0; i < modules.size(); ++i) expect_params(*modules[i], c.at("params")[i], 0.0);
  }
}

TEST(NnModules, EmbeddingPaddingRowIsZeroAndGetsNoGradient) {
  manual_seed(0);
  nn::Embedding emb(nn::EmbeddingOptions(5, 3).padding_idx(1));
  EXPECT_EQ(emb->options.padding_idx(), 1);
  EXPECT_TENSOR_CLOSE(emb->weight[1], zeros({3}));
  emb(tensor({1, 1, 2}, dtype(kInt64))).sum().backward();
  EXPECT_TENSOR_CLOSE(emb->weight.grad()[1], zeros({3}));
  EXPECT_TENSOR_CLOSE(emb->weight.grad()[2], ones({3}));
}

// ---- forward and backward with parameters copied from PyTorch ----

std::shared_ptr<nn::Module> build_forward_case(const std::string& name, std::function<Tensor(const Tensor&)>& run) {
  if (name == "linear") {
    nn::Linear m(4, 3);
    run = [m](const Tensor& x) { return m(x); };
    return m.ptr();
  }
  if (name == "embedding_padding") {
    nn::Embedding m(nn::EmbeddingOptions(6, 3).padding_idx(2));
    run = [m](const Tensor& x) { return m(x); };
    return m.ptr();
  }
  if (name == "layernorm") {
    nn::LayerNorm m(nn::LayerNormOptions({4}));
    run = [m](const Tensor& x) { return m(x); };
    return m.ptr();
  }
  if (name == "mlp_sequential") {
    nn::Sequential m(nn::Linear(3, 5), nn::GELU(), nn::Linear(5, 2), nn::Softmax(-1));
    run = [m](const Tensor& x) { return m(x); };
    return m.ptr();
  }
  if (name == "mlp_tanh_relu") {
    nn::Sequential m(nn::Linear(3, 5), nn::GELU(nn::GELUOptions().approximate("tanh")), nn::ReLU(), nn::Linear(5, 2));
    run = [m](const Tensor& x) { return m(x); };
    return m.ptr();
  }
  return nullptr;
}

TEST(NnModules, ForwardAndBackwardMatchPyTorch) {
  for (const auto& [name, c] : fixture().at("forward").items()) {
    SCOPED_TRACE(name);
    std::function<Tensor(const Tensor&)> run;
    auto module = build_forward_case(name, run);
    ASSERT_TRUE(module != nullptr);
    {
      NoGradGuard no_grad;
      for (auto& [pname, p] : module->named_parameters()) p.copy_(tensor_from_json(c.at("params").at(pname)));
    }
    Tensor x = tensor_from_json(c.at("inputs")[0]);
    if (x.is_floating_point()) x.requires_grad_();
    Tensor out = run(x);
    EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), 1e-5, 1e-6);
    (out * tensor_from_json(c.at("weight"))).sum().backward();
    for (auto& [pname, p] : module->named_parameters()) {
      SCOPED_TRACE("gradient of " + pname);
      EXPECT_TENSOR_CLOSE(p.grad(), tensor_from_json(c.at("param_grads").at(pname)), 1e-5, 1e-6);
    }
    if (x.is_floating_point()) EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(c.at("input_grads")[0]), 1e-5, 1e-6);
  }
}

TEST(NnModules, DropoutModuleDrawsLikePyTorchAndIsIdentityInEval) {
  const auto& c = fixture().at("dropout_module");
  nn::Dropout drop(0.4);
  Tensor x = tensor_from_json(c.at("input"));
  manual_seed(c.at("seed").get<uint64_t>());
  EXPECT_TENSOR_CLOSE(drop(x), tensor_from_json(c.at("output")), 0.0, 0.0);
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
}

// ---- the module tree ----

struct AttnImpl : nn::Module {
  AttnImpl() {
    W_query = register_module("W_query", nn::Linear(4, 4));
    W_key = register_module("W_key", nn::Linear(nn::LinearOptions(4, 4).bias(false)));
    register_buffer("mask", ones({3, 3}, dtype(kBool)).triu(1));
  }
  nn::Linear W_query{nullptr}, W_key{nullptr};
};
EMBER_MODULE(Attn);

struct BlockImpl : nn::Module {
  BlockImpl() {
    attn = register_module("attn", Attn());
    ln = register_module("ln", nn::LayerNorm(nn::LayerNormOptions({4})));
    drop = register_module("drop", nn::Dropout(0.1));
  }
  Attn attn{nullptr};
  nn::LayerNorm ln{nullptr};
  nn::Dropout drop{nullptr};
};
EMBER_MODULE(Block);

struct TinyImpl : nn::Module {
  TinyImpl() {
    scale = register_parameter("scale", ones({4}));
    for (int i = 0; i < 2; ++i) blocks->push_back(Block());
    register_module("blocks", blocks);
    head = register_module("head", nn::Linear(4, 2));
  }
  Tensor scale;
  nn::ModuleList blocks;
  nn::Linear head{nullptr};
};
EMBER_MODULE(Tiny);

TEST(NnModules, NamedParametersUseDottedNamesInRegistrationOrder) {
  Tiny tiny;
  EXPECT_EQ(names_of(tiny->named_parameters()),
            (std::vector<std::string>{
                "scale", "blocks.0.attn.W_query.weight", "blocks.0.attn.W_query.bias", "blocks.0.attn.W_key.weight",
                "blocks.0.ln.weight", "blocks.0.ln.bias", "blocks.1.attn.W_query.weight", "blocks.1.attn.W_query.bias",
                "blocks.1.attn.W_key.weight", "blocks.1.ln.weight", "blocks.1.ln.bias", "head.weight", "head.bias"}));
  EXPECT_EQ(names_of(tiny->named_parameters(false)), std::vector<std::string>{"scale"});
  EXPECT_EQ(names_of(tiny->named_buffers()), (std::vector<std::string>{"blocks.0.attn.mask", "blocks.1.attn.mask"}));
  EXPECT_EQ(tiny->parameters().size(), 13u);
  EXPECT_EQ(tiny->buffers().size(), 2u);
  for (const Tensor& p : tiny->parameters()) {
    EXPECT_TRUE(p.is_leaf());
    EXPECT_TRUE(p.requires_grad());
  }
  for (const Tensor& b : tiny->buffers()) EXPECT_FALSE(b.requires_grad());
  // The handles in the members are the registered tensors themselves.
  EXPECT_TRUE(tiny->named_parameters()[1].value().is_same(tiny->blocks->ptr<BlockImpl>(0)->attn->W_query->weight));

  std::vector<std::string> children;
  for (const auto& [name, child] : tiny->named_children()) children.push_back(name + ":" + child->name());
  EXPECT_EQ(children, (std::vector<std::string>{"blocks:ModuleList", "head:ember::nn::LinearImpl"}));
  std::vector<std::string> all;
  for (const auto& [name, m] : tiny->named_modules()) all.push_back(name);
  EXPECT_EQ(all, (std::vector<std::string>{"", "blocks", "blocks.0", "blocks.0.attn", "blocks.0.attn.W_query",
                                           "blocks.0.attn.W_key", "blocks.0.ln", "blocks.0.drop", "blocks.1",
                                           "blocks.1.attn", "blocks.1.attn.W_query", "blocks.1.attn.W_key",
                                           "blocks.1.ln", "blocks.1.drop", "head"}));
  EXPECT_EQ(tiny->modules().size(), 15u);
  EXPECT_EQ(tiny->modules(false).size(), 14u);
}

TEST(NnModules, ParametersRegisteredWithHistoryBecomeLeaves) {
  nn::Module m;
  Tensor base = ones({2}, requires_grad());
  Tensor& p = m.register_parameter("p", base * 2);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  Tensor& frozen = m.register_parameter("frozen", ones({2}), false);
  EXPECT_FALSE(frozen.requires_grad());
  EXPECT_EQ(m.parameters().size(), 2u);
}

TEST(NnModules, TiedWeightsAreListedOnce) {
  nn::Embedding wte(8, 4);
  nn::Linear lm_head(nn::LinearOptions(4, 8).bias(false));
  lm_head->weight = lm_head->replace_parameter("weight", wte->weight);
  nn::Sequential model(wte, lm_head);
  EXPECT_EQ(names_of(model->named_parameters()), std::vector<std::string>{"0.weight"});
  EXPECT_TRUE(lm_head->weight.is_same(wte->weight));
  EXPECT_THROWS_WITH(lm_head->replace_parameter("bias2", wte->weight),
                     "replace_parameter: ember::nn::LinearImpl has no parameter named 'bias2'");
}

TEST(NnModules, TrainEvalReachEveryDescendant) {
  Tiny tiny;
  EXPECT_TRUE(tiny->is_training());
  tiny->eval();
  for (const auto& m : tiny->modules()) EXPECT_FALSE(m->is_training()) << m->name();
  Tensor x = ones({2, 4});
  auto drop = tiny->blocks->ptr<BlockImpl>(1)->drop;
  EXPECT_TRUE(drop(x).is_same(x));
  tiny->train();
  for (const auto& m : tiny->modules()) EXPECT_TRUE(m->is_training()) << m->name();
}

TEST(NnModules, ZeroGradSetsToNoneOrZeros) {
  nn::Linear lin(3, 2);
  lin(ones({4, 3})).sum().backward();
  ASSERT_TRUE(lin->weight.grad().defined());
  lin->zero_grad(/*set_to_none=*/false);
  EXPECT_TENSOR_CLOSE(lin->weight.grad(), zeros({2, 3}));
  EXPECT_TENSOR_CLOSE(lin->bias.grad(), zeros({2}));
  lin(ones({4, 3})).sum().backward();
  EXPECT_TENSOR_CLOSE(lin->bias.grad(), full({2}, 4.0));  // accumulated onto the zeros
  lin->zero_grad();
  EXPECT_FALSE(lin->weight.grad().defined());
  EXPECT_FALSE(lin->bias.grad().defined());
}

TEST(NnModules, ToDtypeConvertsInPlaceAndKeepsBoolBuffers) {
  Attn attn;
  Tensor w = attn->W_query->weight;  // a handle held elsewhere (an optimizer, say)
  const std::vector<float> before = w.to_vector<float>();
  attn->W_query(ones({1, 4})).sum().backward();
  attn->to(kFloat64);
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_EQ(attn->W_query->weight.dtype(), kFloat64);
  EXPECT_EQ(attn->W_query->weight.grad().dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad() && w.is_leaf());
  const std::vector<double> after = w.to_vector<double>();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], static_cast<double>(before[i]));
  EXPECT_EQ(attn->named_buffers()[0].value().dtype(), kBool);
  Tensor y = attn->W_query(ones({1, 4}, dtype(kFloat64)));
  EXPECT_EQ(y.dtype(), kFloat64);
}

// libtorch's order (PyTorch's Python visits children first): this module, then each child's subtree.
TEST(NnModules, ApplyVisitsParentsBeforeChildren) {
  Block block;
  std::vector<std::string> order;
  block->apply([&](nn::Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"(anonymous namespace)::BlockImpl", "(anonymous namespace)::AttnImpl",
                                             "ember::nn::LinearImpl", "ember::nn::LinearImpl",
                                             "ember::nn::LayerNormImpl", "ember::nn::DropoutImpl"}));
  std::vector<std::string> names;
  block->apply([&](const std::string& name, nn::Module&) { names.push_back(name); }, "block");
  EXPECT_EQ(names, (std::vector<std::string>{"block", "block.attn", "block.attn.W_query", "block.attn.W_key",
                                             "block.ln", "block.drop"}));
  std::vector<std::string> pointer_names;
  block->apply([&](const std::string& name, const std::shared_ptr<nn::Module>& m) {
    pointer_names.push_back(name + "=" + std::to_string(m->parameters(false).size()));
  });
  EXPECT_EQ(pointer_names,
            (std::vector<std::string>{"=0", "attn=0", "attn.W_query=2", "attn.W_key=1", "ln=2", "drop=0"}));
  const nn::Module& frozen = *block;
  int64_t count = 0;
  frozen.apply([&](const nn::Module&) { ++count; });
  EXPECT_EQ(count, 6);
}

TEST(NnModules, PrintoutIsAnIndentedTree) {
  std::ostringstream s;
  s << *Block();
  // User modules print their type name as libtorch demangles it, namespace and Impl included.
  EXPECT_EQ(s.str(),
            "(anonymous namespace)::BlockImpl(\n"
            "  (attn): (anonymous namespace)::AttnImpl(\n"
            "    (W_query): Linear(in_features=4, out_features=4, bias=true)\n"
            "    (W_key): Linear(in_features=4, out_features=4, bias=false)\n"
            "  )\n"
            "  (ln): LayerNorm([4], eps=1e-05, elementwise_affine=true)\n"
            "  (drop): Dropout(p=0.1, inplace=false)\n"
            ")");
  std::ostringstream leaves;
  leaves << nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)) << "\n"
         << nn::GELU(nn::GELUOptions().approximate("tanh")) << "\n"
         << nn::ReLU() << "\n"
         << nn::Softmax(-1) << "\n"
         << nn::Sequential(nn::Linear(2, 3), nn::ReLU());
  EXPECT_EQ(leaves.str(),
            "Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0)\n"
            "GELU(approximate='tanh')\n"
            "ReLU()\n"
            "Softmax(dim=-1)\n"
            "Sequential(\n"
            "  (0): Linear(in_features=2, out_features=3, bias=true)\n"
            "  (1): ReLU()\n"
            ")");
}

// ---- containers ----

TEST(NnModules, SequentialChainsAndIndexes) {
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU());
  seq->push_back("out", nn::Linear(4, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq[0]->name(), "ember::nn::LinearImpl");
  auto last = seq->ptr<nn::LinearImpl>(2);
  Tensor x = ones({5, 3});
  Tensor expected = last->forward(seq->ptr<nn::LinearImpl>(0)->forward(x).relu());
  EXPECT_TENSOR_CLOSE(seq(x), expected);
  EXPECT_EQ(names_of(seq->named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "out.weight", "out.bias"}));
  EXPECT_THROWS_WITH(seq->ptr(3), "Index out of range: index 3 of a Sequential of 3 modules");
  EXPECT_THROWS_WITH(seq->ptr<nn::LinearImpl>(1),
                     "Attempted to cast module of type ember::nn::ReLUImpl to type ember::nn::LinearImpl");
  EXPECT_THROWS_WITH(seq->at<nn::LinearImpl>(1),
                     "Attempted to cast module of type ember::nn::ReLUImpl to type ember::nn::LinearImpl");
  EXPECT_THROWS_WITH(nn::Sequential()->forward(x), "Cannot call forward() on an empty Sequential");
  EXPECT_THROWS_WITH(seq->forward<int64_t>(x),
                     "The type of the return value is ember::Tensor, but you asked for type long");
}

TEST(NnModules, ModuleListAndModuleDict) {
  nn::ModuleList list(nn::Linear(2, 2), nn::Dropout(0.5));
  list->push_back(nn::Linear(2, 3));
  EXPECT_EQ(list->size(), 3u);
  std::vector<std::string> kinds;
  for (const auto& m : *list) kinds.push_back(m->name());
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"ember::nn::LinearImpl", "ember::nn::DropoutImpl", "ember::nn::LinearImpl"}));
  EXPECT_EQ(list->at<nn::LinearImpl>(2).options.out_features(), 3);
  EXPECT_EQ(list[1]->name(), "ember::nn::DropoutImpl");
  EXPECT_EQ(list->ptr<nn::LinearImpl>(1), nullptr);  // libtorch's ptr<T>: nullptr for another type
  EXPECT_THROWS_WITH(list->at<nn::LinearImpl>(1),
                     "Unable to cast module[1] to ember::nn::LinearImpl: it is a ember::nn::DropoutImpl");
  EXPECT_THROWS_WITH(list->ptr(3), "Index out of range: index 3 of a ModuleList of 3 modules");

  nn::ModuleDict dict(nn::Module::NamedModules{{"q", nn::Linear(2, 2).ptr()}, {"act", nn::GELU().ptr()}});
  dict->insert("k", nn::Linear(2, 4));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"q", "act", "k"}));
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_EQ(dict->ptr<nn::LinearImpl>("k")->options.out_features(), 4);
  dict->insert("k", nn::Linear(2, 5));  // replaces, keeps the position
  EXPECT_EQ(dict->ptr<nn::LinearImpl>("k")->options.out_features(), 5);
  EXPECT_EQ(names_of(dict->named_parameters()), (std::vector<std::string>{"q.weight", "q.bias", "k.weight", "k.bias"}));
  EXPECT_EQ(dict->named_parameters()[2].value().size(0), 5);
  EXPECT_THROWS_WITH(dict["v"], "Key 'v' is not defined");
  EXPECT_THROWS_WITH(dict->at<nn::GELUImpl>("q"), "Unable to cast module['q'] to ember::nn::GELUImpl");
  EXPECT_EQ(dict->pop("q")->name(), "ember::nn::LinearImpl");
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"act", "k"}));
}

// ---- bad input ----

TEST(NnModules, BadInputGivesClearErrors) {
  nn::Linear lin(3, 4);
  EXPECT_THROWS_WITH(lin(ones({2, 5})),
                     "linear: input has 5 features but weight expects 3 (input [2, 5], weight [4, 3])");
  EXPECT_THROWS_WITH(nn::Dropout(1.5), "Dropout: probability has to be between 0 and 1, but got 1.5");
  nn::Embedding emb(5, 2);
  EXPECT_THROWS_WITH(emb(tensor({{0, 5}}, dtype(kInt64))),
                     "embedding: index 5 is out of bounds for dimension 0 with size 5");
  EXPECT_THROWS_WITH(emb(tensor({0.0, 1.0})), "embedding: expected indices of dtype int64, got float32");
  EXPECT_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(5, 2).padding_idx(5)),
                     "Embedding: padding_idx 5 must be within num_embeddings (5)");
  nn::LayerNorm ln(nn::LayerNormOptions({4}));
  EXPECT_THROWS_WITH(ln(ones({2, 3})), "layer_norm: input of shape [2, 3] does not end with normalized_shape [4]");
  EXPECT_THROWS_WITH(nn::GELU(nn::GELUOptions().approximate("fast")),
                     "GELU: approximate must be 'none' or 'tanh', got 'fast'");

  nn::Module m;
  m.register_parameter("w", ones({1}));
  // libtorch's messages.
  EXPECT_THROWS_WITH(m.register_parameter("w", ones({1})), "Parameter 'w' already defined");
  EXPECT_THROWS_WITH(m.register_parameter("a.b", ones({1})), "Parameter name must not contain a dot (got 'a.b')");
  EXPECT_THROWS_WITH(m.register_buffer("", ones({1})), "Buffer name must not be empty");
  m.register_buffer("b", ones({1}));
  EXPECT_THROWS_WITH(m.register_buffer("b", ones({1})), "Buffer 'b' already defined");
  m.register_module("child", nn::Linear(1, 1));
  EXPECT_THROWS_WITH(m.register_module("child", nn::Linear(1, 1)), "Submodule 'child' already defined");
  EXPECT_THROWS_WITH(m.unregister_module("nope"), "No Module with name `nope` is registered");
  m.unregister_module("child");
  EXPECT_TRUE(m.children().empty());
  EXPECT_THROWS_WITH(
      m.clone(),
      "clone() has not been implemented for ember::nn::Module. Subclass torch::nn::Cloneable<ember::nn::Module>");
  EXPECT_THROWS_WITH(m.register_module("x", nn::Linear(nullptr)), "ModuleHolder: accessing an empty module holder");
  EXPECT_THROWS_WITH(m.modules(), "modules: this module is not owned by a shared_ptr");
  EXPECT_EQ(m.modules(false).size(), 0u);
}

// ---- libtorch's C++ frontend: OrderedDict, AnyModule, Cloneable, streams, init tags (issue 19) ----

TEST(NnOrderedDict, KeepsOrderAndRejectsWhatLibtorchRejects) {
  OrderedDict<std::string, int> dict;
  dict.insert("b", 2);
  dict.insert("a", 1);
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(dict[1].key(), "a");
  EXPECT_EQ(*dict[0], 2);
  EXPECT_EQ(dict["a"], 1);
  EXPECT_EQ(dict.find("zz"), nullptr);
  // libtorch's messages: torch::OrderedDict::insert / operator[] / operator[](size_t) / front().
  EXPECT_THROWS_WITH(dict.insert("b", 3), "Key 'b' already defined");
  EXPECT_THROWS_WITH(dict["zz"], "Key 'zz' is not defined");
  EXPECT_THROWS_WITH(dict[2], "Index 2 is out of bounds");
  EXPECT_THROWS_WITH(dict.erase("zz"), "Key 'zz' is not defined");
  EXPECT_THROWS_WITH((OrderedDict<std::string, int>().front()), "Called front() on an empty OrderedDict");
  OrderedDict<std::string, int> described("Parameter");
  described.insert("w", 1);
  EXPECT_THROWS_WITH(described.insert("w", 1), "Parameter 'w' already defined");
  dict.insert("c", 3);
  dict.erase("b");  // later items move up, and their index with them
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(dict["c"], 3);
  int sum = 0;
  for (auto& [key, value] : dict) sum += value * (key == "c" ? 10 : 1);
  EXPECT_EQ(sum, 31);
}

struct AddImpl : nn::Module {
  Tensor forward(Tensor a, Tensor b) { return a + b; }
};
EMBER_MODULE(Add);

struct CountImpl : nn::Module {
  int64_t forward(const Tensor& x) { return x.numel(); }
};
EMBER_MODULE(Count);

TEST(NnAnyModule, ChecksArgumentsAndTypesWithLibtorchsMessages) {
  nn::AnyModule add(Add{});
  Tensor x = ones({2});
  EXPECT_TENSOR_CLOSE(add.forward(x, x), full({2}, 2.0));
  EXPECT_THROWS_WITH(add.forward(x), "AddImpl's forward() method expects 2 argument(s), but received 1.");
  EXPECT_THROWS_WITH(add.forward(x, 2.0),
                     "Expected argument #1 to be of type ember::Tensor, but received value of type double");
  EXPECT_THROWS_WITH(add.ptr<nn::LinearImpl>(),
                     "Attempted to cast module of type (anonymous namespace)::AddImpl to type ember::nn::LinearImpl");
  EXPECT_THROWS_WITH(add.forward<int64_t>(x, x),
                     "Attempted to cast AnyValue to long, but its actual type is ember::Tensor");
  EXPECT_THROWS_WITH(nn::AnyModule().forward(x), "Cannot call forward() on an empty AnyModule");
  EXPECT_TRUE(nn::AnyModule().is_empty());
  nn::AnyModule count(Count{});
  EXPECT_EQ(count.forward<int64_t>(ones({2, 3})), 6);
  // A Sequential passes the first module's output on; a user module with two inputs can lead it.
  nn::Sequential seq;
  seq->push_back(add);
  seq->push_back(nn::Functional([](Tensor t) { return t * 3; }));
  seq->push_back(Count());
  EXPECT_EQ(seq->forward<int64_t>(x, x), 2);
  EXPECT_THROWS_WITH(seq->forward(x, x), "The type of the return value is long, but you asked for type ember::Tensor");
}

// A user module declaring its default arguments in a protected section, as libtorch's own modules do.
struct ScaleImpl : nn::Module {
  Tensor forward(const Tensor& x, double factor = 2.0, Tensor shift = {}) {
    return shift.defined() ? x * factor + shift : x * factor;
  }

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, nn::AnyValue(2.0)}, {2, nn::AnyValue(Tensor())})
};
EMBER_MODULE(Scale);

TEST(NnAnyModule, FillsInDeclaredDefaultArguments) {
  Tensor x = arange(3, dtype(kFloat32));
  nn::AnyModule scale(Scale{});
  EXPECT_TENSOR_CLOSE(scale.forward(x), x * 2);
  EXPECT_TENSOR_CLOSE(scale.forward(x, 3.0), x * 3);
  EXPECT_TENSOR_CLOSE(scale.forward(x, 3.0, ones({3})), x * 3 + 1);
  EXPECT_THROWS_WITH(scale.forward(), "ScaleImpl's forward() method expects at least 1 argument(s) and at most 3 "
                                      "argument(s), but received 0.");
  EXPECT_THROWS_WITH(scale.forward(x, 1.0, x, x), "at most 3 argument(s), but received 4.");
  // Without the declaration, too few arguments say how to declare them (libtorch's hint).
  EXPECT_THROWS_WITH(nn::AnyModule(Add{}).forward(x),
                     "If (anonymous namespace)::AddImpl's forward() method has default arguments, please make sure "
                     "the forward() method is declared with a corresponding `FORWARD_HAS_DEFAULT_ARGS` macro.");

  // libtorch's modules with default arguments work in a Sequential with one input.
  manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(3, 4));
  nn::Sequential seq(lstm);
  Tensor input = randn({5, 2, 3});
  auto [out, state] = seq->forward<std::tuple<Tensor, std::tuple<Tensor, Tensor>>>(input);
  EXPECT_TENSOR_CLOSE(out, std::get<0>(lstm->forward(input)));
  nn::AnyModule gru(nn::GRU(nn::GRUOptions(3, 2)));
  EXPECT_EQ(std::get<0>(gru.forward<std::tuple<Tensor, Tensor>>(input)).sizes(), IntArrayRef({5, 2, 2}));
  nn::AnyModule cell(nn::LSTMCell(3, 2));
  EXPECT_EQ(std::get<1>(cell.forward<std::tuple<Tensor, Tensor>>(randn({2, 3}))).sizes(), IntArrayRef({2, 2}));
  nn::AnyModule layer(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 2).dropout(0.0)));
  EXPECT_EQ(layer.forward(randn({3, 2, 4})).sizes(), IntArrayRef({3, 2, 4}));
  nn::AnyModule attention(nn::MultiheadAttention(4, 2));
  Tensor q = randn({3, 2, 4});
  EXPECT_EQ(std::get<1>(attention.forward<std::tuple<Tensor, Tensor>>(q, q, q)).sizes(), IntArrayRef({2, 3, 3}));
  nn::AnyModule bag(nn::EmbeddingBag(10, 3));
  EXPECT_EQ(bag.forward(tensor({{1, 2}, {3, 4}})).sizes(), IntArrayRef({2, 3}));
}

struct CloneNetImpl : nn::Cloneable<CloneNetImpl> {
  explicit CloneNetImpl(int64_t width = 3) : width(width) { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(2, width));
    scale = register_parameter("scale", ones({width}));
    register_buffer("count", zeros({1}));
  }
  Tensor forward(const Tensor& x) { return fc(x) * scale; }
  int64_t width;
  nn::Linear fc{nullptr};
  Tensor scale;
};
EMBER_MODULE(CloneNet);

struct BadCloneImpl : nn::Cloneable<BadCloneImpl> {
  BadCloneImpl() { register_parameter("w", ones({1})); }  // registered outside reset(): clone() must say so
  void reset() override {}
};

TEST(NnCloneable, CloneDeepCopiesParametersBuffersAndChildren) {
  manual_seed(0);
  CloneNet net(4);
  net->named_buffers()["count"].fill_(7);
  auto copy = std::dynamic_pointer_cast<CloneNetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->width, 4);
  EXPECT_TENSOR_CLOSE(copy->fc->weight, net->fc->weight);
  EXPECT_FALSE(copy->fc->weight.is_same(net->fc->weight));
  EXPECT_EQ(copy->fc.ptr().get(), copy->named_children()["fc"].get());  // members point at the copy's children
  EXPECT_TRUE(copy->fc->weight.requires_grad());
  EXPECT_EQ(copy->named_buffers()["count"].item<float>(), 7.0f);
  {
    NoGradGuard no_grad;
    copy->fc->weight.add_(1);
    copy->scale.mul_(2);
  }
  EXPECT_TENSOR_CLOSE(copy->fc->weight - net->fc->weight, ones({4, 2}));
  EXPECT_TENSOR_CLOSE(net->scale, ones({4}));
  // Containers and built-in modules clone too.
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU(), CloneNet(2));
  auto seq_copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_NE(seq_copy, nullptr);
  Tensor x = randn({3, 2});
  EXPECT_TENSOR_CLOSE(seq_copy->forward(x), seq->forward(x));
  EXPECT_FALSE(seq_copy->ptr<nn::LinearImpl>(0)->weight.is_same(seq->ptr<nn::LinearImpl>(0)->weight));
  EXPECT_THROWS_WITH(
      std::make_shared<BadCloneImpl>()->clone(),
      "The cloned module does not have the same number of parameters as the original module after calling reset()");
}

TEST(NnModules, NameAsZeroGradAndInitTags) {
  EXPECT_EQ(std::make_shared<CloneNetImpl>()->name(), "(anonymous namespace)::CloneNetImpl");
  CloneNet net;
  nn::Module& base = *net;
  EXPECT_EQ(base.as<CloneNetImpl>(), net.get());
  EXPECT_EQ(base.as<CloneNet>(), net.get());
  EXPECT_EQ(base.as<nn::Linear>(), nullptr);
  EXPECT_NE(net->fc->as<nn::Linear>(), nullptr);
  // zero_grad() follows libtorch 2.x: gradients are unset (1.13 filled them with zeros).
  net->forward(ones({1, 2})).sum().backward();
  ASSERT_TRUE(net->scale.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_TENSOR_CLOSE(net->scale.grad(), zeros({3}));
  net->zero_grad();
  EXPECT_FALSE(net->scale.grad().defined());
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kLeakyReLU), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kLeakyReLU, 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kConvTranspose2D), 1.0);
  nn::init::NonlinearityType chosen = kReLU;
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(chosen), std::sqrt(2.0));
}

TEST(NnSerialize, StreamsCarryTheSameBytesAsFiles) {
  manual_seed(1);
  CloneNet net;
  std::stringstream stream;
  nn::save(*net, stream);
  const std::string path = ::testing::TempDir() + "ember_stream_" + std::to_string(::getpid()) + ".safetensors";
  nn::save(*net, path);
  std::ifstream file(path, std::ios::binary);
  const std::string file_bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  EXPECT_EQ(stream.str(), file_bytes);
  std::remove(path.c_str());
  CloneNet copy(3);
  nn::load(*copy, stream);
  EXPECT_TENSOR_CLOSE(copy->fc->weight, net->fc->weight);
  std::istringstream truncated(file_bytes.substr(0, file_bytes.size() - 4));
  EXPECT_THROWS_WITH(nn::load(*copy, truncated), "load_safetensors: <stream>");
  std::istringstream empty_stream("");
  EXPECT_THROWS_WITH(load_safetensors(empty_stream), "too short for the 8-byte header length");
}

}  // namespace
