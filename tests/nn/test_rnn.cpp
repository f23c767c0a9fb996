// nn::LSTM, nn::GRU, nn::RNN, their cells and nn::utils::rnn against PyTorch 1.13
// (tests/fixtures/nn/rnn*.json, written by scripts/gen_rnn_fixtures.py): the initial draws after
// manual_seed, outputs, final states, and the gradients of the input, the initial state and every
// parameter; float64 gradchecks; one run on the emulated CUDA device; and the errors.
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "module_case.h"

namespace ember {
namespace {

namespace rnn = nn::utils::rnn;
using nlohmann::json;

const json& rnn_cases() {
  static const json cases = test::load_fixture("nn/rnn.json");
  return cases;
}

// The module of a case, built (and so drawn) right after manual_seed(seed), as the generator did.
std::shared_ptr<nn::detail::RNNImplBase> build_module(const json& c) {
  const json& o = c.at("options");
  const std::string kind = o.at("kind");
  const int64_t I = o.at("input_size"), H = o.at("hidden_size");
  const int64_t layers = o.value("num_layers", 1);
  const bool bias = o.value("bias", true), batch_first = o.value("batch_first", false);
  const bool bidirectional = o.value("bidirectional", false);
  const double dropout = o.value("dropout", 0.0);
  manual_seed(c.at("seed").get<uint64_t>());
  std::shared_ptr<nn::detail::RNNImplBase> m;
  if (kind == "LSTM") {
    m = nn::LSTM(nn::LSTMOptions(I, H)
                     .num_layers(layers)
                     .bias(bias)
                     .batch_first(batch_first)
                     .dropout(dropout)
                     .bidirectional(bidirectional)
                     .proj_size(o.value("proj_size", 0)))
            .ptr();
  } else if (kind == "GRU") {
    m = nn::GRU(nn::GRUOptions(I, H)
                    .num_layers(layers)
                    .bias(bias)
                    .batch_first(batch_first)
                    .dropout(dropout)
                    .bidirectional(bidirectional))
            .ptr();
  } else {
    nn::RNNOptions options(I, H);
    if (o.value("nonlinearity", "tanh") == "relu") options.nonlinearity(kReLU);
    m = nn::RNN(options.num_layers(layers)
                    .bias(bias)
                    .batch_first(batch_first)
                    .dropout(dropout)
                    .bidirectional(bidirectional))
            .ptr();
  }
  if (c.at("dtype") == "float64") m->to(kFloat64);
  m->train(c.at("train").get<bool>());
  return m;
}

// Runs the module as the generator did: (output, h_n, c_n (undefined but for the LSTM)).
std::tuple<Tensor, Tensor, Tensor> run(nn::detail::RNNImplBase& m, const json& c, const Tensor& x, const Tensor& h0,
                                       const Tensor& c0) {
  const json& o = c.at("options");
  const std::string kind = o.at("kind");
  const bool batch_first = o.value("batch_first", false);
  if (c.contains("lengths")) {
    Tensor lengths = from_vector(c["lengths"].get<std::vector<int64_t>>(), {3}, dtype(kInt64));
    rnn::PackedSequence packed = rnn::pack_padded_sequence(x, lengths, batch_first, /*enforce_sorted=*/false);
    auto unpack = [&](const rnn::PackedSequence& out) {
      return std::get<0>(rnn::pad_packed_sequence(out, batch_first));
    };
    if (kind == "LSTM") {
      std::optional<std::tuple<Tensor, Tensor>> state;
      if (h0.defined()) state = std::make_tuple(h0, c0);
      auto [out, hc] = dynamic_cast<nn::LSTMImpl&>(m).forward_with_packed_input(packed, state);
      return {unpack(out), std::get<0>(hc), std::get<1>(hc)};
    }
    auto [out, h_n] = kind == "GRU" ? dynamic_cast<nn::GRUImpl&>(m).forward_with_packed_input(packed, h0)
                                    : dynamic_cast<nn::RNNImpl&>(m).forward_with_packed_input(packed, h0);
    return {unpack(out), h_n, Tensor()};
  }
  if (kind == "LSTM") {
    auto& lstm = dynamic_cast<nn::LSTMImpl&>(m);
    auto [out, hc] = h0.defined() ? lstm.forward(x, std::make_tuple(h0, c0)) : lstm.forward(x);
    return {out, std::get<0>(hc), std::get<1>(hc)};
  }
  auto [out, h_n] =
      kind == "GRU" ? dynamic_cast<nn::GRUImpl&>(m).forward(x, h0) : dynamic_cast<nn::RNNImpl&>(m).forward(x, h0);
  return {out, h_n, Tensor()};
}

// The loss weights of the generator: waves with fixed phases.
Tensor loss_weight(const Tensor& like, double phase) {
  return test::wave64(like.sizes(), phase).to(like.dtype()).to(like.device());
}

void check_module_case(const std::string& name, Device device = Device(kCPU)) {
  SCOPED_TRACE(name);
  const json& c = rnn_cases().at(name);
  auto m = build_module(c);
  test::expect_parameter_names(*m, c);
  if (c.contains("params")) test::expect_parameters_equal(*m, c);  // PyTorch's initial draws
  m->to(device);
  const bool f64 = c.at("dtype") == "float64";
  const double rtol = f64 ? 1e-9 : 1e-4, atol = f64 ? 1e-10 : 1e-5;
  const json& in = c.at("inputs");
  auto input = [&](const char* key) {
    return in.contains(key) ? test::tensor_from_json(in[key]).to(device).requires_grad_() : Tensor();
  };
  Tensor x = input("x"), h0 = input("h0"), c0 = input("c0");
  auto [out, h_n, c_n] = run(*m, c, x, h0, c0);
  EXPECT_TENSOR_CLOSE(out, test::tensor_from_json(c.at("output")), rtol, atol) << "output";
  EXPECT_TENSOR_CLOSE(h_n, test::tensor_from_json(c.at("h_n")), rtol, atol) << "h_n";
  Tensor loss = (out * loss_weight(out, 0.41)).sum() + (h_n * loss_weight(h_n, 0.83)).sum();
  if (c.contains("c_n")) {
    EXPECT_TENSOR_CLOSE(c_n, test::tensor_from_json(c["c_n"]), rtol, atol) << "c_n";
    loss = loss + (c_n * loss_weight(c_n, 1.17)).sum();
  }
  loss.backward();
  for (auto [key, t] : {std::pair{"x", x}, {"h0", h0}, {"c0", c0}}) {
    if (!t.defined()) continue;
    EXPECT_TENSOR_CLOSE(t.grad(), test::tensor_from_json(c.at("input_grads").at(key)), rtol, atol) << "grad of " << key;
  }
  for (const auto& [pname, p] : m->named_parameters()) {
    EXPECT_TENSOR_CLOSE(p.grad(), test::tensor_from_json(c.at("param_grads").at(pname)), rtol, atol)
        << "grad of " << pname;
  }
}

class RnnCase : public ::testing::TestWithParam<std::string> {};

TEST_P(RnnCase, MatchesPyTorch) { check_module_case(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Rnn, RnnCase,
                         ::testing::Values("lstm_1layer", "lstm_zero_state_f64", "lstm_2layer_bidirectional",
                                           "lstm_3layer_batch_first_f64", "lstm_proj_bidirectional", "lstm_no_bias_f64",
                                           "lstm_unbatched", "lstm_unbatched_zero_state_f64", "lstm_dropout_train",
                                           "lstm_dropout_eval", "lstm_packed_bidirectional",
                                           "lstm_packed_batch_first_f64", "gru_1layer", "gru_2layer_bidirectional_f64",
                                           "gru_batch_first_no_bias", "gru_unbatched_f64", "gru_dropout_train",
                                           "gru_packed_bidirectional", "rnn_tanh_2layer", "rnn_relu_bidirectional_f64",
                                           "rnn_packed_batch_first"),
                         [](const auto& info) { return info.param; });

TEST(Rnn, EveryFixtureCaseIsTested) {
  // The table above lists each case of rnn.json; a case added to the generator must be added there.
  EXPECT_EQ(rnn_cases().size(), 21u);
}

// The call forms a libtorch program writes.
TEST(Rnn, LibtorchCallForms) {
  nn::LSTM lstm(3, 4);
  Tensor x = test::wave64({5, 2, 3}).to(kFloat32);
  auto out = lstm(x);
  Tensor y = std::get<0>(out);
  auto [h, c] = std::get<1>(out);
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 2, 4}));
  auto again = lstm->forward(x, std::make_tuple(h, c));
  EXPECT_EQ(std::get<0>(std::get<1>(again)).sizes(), IntArrayRef({1, 2, 4}));
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2));
  auto [g, gh] = gru(x);
  EXPECT_EQ(gh.sizes(), IntArrayRef({2, 2, 4}));
  EXPECT_EQ(lstm->all_weights().size(), 4u);
  lstm->flatten_parameters();
  // A clone holds copies of the weights and computes the same.
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_TENSOR_CLOSE(std::get<0>(copy->forward(x)), y, 0.0, 0.0);
  EXPECT_NE(copy->named_parameters()["weight_ih_l0"].data_ptr<float>(),
            lstm->named_parameters()["weight_ih_l0"].data_ptr<float>());
}

