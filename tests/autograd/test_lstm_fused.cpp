// The fused LSTM layer (core/cpu/rnn.cpp through autograd/rnn.h) against the recurrence composed
// from tensor ops, which test_rnn.cpp's PyTorch fixtures check too: outputs, final states and every
// gradient equal with both kernels, with none, and with only the forward one; gradients of
// gradients (create_graph) equal the composed ones; float64 gradcheck through the kernels.
#include "fixture_cases.h"
#include "forwarding_backend.h"

namespace ember {
namespace {

namespace rnn = nn::utils::rnn;

// The CPU backend with its LSTM kernels present, absent, or forward only; counts the ones it ran.
class LstmKernels final : public test::ForwardingBackend {
 public:
  enum class Has { kBoth, kForwardOnly, kNone };
  LstmKernels(Backend& cpu, Has has) : ForwardingBackend(cpu), has_(has) {}
  const char* name() const override { return "cpu (LSTM kernels varied)"; }
  bool lstm_layer(const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& gates, const Tensor& cells,
                  const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                  IntArrayRef batch_sizes, bool reverse) override {
    if (has_ == Has::kNone) return false;
    ++forwards;
    return inner_.lstm_layer(out, h_n, c_n, gates, cells, xw, h0, c0, w_hh, b_hh, batch_sizes, reverse);
  }
  bool lstm_layer_backward(const Tensor& dxw, const Tensor& dw_hh, const Tensor& db_hh, const Tensor& dh0,
                           const Tensor& dc0, const Tensor& dout, const Tensor& dh_n, const Tensor& dc_n,
                           const Tensor& out, const Tensor& gates, const Tensor& cells, const Tensor& h0,
                           const Tensor& c0, const Tensor& w_hh, IntArrayRef batch_sizes, bool reverse) override {
    if (has_ != Has::kBoth) return false;
    ++backwards;
    return inner_.lstm_layer_backward(dxw, dw_hh, db_hh, dh0, dc0, dout, dh_n, dc_n, out, gates, cells, h0, c0, w_hh,
                                      batch_sizes, reverse);
  }
  int forwards = 0, backwards = 0;

 private:
  Has has_;
};

// One backend of each kind for the whole run, its counters zeroed: the tensors made through a
// backend free themselves through it, so it must outlive them.
LstmKernels& kernels(LstmKernels::Has has) {
  static LstmKernels both(backend_for(Device(kCPU)), LstmKernels::Has::kBoth),
      forward_only(backend_for(Device(kCPU)), LstmKernels::Has::kForwardOnly),
      none(backend_for(Device(kCPU)), LstmKernels::Has::kNone);
  LstmKernels& be = has == LstmKernels::Has::kBoth ? both : has == LstmKernels::Has::kNone ? none : forward_only;
  be.forwards = be.backwards = 0;
  return be;
}

struct Case {
  std::string name;
  nn::LSTMOptions options;
  ScalarType dtype;
  bool packed = false;      // sequences of lengths 3, 5, 2, unsorted
  bool with_state = false;  // (h0, c0) given
  bool only_h_n = false;    // the loss reads h_n alone: no gradient reaches the outputs or c_n
};

// output, h_n, c_n, then the gradients of x, h0, c0 (when given) and every parameter.
tensor_list run_case(const Case& c, LstmKernels::Has has, int* forwards = nullptr, int* backwards = nullptr) {
  LstmKernels& be = kernels(has);
  ScopedBackendOverride use(kCPU, be);
  manual_seed(11);
  nn::LSTM lstm(c.options);
  lstm->to(c.dtype);
  const int64_t I = c.options.input_size(), H = c.options.hidden_size();
  const int64_t LD = c.options.num_layers() * (c.options.bidirectional() ? 2 : 1);
  // (T, B, I) = (5, 3, I), or (B, T, I) with batch_first
  const std::vector<int64_t> x_size = c.options.batch_first() ? std::vector<int64_t>{3, 5, I} : std::vector<int64_t>{5, 3, I};
  Tensor x = test::wave64(x_size, 0.3).to(c.dtype).requires_grad_();
  Tensor h0 = test::wave64({LD, 3, H}, 0.7, 0.5).to(c.dtype).requires_grad_();
  Tensor c0 = test::wave64({LD, 3, H}, 1.1, 0.8).to(c.dtype).requires_grad_();
  std::optional<std::tuple<Tensor, Tensor>> state;
  if (c.with_state) state = std::make_tuple(h0, c0);
  Tensor out, h_n, c_n;
  if (c.packed) {
    Tensor lengths = from_vector(std::vector<int64_t>{3, 5, 2}, {3}, dtype(kInt64));
    auto [y, hc] = lstm->forward_with_packed_input(rnn::pack_padded_sequence(x, lengths, false, false), state);
    out = std::get<0>(rnn::pad_packed_sequence(y, false));
    std::tie(h_n, c_n) = hc;
  } else {
    auto [y, hc] = lstm->forward(x, state);
    out = y;
    std::tie(h_n, c_n) = hc;
  }
  Tensor loss = (h_n * test::wave64(h_n.sizes(), 0.9).to(c.dtype)).sum();
  if (!c.only_h_n)
    loss = loss + (out * test::wave64(out.sizes(), 0.4).to(c.dtype)).sum() +
           (c_n * test::wave64(c_n.sizes(), 1.3).to(c.dtype)).sum();
  loss.backward();
  tensor_list result{out.detach(), h_n.detach(), c_n.detach(), x.grad()};
  if (c.with_state) {
    result.push_back(h0.grad());
    result.push_back(c0.grad());
  }
  for (const Tensor& p : lstm->parameters()) result.push_back(p.grad());
  if (forwards) *forwards = be.forwards;
  if (backwards) *backwards = be.backwards;
  return result;
}

void expect_all_close(const tensor_list& actual, const tensor_list& expected, double tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_TENSOR_CLOSE(actual[i], expected[i], tol, tol) << "tensor " << i;
}

std::vector<Case> cases() {
  using O = nn::LSTMOptions;
  return {
      {"one_layer", O(4, 8), kFloat32},
      {"two_layers_bidirectional_f64", O(4, 8).num_layers(2).bidirectional(true), kFloat64, false, true},
      {"packed_bidirectional", O(4, 8).bidirectional(true), kFloat32, true, true},
      {"packed_two_layers_f64", O(3, 5).num_layers(2), kFloat64, true},
      {"batch_first_no_bias_f64", O(4, 6).batch_first(true).bias(false), kFloat64, false, true},
      {"only_h_n_flows_f64", O(4, 8).bidirectional(true), kFloat64, true, true, true},
      // 150 units: enough work per step for the CPU to split the units between its threads, in
      // blocks of whole 16-unit groups, the last block short.
      {"wide_f64", O(6, 150).num_layers(2), kFloat64, true, true},
      {"wide", O(6, 150), kFloat32, true, true},  // the float path: register-tiled step products, threads
  };
}

TEST(LstmFused, EqualsTheComposedFormWithEitherKernelMissing) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const double tol = c.dtype == kFloat64 ? 1e-12 : 2e-6;
    int forwards = 0, backwards = 0;
    const tensor_list fused = run_case(c, LstmKernels::Has::kBoth, &forwards, &backwards);
    const int directions = c.options.num_layers() * (c.options.bidirectional() ? 2 : 1);
    EXPECT_EQ(forwards, directions);  // nn::LSTM took the kernel for every layer and direction
    EXPECT_EQ(backwards, directions);
    expect_all_close(fused, run_case(c, LstmKernels::Has::kNone), tol);
    expect_all_close(run_case(c, LstmKernels::Has::kForwardOnly), fused, tol);
  }
}

