// nn::Module and the layer modules: PyTorch's initialisation after manual_seed, forward/backward with
// parameters copied in from PyTorch, the module tree (names, modes, zero_grad, to, apply, printout),
// containers, and bad input.
//
// Fixtures come from scripts/gen_nn_fixtures.py (tests/fixtures/nn/modules.json).
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
  for (const auto& entry : named) names.push_back(entry.first);
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
         return std::vector<std::shared_ptr<nn::Module>>{nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(-2)).ptr()};
       }},
      {"layer_norm", [] { return std::vector<std::shared_ptr<nn::Module>>{nn::LayerNorm(nn::LayerNormOptions({4})).ptr()}; }},
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
            (std::vector<std::string>{"scale", "blocks.0.attn.W_query.weight", "blocks.0.attn.W_query.bias",
                                      "blocks.0.attn.W_key.weight", "blocks.0.ln.weight", "blocks.0.ln.bias",
                                      "blocks.1.attn.W_query.weight", "blocks.1.attn.W_query.bias",
                                      "blocks.1.attn.W_key.weight", "blocks.1.ln.weight", "blocks.1.ln.bias",
                                      "head.weight", "head.bias"}));
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
  EXPECT_TRUE(tiny->named_parameters()[1].second.is_same(tiny->blocks->ptr<BlockImpl>(0)->attn->W_query->weight));

  std::vector<std::string> children;
  for (const auto& [name, child] : tiny->named_children()) children.push_back(name + ":" + child->name());
  EXPECT_EQ(children, (std::vector<std::string>{"blocks:ModuleList", "head:Linear"}));
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
  EXPECT_THROWS_WITH(lm_head->replace_parameter("bias2", wte->weight), "replace_parameter: Linear has no parameter named 'bias2'");
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
  EXPECT_EQ(attn->named_buffers()[0].second.dtype(), kBool);
  Tensor y = attn->W_query(ones({1, 4}, dtype(kFloat64)));
  EXPECT_EQ(y.dtype(), kFloat64);
}

TEST(NnModules, ApplyVisitsChildrenBeforeParents) {
  Block block;
  std::vector<std::string> order;
  block->apply([&](nn::Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "Linear", "Attn", "LayerNorm", "Dropout", "Block"}));
  std::vector<std::string> names;
  block->apply([&](const std::string& name, nn::Module&) { names.push_back(name); }, "block");
  EXPECT_EQ(names.front(), "block.attn.W_query");
  EXPECT_EQ(names.back(), "block");
}

TEST(NnModules, PrintoutIsAnIndentedTree) {
  std::ostringstream s;
  s << *Block();
  EXPECT_EQ(s.str(),
            "Block(\n"
            "  (attn): Attn(\n"
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
  EXPECT_EQ(seq[0]->name(), "Linear");
  auto last = seq->ptr<nn::LinearImpl>(2);
  Tensor x = ones({5, 3});
  Tensor expected = last->forward(seq->ptr<nn::LinearImpl>(0)->forward(x).relu());
  EXPECT_TENSOR_CLOSE(seq(x), expected);
  EXPECT_EQ(names_of(seq->named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "out.weight", "out.bias"}));
  EXPECT_THROWS_WITH(seq->ptr(3), "Sequential: index 3 is out of range (size 3)");
  EXPECT_THROWS_WITH(seq->ptr<nn::LinearImpl>(1), "Sequential: module 1 is a ReLU, not the type asked for");
  EXPECT_THROWS_WITH(nn::Sequential()->forward(x), "Sequential: forward called on an empty Sequential");
}

TEST(NnModules, ModuleListAndModuleDict) {
  nn::ModuleList list(nn::Linear(2, 2), nn::Dropout(0.5));
  list->push_back(nn::Linear(2, 3));
  EXPECT_EQ(list->size(), 3u);
  std::vector<std::string> kinds;
  for (const auto& m : *list) kinds.push_back(m->name());
  EXPECT_EQ(kinds, (std::vector<std::string>{"Linear", "Dropout", "Linear"}));
  EXPECT_EQ(list->at<nn::LinearImpl>(2).options.out_features(), 3);
  EXPECT_EQ(list[1]->name(), "Dropout");
  EXPECT_THROWS_WITH(list->ptr<nn::LinearImpl>(1), "ModuleList: module 1 is a Dropout, not the type asked for");

  nn::ModuleDict dict(nn::Module::NamedModules{{"q", nn::Linear(2, 2).ptr()}, {"act", nn::GELU().ptr()}});
  dict->insert("k", nn::Linear(2, 4));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"q", "act", "k"}));
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_EQ(dict->ptr<nn::LinearImpl>("k")->options.out_features(), 4);
  dict->insert("k", nn::Linear(2, 5));  // replaces, keeps the position
  EXPECT_EQ(dict->ptr<nn::LinearImpl>("k")->options.out_features(), 5);
  EXPECT_EQ(names_of(dict->named_parameters()), (std::vector<std::string>{"q.weight", "q.bias", "k.weight", "k.bias"}));
  EXPECT_EQ(dict->named_parameters()[2].second.size(0), 5);
  EXPECT_THROWS_WITH(dict["v"], "ModuleDict: no module under key 'v'");
}

// ---- bad input ----

TEST(NnModules, BadInputGivesClearErrors) {
  nn::Linear lin(3, 4);
  EXPECT_THROWS_WITH(lin(ones({2, 5})), "linear: input has 5 features but weight expects 3 (input [2, 5], weight [4, 3])");
  EXPECT_THROWS_WITH(nn::Dropout(1.5), "Dropout: probability has to be between 0 and 1, but got 1.5");
  nn::Embedding emb(5, 2);
  EXPECT_THROWS_WITH(emb(tensor({{0, 5}}, dtype(kInt64))), "embedding: index 5 is out of bounds for dimension 0 with size 5");
  EXPECT_THROWS_WITH(emb(tensor({0.0, 1.0})), "embedding: expected indices of dtype int64, got float32");
  EXPECT_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(5, 2).padding_idx(5)),
                     "Embedding: padding_idx 5 must be within num_embeddings (5)");
  nn::LayerNorm ln(nn::LayerNormOptions({4}));
  EXPECT_THROWS_WITH(ln(ones({2, 3})), "layer_norm: input of shape [2, 3] does not end with normalized_shape [4]");
  EXPECT_THROWS_WITH(nn::GELU(nn::GELUOptions().approximate("fast")), "GELU: approximate must be 'none' or 'tanh', got 'fast'");

  nn::Module m;
  m.register_parameter("w", ones({1}));
  EXPECT_THROWS_WITH(m.register_parameter("w", ones({1})), "register_parameter: parameter 'w' is already defined in Module");
  EXPECT_THROWS_WITH(m.register_parameter("a.b", ones({1})), "register_parameter: parameter name must not contain a dot");
  EXPECT_THROWS_WITH(m.register_buffer("", ones({1})), "register_buffer: buffer name must not be empty");
  EXPECT_THROWS_WITH(m.register_module("x", nn::Linear(nullptr)), "ModuleHolder: accessing an empty module holder");
  EXPECT_THROWS_WITH(m.modules(), "modules: this module is not owned by a shared_ptr");
  EXPECT_EQ(m.modules(false).size(), 0u);
}

}  // namespace