TEST(Rnn, PrettyPrintIsLibtorchs) {
  std::ostringstream s;
  nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).proj_size(2)).get()->pretty_print(s);
  EXPECT_EQ(s.str(),
            "LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, batch_first=false, dropout=0, "
            "bidirectional=false, proj_size=2)");
  s.str("");
  nn::GRU(nn::GRUOptions(2, 5).bidirectional(true).batch_first(true)).get()->pretty_print(s);
  EXPECT_EQ(s.str(),
            "GRU(input_size=2, hidden_size=5, num_layers=1, bias=true, batch_first=true, dropout=0, "
            "bidirectional=true)");
}

TEST(Rnn, GradcheckFloat64) {
  // Small modules in float64: gradients of the input, the initial state and the parameters.
  for (const std::string kind : {"LSTM", "GRU"}) {
    SCOPED_TRACE(kind);
    manual_seed(3);
    std::shared_ptr<nn::detail::RNNImplBase> m;
    if (kind == "LSTM") m = nn::LSTM(nn::LSTMOptions(2, 2).bidirectional(true).proj_size(1)).ptr();
    if (kind == "GRU") m = nn::GRU(nn::GRUOptions(2, 2).num_layers(2)).ptr();
    m->to(kFloat64);
    tensor_list inputs{test::wave64({3, 2, 2}), test::wave64({kind == "LSTM" ? 2 : 2, 2, kind == "LSTM" ? 1 : 2}, 0.5)};
    if (kind == "LSTM") inputs.push_back(test::wave64({2, 2, 2}, 0.9, 0.5));
    const size_t n_inputs = inputs.size();
    for (const Tensor& p : m->parameters()) inputs.push_back(p);
    auto f = [&](const tensor_list& in) {
      if (kind == "LSTM") {
        auto [out, hc] = dynamic_cast<nn::LSTMImpl&>(*m).forward(in[0], std::make_tuple(in[1], in[2]));
        return (out.sum() + std::get<0>(hc).mul(0.7).sum() + std::get<1>(hc).mul(0.3).sum()).reshape({1});
      }
      auto [out, h] = dynamic_cast<nn::GRUImpl&>(*m).forward(in[0], in[1]);
      return (out.mul(out).sum() + h.mul(0.5).sum()).reshape({1});
    };
    for (size_t i = 0; i < n_inputs; ++i) inputs[i].requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(f, inputs));
  }
}