TEST(LstmFused, ProjectionAndOtherDtypesCompose) {
  int forwards = 0;
  run_case({"proj", nn::LSTMOptions(4, 8).proj_size(3), kFloat32}, LstmKernels::Has::kBoth, &forwards);
  EXPECT_EQ(forwards, 0);
  LstmKernels& be = kernels(LstmKernels::Has::kBoth);
  ScopedBackendOverride use(kCPU, be);
  nn::LSTM lstm(nn::LSTMOptions(4, 8));
  lstm->to(kBFloat16);
  auto [y, hc] = lstm->forward(test::wave64({5, 3, 4}).to(kBFloat16));
  EXPECT_EQ(y.dtype(), kBFloat16);
  EXPECT_EQ(be.forwards, 0);  // the kernels take float32 and float64: bfloat16 composes
}

// The gradient of a gradient (create_graph) goes through the composed recurrence run again, so it
// equals the one the composed form gives from the start.
TEST(LstmFused, GradientOfGradientEqualsTheComposedOne) {
  auto second_order = [](LstmKernels::Has has) {
    ScopedBackendOverride use(kCPU, kernels(has));
    manual_seed(4);
    nn::LSTM lstm(nn::LSTMOptions(3, 5).bidirectional(true));
    lstm->to(kFloat64);
    Tensor x = test::wave64({4, 2, 3}, 0.2).requires_grad_();
    auto [y, hc] = lstm->forward(x);
    Tensor gx = autograd::grad({(y * y).sum() + std::get<1>(hc).sum()}, {x}, {}, std::nullopt, true)[0];
    (gx * gx).sum().backward();
    tensor_list result{gx.detach(), x.grad()};
    for (const Tensor& p : lstm->parameters()) result.push_back(p.grad());
    return result;
  };
  expect_all_close(second_order(LstmKernels::Has::kBoth), second_order(LstmKernels::Has::kNone), 1e-12);
}

TEST(LstmFused, GradcheckFloat64) {
  manual_seed(2);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  lstm->to(kFloat64);
  tensor_list inputs{test::wave64({3, 2, 2}).requires_grad_(), test::wave64({4, 2, 3}, 0.5).requires_grad_(),
                     test::wave64({4, 2, 3}, 0.9, 0.5).requires_grad_()};
  for (const Tensor& p : lstm->parameters()) inputs.push_back(p);
  auto f = [&](const tensor_list& in) {
    auto [out, hc] = lstm->forward(in[0], std::make_tuple(in[1], in[2]));
    return (out.sum() + std::get<0>(hc).mul(0.7).sum() + std::get<1>(hc).mul(0.3).sum()).reshape({1});
  };
  EXPECT_TRUE(autograd::gradcheck(f, inputs));
}

}  // namespace
}  // namespace ember
