// nn::LSTM, nn::GRU, nn::RNN: parameters, checks, and the recurrence composed from tensor ops.
//
// Every sequence is run as packed rows (nn/rnn_utils.h): a padded (T, B, I) input is T steps of B
// rows. Per layer and direction, the input projection of all steps is one matmul (x W_ih^T + b_ih);
// each step then adds h W_hh^T + b_hh and applies the gates (an LSTM without projection: one op,
// autograd/rnn.h, a fused kernel on the CPU). A step with fewer rows than the one
// before (a sequence ended) sets the finished rows' states aside; the backward direction starts
// from the shortest batch and takes in rows of h0 as sequences begin.
#include "nn/rnn.h"

#include <cmath>
#include <ostream>

#include "autograd/rnn.h"
#include "nn/functional.h"

namespace ember::nn::detail {

std::pair<Tensor, Tensor> recurrent_step(const RNNOptionsBase::rnn_options_base_mode_t& mode, const RNNLayerWeights& w,
                                         const Tensor& xw, const Tensor& h0, const Tensor& c0) {
  Tensor hw = functional::linear(h0, w.w_hh, w.b_hh);  // (b, G*H)
  if (std::holds_alternative<enumtype::kLSTM>(mode)) {
    tensor_list gates = (xw + hw).chunk(4, 1);  // i, f, g, o
    Tensor c = gates[1].sigmoid() * c0 + gates[0].sigmoid() * gates[2].tanh();
    Tensor h = gates[3].sigmoid() * c.tanh();
    if (w.w_hr.defined()) h = h.mm(w.w_hr.t());
    return {h, c};
  }
  if (std::holds_alternative<enumtype::kGRU>(mode)) {
    tensor_list xg = xw.chunk(3, 1), hg = hw.chunk(3, 1);  // r, z, n
    Tensor r = (xg[0] + hg[0]).sigmoid();
    Tensor z = (xg[1] + hg[1]).sigmoid();
    Tensor n = (xg[2] + r * hg[2]).tanh();
    return {(h0 - n) * z + n, Tensor()};  // (1 - z) * n + z * h
  }
  Tensor pre = xw + hw;
  return {std::holds_alternative<enumtype::kRNN_RELU>(mode) ? pre.relu() : pre.tanh(), Tensor()};
}

namespace {

int64_t gate_count(const RNNOptionsBase::rnn_options_base_mode_t& mode) {
  if (std::holds_alternative<enumtype::kLSTM>(mode)) return 4;
  if (std::holds_alternative<enumtype::kGRU>(mode)) return 3;
  return 1;
}

// The recurrent state of one direction: h (b, H_out) and, for the LSTM, c (b, H).
struct State {
  Tensor h, c;
  State narrow(int64_t start, int64_t length) const {
    return {h.narrow(0, start, length), c.defined() ? c.narrow(0, start, length) : Tensor()};
  }
};

State cat_states(const std::vector<State>& parts) {
  tensor_list hs, cs;
  for (const State& s : parts) {
    hs.push_back(s.h);
    if (s.c.defined()) cs.push_back(s.c);
  }
  return {hs.size() == 1 ? hs[0] : cat(hs, 0), cs.empty() ? Tensor() : (cs.size() == 1 ? cs[0] : cat(cs, 0))};
}

using Mode = RNNOptionsBase::rnn_options_base_mode_t;

// recurrent_step on a State.
State step(const Mode& mode, const RNNLayerWeights& w, const Tensor& xw, const State& s) {
  auto [h, c] = recurrent_step(mode, w, xw, s.h, s.c);
  return {h, c};
}

// One direction of one layer over packed rows. xw (N, G*H); s0 holds batch_sizes[0] rows.
// Returns the outputs (N, H_out) and the final state of every sequence (B rows).
std::pair<Tensor, State> run_direction(const Mode& mode, const RNNLayerWeights& w, const Tensor& xw,
                                       const std::vector<int64_t>& batch_sizes, const State& s0, bool reverse) {
  const int64_t T = static_cast<int64_t>(batch_sizes.size());
  // One split (one backward node writing one buffer), not a narrow per step (a zeroed (N, G*H) each).
  const tensor_list xw_steps = xw.split_with_sizes(batch_sizes, 0);
  tensor_list outputs(T);
  if (!reverse) {
    std::vector<State> finished;  // rows set aside as sequences end, last rows first
    State s = s0;
    for (int64_t t = 0; t < T; ++t) {
      const int64_t b = batch_sizes[t];
      const int64_t rows = s.h.size(0);
      if (b < rows) {
        finished.push_back(s.narrow(b, rows - b));
        s = s.narrow(0, b);
      }
      s = step(mode, w, xw_steps[t], s);
      outputs[t] = s.h;
    }
    finished.push_back(s);
    std::vector<State> in_order(finished.rbegin(), finished.rend());
    return {cat(outputs, 0), cat_states(in_order)};
  }
  State s = s0.narrow(0, batch_sizes[T - 1]);
  for (int64_t t = T - 1; t >= 0; --t) {
    const int64_t b = batch_sizes[t];
    const int64_t rows = s.h.size(0);
    if (b > rows) s = cat_states({s, s0.narrow(rows, b - rows)});  // sequences that start here
    s = step(mode, w, xw_steps[t], s);
    outputs[t] = s.h;
  }
  return {cat(outputs, 0), s};
}

// An LSTM direction without projection: one op (autograd/rnn.h), the fused kernel where the
// backend has one, with run_direction as its composed form.
std::pair<Tensor, State> run_lstm_direction(const RNNLayerWeights& w, const Tensor& xw,
                                            const std::vector<int64_t>& batch_sizes, const State& s0, bool reverse) {
  auto composed = [batch_sizes, reverse](const LstmLayerInputs& in) {
    RNNLayerWeights weights;
    weights.w_hh = in.w_hh;
    weights.b_hh = in.b_hh;
    auto [out, last] = run_direction(enumtype::kLSTM{}, weights, in.xw, batch_sizes, State{in.h0, in.c0}, reverse);
    return LstmLayerOutputs{out, last.h, last.c};
  };
  const LstmLayerOutputs y = lstm_layer({xw, w.w_hh, w.b_hh, s0.h, s0.c}, batch_sizes, reverse, composed);
  return {y.output, State{y.h_n, y.c_n}};
}

}  // namespace

RNNImplBase::RNNImplBase(const RNNOptionsBase& options) : options_base(options) {
  const std::string name = kind();
  const int64_t H = options.hidden_size(), P = options.proj_size();
  EMBER_CHECK(options.input_size() > 0 && H > 0, "{}: input_size and hidden_size must be positive, got {} and {}", name,
              options.input_size(), H);
  EMBER_CHECK(options.num_layers() > 0, "{}: num_layers must be positive, got {}", name, options.num_layers());
  EMBER_CHECK(options.dropout() >= 0 && options.dropout() <= 1,
              "{}: dropout should be a number in range [0, 1] representing the probability of an element being "
              "zeroed, got {}",
              name, options.dropout());
  EMBER_CHECK(P >= 0, "{}: proj_size should be a positive integer or zero to disable projections, got {}", name, P);
  EMBER_CHECK(P < H, "{}: proj_size has to be smaller than hidden_size, got proj_size={} and hidden_size={}", name, P,
              H);
  EMBER_CHECK(P == 0 || std::holds_alternative<enumtype::kLSTM>(options.mode()),
              "{}: proj_size is only supported by LSTM", name);
  if (options.dropout() > 0 && options.num_layers() == 1) {
    EMBER_WARN(
        "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers "
        "greater than 1, but got dropout={} and num_layers={}",
        options.dropout(), options.num_layers());
  }
  const int64_t G = gate_count(options.mode());
  const int64_t H_out = output_hidden_size();
  const int64_t D = num_directions();
  for (int64_t layer = 0; layer < options.num_layers(); ++layer) {
    const int64_t layer_input = layer == 0 ? options.input_size() : H_out * D;
    for (int64_t direction = 0; direction < D; ++direction) {
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      RNNLayerWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, empty({G * H, layer_input}));
      w.w_hh = register_parameter("weight_hh" + suffix, empty({G * H, H_out}));
      if (options.bias()) {
        w.b_ih = register_parameter("bias_ih" + suffix, empty({G * H}));
        w.b_hh = register_parameter("bias_hh" + suffix, empty({G * H}));
      }
      if (P > 0) w.w_hr = register_parameter("weight_hr" + suffix, empty({P, H}));
      layers_.push_back(w);
    }
  }
  reset_parameters();
}