// The same case on the emulated CUDA device equals PyTorch's CPU numbers.
TEST(Rnn, RunsOnCuda) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_module_case("lstm_packed_bidirectional", cuda_test::kGpu);
  check_module_case("gru_2layer_bidirectional_f64", cuda_test::kGpu);
}

// ---- cells ----

void check_cell_case(const std::string& name) {
  SCOPED_TRACE(name);
  static const json cases = test::load_fixture("nn/rnn_cells.json");
  const json& c = cases.at(name);
  const json& o = c.at("options");
  const std::string kind = o.at("kind");
  const int64_t I = o.at("input_size"), H = o.at("hidden_size");
  const bool bias = o.value("bias", true);
  manual_seed(c.at("seed").get<uint64_t>());
  std::shared_ptr<nn::detail::RNNCellImplBase> m;
  if (kind == "LSTMCell") m = nn::LSTMCell(nn::LSTMCellOptions(I, H).bias(bias)).ptr();
  if (kind == "GRUCell") m = nn::GRUCell(nn::GRUCellOptions(I, H).bias(bias)).ptr();
  if (kind == "RNNCell") {
    nn::RNNCellOptions options(I, H);
    if (o.value("nonlinearity", "tanh") == "relu") options.nonlinearity(kReLU);
    m = nn::RNNCell(options.bias(bias)).ptr();
  }
  const bool f64 = c.at("dtype") == "float64";
  if (f64) m->to(kFloat64);
  test::expect_parameter_names(*m, c);
  test::expect_parameters_equal(*m, c);
  const double rtol = f64 ? 1e-9 : 1e-4, atol = f64 ? 1e-10 : 1e-5;
  const json& in = c.at("inputs");
  auto input = [&](const char* key) {
    return in.contains(key) ? test::tensor_from_json(in[key]).requires_grad_() : Tensor();
  };
  Tensor x = input("x"), h0 = input("h0"), c0 = input("c0");
  Tensor h, cell;
  if (kind == "LSTMCell") {
    auto& lstm = dynamic_cast<nn::LSTMCellImpl&>(*m);
    std::tie(h, cell) = h0.defined() ? lstm.forward(x, std::make_tuple(h0, c0)) : lstm.forward(x);
  } else {
    h = kind == "GRUCell" ? dynamic_cast<nn::GRUCellImpl&>(*m).forward(x, h0)
                          : dynamic_cast<nn::RNNCellImpl&>(*m).forward(x, h0);
  }
  EXPECT_TENSOR_CLOSE(h, test::tensor_from_json(c.at("h")), rtol, atol) << "h";
  Tensor loss = (h * loss_weight(h, 0.41)).sum();
  if (c.contains("c")) {
    EXPECT_TENSOR_CLOSE(cell, test::tensor_from_json(c["c"]), rtol, atol) << "c";
    loss = loss + (cell * loss_weight(cell, 0.83)).sum();
  }
  loss.backward();
  for (auto [key, t] : {std::pair{"x", x}, {"h0", h0}, {"c0", c0}}) {
    if (!t.defined()) continue;
    EXPECT_TENSOR_CLOSE(t.grad(), test::tensor_from_json(c.at("input_grads").at(key)), rtol, atol) << "grad of " << key;
  }
  for (const auto& [pname, p] : m->named_parameters()) {
    EXPECT_TENSOR_CLOSE(p.grad(), test::tensor_from_json(c.at("param_grads").at(pname)), rtol, atol)
        << "grad of " << pname;
  }
}

