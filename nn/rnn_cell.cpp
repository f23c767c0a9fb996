// nn::RNNCell, nn::LSTMCell, nn::GRUCell: parameters, checks, and the step of nn/rnn.cpp.
#include "nn/rnn_cell.h"

#include <cmath>
#include <ostream>

#include "autograd/autocast.h"
#include "nn/functional.h"

namespace ember::nn::detail {

RNNCellImplBase::RNNCellImplBase(const RNNCellOptionsBase& options, RNNOptionsBase::rnn_options_base_mode_t mode)
    : options_base(options), mode_(mode) {
  const int64_t I = options.input_size(), H = options.hidden_size(), G = options.num_chunks();
  EMBER_CHECK(I > 0 && H > 0, "{}: input_size and hidden_size must be positive, got {} and {}", kind(), I, H);
  weight_ih = register_parameter("weight_ih", empty({G * H, I}));
  weight_hh = register_parameter("weight_hh", empty({G * H, H}));
  bias_ih = register_parameter("bias_ih", options.bias() ? empty({G * H}) : Tensor(), options.bias());
  bias_hh = register_parameter("bias_hh", options.bias() ? empty({G * H}) : Tensor(), options.bias());
  reset_parameters();
}

std::string RNNCellImplBase::kind() const {
  if (std::holds_alternative<enumtype::kLSTM>(mode_)) return "LSTMCell";
  if (std::holds_alternative<enumtype::kGRU>(mode_)) return "GRUCell";
  return "RNNCell";
}

void RNNCellImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

void RNNCellImplBase::pretty_print(std::ostream& stream) const {
  stream << kind() << "(" << options_base.input_size() << ", " << options_base.hidden_size();
  if (!options_base.bias()) stream << ", bias=false";
  if (std::holds_alternative<enumtype::kRNN_RELU>(mode_)) stream << ", nonlinearity=kReLU";
  stream << ")";
}

void RNNCellImplBase::check_hidden(const Tensor& input, const Tensor& hx, const char* label) const {
  EMBER_CHECK(hx.dim() == input.dim(), "{}: {} must be {}-D like the input {}, got {}", kind(), label, input.dim(),
              input.sizes(), hx.sizes());
  EMBER_CHECK(input.dim() == 1 || input.size(0) == hx.size(0),
              "{}: Input batch size {} doesn't match {} batch size {} (input {}, {} {})", kind(), input.size(0), label,
              hx.size(0), input.sizes(), label, hx.sizes());
  EMBER_CHECK(hx.size(-1) == options_base.hidden_size(), "{}: {} has inconsistent hidden_size: got {}, expected {}",
              kind(), label, hx.size(-1), options_base.hidden_size());
}

namespace {
autograd::AutocastOp cell_autocast_op(const RNNOptionsBase::rnn_options_base_mode_t& mode) {
  if (std::holds_alternative<enumtype::kLSTM>(mode)) return autograd::AutocastOp::lstm_cell;
  if (std::holds_alternative<enumtype::kGRU>(mode)) return autograd::AutocastOp::gru_cell;
  if (std::holds_alternative<enumtype::kRNN_RELU>(mode)) return autograd::AutocastOp::rnn_relu_cell;
  return autograd::AutocastOp::rnn_tanh_cell;
}
}  // namespace

std::pair<Tensor, Tensor> RNNCellImplBase::step(const Tensor& input, Tensor hx, Tensor cx) {
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(mode_);
  EMBER_CHECK(input.defined(), "{}: the input is undefined", kind());
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "{}: Expected input to be 1-D or 2-D but received {}-D tensor {}",
              kind(), input.dim(), input.sizes());
  EMBER_CHECK(input.size(-1) == options_base.input_size(),
              "{}: input has inconsistent input_size: got {} expected {} (input {})", kind(), input.size(-1),
              options_base.input_size(), input.sizes());
  if (hx.defined()) {
    check_hidden(input, hx, lstm ? "hx[0]" : "hx");
    if (lstm) check_hidden(input, cx, "hx[1]");
  }
  const bool batched = input.dim() == 2;
  Tensor x = batched ? input : input.unsqueeze(0);  // (B, I)
  if (!hx.defined()) {
    hx = zeros({x.size(0), options_base.hidden_size()}, x.options());
    if (lstm) cx = zeros({x.size(0), options_base.hidden_size()}, x.options());
  } else if (!batched) {
    hx = hx.unsqueeze(0);
    if (lstm) cx = cx.unsqueeze(0);
  }
  // Under CUDA autocast the step runs in the autocast dtype, state and weights too, as PyTorch's cells.
  const autograd::AutocastCall cast{cell_autocast_op(mode_), {x, hx, cx, weight_ih, weight_hh, bias_ih, bias_hh}};
  auto arg = [&](size_t i, const Tensor& t) -> const Tensor& { return cast ? cast[i] : t; };
  const RNNLayerWeights w{arg(3, weight_ih), arg(4, weight_hh), arg(5, bias_ih), arg(6, bias_hh), Tensor()};
  auto [h, c] = recurrent_step(mode_, w, functional::linear(arg(0, x), w.w_ih, w.b_ih), arg(1, hx), arg(2, cx));
  if (batched) return {h, c};
  return {h.squeeze(0), lstm ? c.squeeze(0) : Tensor()};
}

}  // namespace ember::nn::detail

namespace ember::nn {

namespace {
detail::RNNOptionsBase::rnn_options_base_mode_t cell_mode(const RNNCellOptions::nonlinearity_t& nonlinearity) {
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return enumtype::kRNN_RELU{};
  return enumtype::kRNN_TANH{};
}
}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& o)
    : RNNCellImplBase(detail::RNNCellOptionsBase(o.input_size(), o.hidden_size(), o.bias(), 1),
                      cell_mode(o.nonlinearity())),
      options(o) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) { return step(input, std::move(hx), Tensor()).first; }

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& o)
    : RNNCellImplBase(detail::RNNCellOptionsBase(o.input_size(), o.hidden_size(), o.bias(), 4), enumtype::kLSTM{}),
      options(o) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Tensor hx, cx;
  if (hx_opt) std::tie(hx, cx) = *hx_opt;
  EMBER_CHECK(hx.defined() == cx.defined(), "LSTMCell: the state (h, c) must have both tensors defined or neither");
  auto [h, c] = step(input, hx, cx);
  return {h, c};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& o)
    : RNNCellImplBase(detail::RNNCellOptionsBase(o.input_size(), o.hidden_size(), o.bias(), 3), enumtype::kGRU{}),
      options(o) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) { return step(input, std::move(hx), Tensor()).first; }

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(RNNCellImpl)
EMBER_CLONE_WITH_OPTIONS(LSTMCellImpl)
EMBER_CLONE_WITH_OPTIONS(GRUCellImpl)

}  // namespace ember::nn