std::string RNNImplBase::kind() const {
  if (std::holds_alternative<enumtype::kLSTM>(options_base.mode())) return "LSTM";
  if (std::holds_alternative<enumtype::kGRU>(options_base.mode())) return "GRU";
  return "RNN";
}

void RNNImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::vector<Tensor> RNNImplBase::all_weights() const { return parameters(); }

void RNNImplBase::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << kind() << "(input_size=" << options_base.input_size()
         << ", hidden_size=" << options_base.hidden_size() << ", num_layers=" << options_base.num_layers()
         << ", bias=" << options_base.bias() << ", batch_first=" << options_base.batch_first()
         << ", dropout=" << options_base.dropout() << ", bidirectional=" << options_base.bidirectional();
  if (options_base.proj_size() > 0) stream << ", proj_size=" << options_base.proj_size();
  stream << ")";
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run_packed(const Tensor& data, const std::vector<int64_t>& batch_sizes,
                                                           const Tensor& h0, const Tensor& c0) {
  const Mode& mode = options_base.mode();
  const int64_t L = options_base.num_layers(), D = num_directions();
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(mode);
  tensor_list h_n, c_n;
  Tensor layer_input = data;  // (N, in)
  for (int64_t layer = 0; layer < L; ++layer) {
    tensor_list directions;
    for (int64_t direction = 0; direction < D; ++direction) {
      const int64_t index = layer * D + direction;
      const RNNLayerWeights& w = layers_[index];
      Tensor xw = functional::linear(layer_input, w.w_ih, w.b_ih);  // (N, G*H): every step at once
      State s0{h0.select(0, index), lstm ? c0.select(0, index) : Tensor()};
      auto [out, last] = lstm && !w.w_hr.defined() ? run_lstm_direction(w, xw, batch_sizes, s0, direction == 1)
                                                    : run_direction(mode, w, xw, batch_sizes, s0, direction == 1);
      directions.push_back(out);
      h_n.push_back(last.h);
      if (lstm) c_n.push_back(last.c);
    }
    layer_input = D == 1 ? directions[0] : cat(directions, 1);  // (N, D*H_out)
    if (layer + 1 < L) {
      layer_input = functional::dropout(layer_input, options_base.dropout(), is_training());
    }
  }
  return {layer_input, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
}

std::pair<Tensor, Tensor> RNNImplBase::initial_state(const Tensor& hx, const Tensor& cx, int64_t batch,
                                                     const Tensor& input) const {
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(options_base.mode());
  const int64_t LD = options_base.num_layers() * num_directions();
  const std::vector<int64_t> h_size{LD, batch, output_hidden_size()};
  const std::vector<int64_t> c_size{LD, batch, options_base.hidden_size()};
  if (!hx.defined()) {
    return {zeros(h_size, input.options()), lstm ? zeros(c_size, input.options()) : Tensor()};
  }
  const char* h_label = lstm ? "hidden[0]" : "hidden";
  EMBER_CHECK(hx.sizes() == IntArrayRef(h_size), "{}: Expected {} size {}, got {}", kind(), h_label,
              IntArrayRef(h_size), hx.sizes());
  if (lstm) {
    EMBER_CHECK(cx.sizes() == IntArrayRef(c_size), "{}: Expected hidden[1] size {}, got {}", kind(),
                IntArrayRef(c_size), cx.sizes());
  }
  EMBER_CHECK(hx.dtype() == input.dtype() && (!lstm || cx.dtype() == input.dtype()),
              "{}: the initial state's dtype ({}) differs from the input's ({})", kind(), dtype_name(hx.dtype()),
              dtype_name(input.dtype()));
  return {hx, cx};
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::forward_padded(const Tensor& input, Tensor hx, Tensor cx) {
  const std::string name = kind();
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(options_base.mode());
  EMBER_CHECK(input.defined(), "{}: the input is undefined", name);
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "{}: Expected input to be 2-D or 3-D but received {}-D tensor {}",
              name, input.dim(), input.sizes());
  EMBER_CHECK(input.size(-1) == options_base.input_size(),
              "{}: input.size(-1) must be equal to input_size. Expected {}, got {} (input {})", name,
              options_base.input_size(), input.size(-1), input.sizes());
  const bool batched = input.dim() == 3;
  if (hx.defined()) {
    const int64_t want = batched ? 3 : 2;
    EMBER_CHECK(hx.dim() == want && (!lstm || cx.dim() == want),
                "{}: For {} input, hx{} should also be {}-D but got {}", name,
                batched ? "batched 3-D" : "unbatched 2-D", lstm ? " and cx" : "", want,
                lstm ? fmt::format("({}-D, {}-D) tensors", hx.dim(), cx.dim()) : fmt::format("{}-D tensor", hx.dim()));
    if (!batched) {
      hx = hx.unsqueeze(1);
      if (lstm) cx = cx.unsqueeze(1);
    }
  }
  // (T, B, I), time-major; unbatched input is a batch of one (batch_first does not apply to it).
  Tensor x = !batched ? input.unsqueeze(1) : (options_base.batch_first() ? input.transpose(0, 1) : input);
  const int64_t T = x.size(0), B = x.size(1), I = x.size(2);
  auto [h0, c0] = initial_state(hx, cx, B, x);
  auto [data, h_n, c_n] = run_packed(x.reshape({T * B, I}), std::vector<int64_t>(T, B), h0, c0);
  Tensor output = data.view({T, B, data.size(1)});
  if (!batched) return {output.squeeze(1), h_n.squeeze(1), lstm ? c_n.squeeze(1) : Tensor()};
  if (options_base.batch_first()) output = output.transpose(0, 1);
  return {output, h_n, c_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> RNNImplBase::forward_packed(
    const utils::rnn::PackedSequence& input, Tensor hx, Tensor cx) {
  const std::string name = kind();
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(options_base.mode());
  const Tensor& data = input.data();
  EMBER_CHECK(data.dim() == 2, "{}: packed input data must be 2-D (rows, input_size), got {}", name, data.sizes());
  EMBER_CHECK(data.size(1) == options_base.input_size(),
              "{}: input.size(-1) must be equal to input_size. Expected {}, got {} (packed data {})", name,
              options_base.input_size(), data.size(1), data.sizes());
  const std::vector<int64_t> batch_sizes = input.batch_sizes().to(kInt64).contiguous().to_vector<int64_t>();
  EMBER_CHECK(!batch_sizes.empty(), "{}: the packed sequence has no steps", name);
  const int64_t B = batch_sizes[0];
  // The initial state is in the caller's batch order; the packed rows are sorted by length.
  const Tensor& sorted = input.sorted_indices();
  if (hx.defined()) {
    EMBER_CHECK(hx.dim() == 3 && (!lstm || cx.dim() == 3), "{}: for packed input, hx{} should be 3-D but got {}", name,
                lstm ? " and cx" : "",
                lstm ? fmt::format("({}-D, {}-D) tensors", hx.dim(), cx.dim()) : fmt::format("{}-D tensor", hx.dim()));
  }
  auto [h0, c0] = initial_state(hx, cx, B, data);
  if (hx.defined() && sorted.defined()) {
    h0 = h0.index_select(1, sorted);
    if (lstm) c0 = c0.index_select(1, sorted);
  }
  auto [out, h_n, c_n] = run_packed(data, batch_sizes, h0, c0);
  const Tensor& unsorted = input.unsorted_indices();
  if (unsorted.defined()) {
    h_n = h_n.index_select(1, unsorted);
    if (lstm) c_n = c_n.index_select(1, unsorted);
  }
  return {utils::rnn::PackedSequence(out, input.batch_sizes(), sorted, unsorted), h_n, c_n};
}

}  // namespace ember::nn::detail

namespace ember::nn {

namespace {
detail::RNNOptionsBase base_options(detail::RNNOptionsBase::rnn_options_base_mode_t mode, int64_t input_size,
                                    int64_t hidden_size, int64_t num_layers, bool bias, bool batch_first,
                                    double dropout, bool bidirectional, int64_t proj_size) {
  return detail::RNNOptionsBase(mode, input_size, hidden_size)
      .num_layers(num_layers)
      .bias(bias)
      .batch_first(batch_first)
      .dropout(dropout)
      .bidirectional(bidirectional)
      .proj_size(proj_size);
}

detail::RNNOptionsBase::rnn_options_base_mode_t rnn_mode(const RNNOptions::nonlinearity_t& nonlinearity) {
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return enumtype::kRNN_RELU{};
  return enumtype::kRNN_TANH{};
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& o)
    : RNNImplBase(base_options(rnn_mode(o.nonlinearity()), o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                               o.batch_first(), o.dropout(), o.bidirectional(), 0)),
      options(o) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [output, h_n, c_n] = forward_padded(input, std::move(hx), Tensor());
  return {output, h_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [output, h_n, c_n] = forward_packed(packed_input, std::move(hx), Tensor());
  return {output, h_n};
}

LSTMImpl::LSTMImpl(const LSTMOptions& o)
    : RNNImplBase(base_options(enumtype::kLSTM{}, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                               o.batch_first(), o.dropout(), o.bidirectional(), o.proj_size())),
      options(o) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor hx, cx;
  if (hx_opt) std::tie(hx, cx) = *hx_opt;
  EMBER_CHECK(hx.defined() == cx.defined(),
              "LSTM: the initial state (h0, c0) must have both tensors defined or neither");
  auto [output, h_n, c_n] = forward_padded(input, hx, cx);
  return {output, {h_n, c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor hx, cx;
  if (hx_opt) std::tie(hx, cx) = *hx_opt;
  EMBER_CHECK(hx.defined() == cx.defined(),
              "LSTM: the initial state (h0, c0) must have both tensors defined or neither");
  auto [output, h_n, c_n] = forward_packed(packed_input, hx, cx);
  return {output, {h_n, c_n}};
}

GRUImpl::GRUImpl(const GRUOptions& o)
    : RNNImplBase(base_options(enumtype::kGRU{}, o.input_size(), o.hidden_size(), o.num_layers(), o.bias(),
                               o.batch_first(), o.dropout(), o.bidirectional(), 0)),
      options(o) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [output, h_n, c_n] = forward_padded(input, std::move(hx), Tensor());
  return {output, h_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [output, h_n, c_n] = forward_packed(packed_input, std::move(hx), Tensor());
  return {output, h_n};
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(RNNImpl)
EMBER_CLONE_WITH_OPTIONS(LSTMImpl)
EMBER_CLONE_WITH_OPTIONS(GRUImpl)

}  // namespace ember::nn