TEST(RnnCell, MatchesPyTorch) {
  for (const char* name : {"rnn_cell_tanh", "rnn_cell_relu_zero_state_f64", "lstm_cell", "lstm_cell_unbatched_f64",
                           "gru_cell", "gru_cell_unbatched_no_bias_f64"}) {
    check_cell_case(name);
  }
}

TEST(RnnCell, PrettyPrintIsLibtorchs) {
  std::ostringstream s;
  nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity(kReLU).bias(false)).get()->pretty_print(s);
  EXPECT_EQ(s.str(), "RNNCell(3, 4, bias=false, nonlinearity=kReLU)");
  s.str("");
  nn::LSTMCell(2, 5).get()->pretty_print(s);
  EXPECT_EQ(s.str(), "LSTMCell(2, 5)");
}

TEST(RnnCell, RejectsBadInput) {
  nn::LSTMCell lstm(3, 4);
  EXPECT_THROWS_WITH(lstm(zeros({2, 5})), "LSTMCell: input has inconsistent input_size: got 5 expected 3");
  EXPECT_THROWS_WITH(lstm(zeros({1, 2, 3})), "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor");
  EXPECT_THROWS_WITH(lstm->forward(zeros({2, 3}), std::make_tuple(zeros({3, 4}), zeros({3, 4}))),
                     "LSTMCell: Input batch size 2 doesn't match hx[0] batch size 3");
  nn::GRUCell gru(3, 4);
  EXPECT_THROWS_WITH(gru(zeros({2, 3}), zeros({2, 5})), "GRUCell: hx has inconsistent hidden_size: got 5, expected 4");
  EXPECT_THROWS_WITH(gru(zeros({3}), zeros({1, 4})), "GRUCell: hx must be 1-D like the input [3], got [1, 4]");
}

// ---- utils::rnn ----

TEST(RnnUtils, MatchesPyTorch) {
  const json cases = test::load_fixture("nn/rnn_utils.json");
  for (const auto& [name, c] : cases.items()) {
    SCOPED_TRACE(name);
    std::map<std::string, Tensor> in;
    for (const auto& [key, t] : c.at("inputs").items()) {
      in[key] = test::tensor_from_json(t);
      if (in[key].is_floating_point()) in[key].requires_grad_();
    }
    std::map<std::string, Tensor> out;
    auto unpack = [&](const rnn::PackedSequence& p, bool batch_first, double padding_value,
                      std::optional<int64_t> total_length) {
      out["data"] = p.data();
      out["batch_sizes"] = p.batch_sizes();
      out["sorted_indices"] = p.sorted_indices();
      out["unsorted_indices"] = p.unsorted_indices();
      std::tie(out["padded"], out["lengths"]) = rnn::pad_packed_sequence(p, batch_first, padding_value, total_length);
    };
    if (name == "pack_padded_sorted") {
      unpack(rnn::pack_padded_sequence(in["x"], in["lengths"]), false, 0.0, std::nullopt);
    } else if (name == "pack_padded_unsorted_batch_first") {
      unpack(rnn::pack_padded_sequence(in["x"], in["lengths"], true, false), true, -1.0, 5);
    } else if (name == "pad_sequence") {
      out["padded"] = rnn::pad_sequence({in["a"], in["b"], in["c"]}, false, 0.5);
    } else if (name == "pad_sequence_batch_first") {
      out["padded"] = rnn::pad_sequence({in["a"], in["b"], in["c"]}, true);
    } else {
      ASSERT_EQ(name, "pack_sequence_unsorted");
      unpack(rnn::pack_sequence({in["a"], in["b"], in["c"]}, false), false, 0.0, std::nullopt);
    }
    for (const auto& [key, expected] : c.at("results").items()) {
      EXPECT_TENSOR_CLOSE(out.at(key), test::tensor_from_json(expected), 0.0, 0.0) << key;
    }
    for (const auto& [key, t] : out) {
      if (!c.at("results").contains(key)) EXPECT_FALSE(t.defined()) << key << " should be undefined";
    }
    (out["padded"] * loss_weight(out["padded"], 0.41)).sum().backward();
    for (const auto& [key, grad] : c.at("input_grads").items()) {
      EXPECT_TENSOR_CLOSE(in[key].grad(), test::tensor_from_json(grad), 1e-6, 1e-7) << "grad of " << key;
    }
  }
}

TEST(RnnUtils, RejectsBadInput) {
  Tensor x = zeros({4, 3, 2});
  auto lengths = [](std::vector<int64_t> v) { return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kInt64)); };
  EXPECT_THROWS_WITH(rnn::pack_padded_sequence(x, lengths({2, 4, 1})),
                     "pack_padded_sequence: `lengths` array must be sorted in decreasing order when `enforce_sorted` "
                     "is True (got 2, 4, 1)");
  EXPECT_THROWS_WITH(rnn::pack_padded_sequence(x, lengths({4, 2, 0})),
                     "Length of all samples has to be greater than 0");
  EXPECT_THROWS_WITH(rnn::pack_padded_sequence(x, lengths({5, 2, 1})),
                     "pack_padded_sequence: a length of 5 exceeds the padded sequence length 4 of input [4, 3, 2]");
  EXPECT_THROWS_WITH(rnn::pack_padded_sequence(x, lengths({4, 2})),
                     "pack_padded_sequence: expected 3 lengths (one per sequence of input [4, 3, 2])");
  auto packed = rnn::pack_padded_sequence(x, lengths({4, 2, 1}));
  EXPECT_THROWS_WITH(rnn::pad_packed_sequence(packed, false, 0.0, 3),
                     "Expected total_length to be at least the length of the longest sequence in input, but got "
                     "total_length=3 and max sequence length being 4");
  nn::GRU gru(3, 4);
  EXPECT_THROWS_WITH(gru->forward_with_packed_input(packed),
                     "GRU: input.size(-1) must be equal to input_size. Expected 3, got 2");
  EXPECT_THROWS_WITH(rnn::pad_sequence({zeros({2, 3}), zeros({1, 2})}), "pad_sequence: the sequences' trailing sizes");
}

TEST(Rnn, RejectsBadOptions) {
  EXPECT_THROWS_WITH(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)),
                     "LSTM: proj_size has to be smaller than hidden_size, got proj_size=4 and hidden_size=4");
  EXPECT_THROWS_WITH(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(-1)), "LSTM: proj_size should be a positive integer");
  EXPECT_THROWS_WITH(nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)),
                     "GRU: dropout should be a number in range [0, 1] representing the probability of an element "
                     "being zeroed, got 1.5");
  EXPECT_THROWS_WITH(nn::RNN(nn::RNNOptions(3, 4).dropout(-0.1)), "RNN: dropout should be a number in range [0, 1]");
  EXPECT_THROWS_WITH(nn::LSTM(nn::LSTMOptions(3, 0)), "LSTM: input_size and hidden_size must be positive, got 3 and 0");
  EXPECT_THROWS_WITH(nn::GRU(nn::GRUOptions(3, 4).num_layers(0)), "GRU: num_layers must be positive, got 0");
}

TEST(Rnn, RejectsBadInput) {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  Tensor x = zeros({5, 2, 3});
  EXPECT_THROWS_WITH(lstm(zeros({5, 2, 4})),
                     "LSTM: input.size(-1) must be equal to input_size. Expected 3, got 4 (input [5, 2, 4])");
  EXPECT_THROWS_WITH(lstm(zeros({1, 5, 2, 3})), "LSTM: Expected input to be 2-D or 3-D but received 4-D tensor");
  EXPECT_THROWS_WITH(lstm->forward(x, std::make_tuple(zeros({2, 3, 4}), zeros({2, 2, 4}))),
                     "LSTM: Expected hidden[0] size [2, 2, 4], got [2, 3, 4]");
  EXPECT_THROWS_WITH(lstm->forward(x, std::make_tuple(zeros({2, 2, 4}), zeros({1, 2, 4}))),
                     "LSTM: Expected hidden[1] size [2, 2, 4], got [1, 2, 4]");
  EXPECT_THROWS_WITH(lstm->forward(zeros({5, 3}), std::make_tuple(zeros({2, 1, 4}), zeros({2, 1, 4}))),
                     "LSTM: For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors");
  EXPECT_THROWS_WITH(lstm->forward(x, std::make_tuple(zeros({2, 4}), zeros({2, 4}))),
                     "LSTM: For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors");
  nn::GRU gru(3, 4);
  EXPECT_THROWS_WITH(gru(x, zeros({1, 3, 4})), "GRU: Expected hidden size [1, 2, 4], got [1, 3, 4]");
  EXPECT_THROWS_WITH(gru(x, zeros({1, 2, 4}, dtype(kFloat64))), "GRU: the initial state's dtype");
}

}  // namespace
}  // namespace ember
