// nn::LSTM, nn::GRU and nn::RNN: multi-layer recurrent networks, as torch::nn's, composed from
// Ember's differentiable ops (so they run, and backpropagate, on every device).
//
//   ember::manual_seed(0);
//   ember::nn::LSTM lstm(ember::nn::LSTMOptions(/*input_size=*/8, /*hidden_size=*/16).num_layers(2));
//   auto [out, state] = lstm(x);                        // x (T, B, 8) -> out (T, B, 16)
//   auto [h, c] = state;                                // each (2, B, 16): the last step of every layer
//   auto out2 = lstm->forward(x, std::make_tuple(h, c));  // continue from a state
//
// PyTorch's parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, *_reverse for the
// backward direction, weight_hr_l0 with proj_size), registration order, initial draws (every
// parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in order) and gate order (LSTM i, f, g, o;
// GRU r, z, n), so weights move between the two by name. Inputs are (T, B, input_size), (B, T, ...)
// with batch_first, or unbatched (T, input_size); states are (num_layers * directions, B, H).
// Variable-length batches go through forward_with_packed_input (nn/rnn_utils.h). Single steps are
// the cells of nn/rnn_cell.h. Not here: cuDNN's fused kernels (each step is a few matmuls and
// elementwise ops).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "nn/init.h"
#include "nn/any_module.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/rnn_utils.h"

namespace ember::enumtype {
struct kLSTM {};
struct kGRU {};
struct kRNN_TANH {};
struct kRNN_RELU {};
}  // namespace ember::enumtype

namespace ember {
inline constexpr enumtype::kLSTM kLSTM{};
inline constexpr enumtype::kGRU kGRU{};
inline constexpr enumtype::kRNN_TANH kRNN_TANH{};
inline constexpr enumtype::kRNN_RELU kRNN_RELU{};
}  // namespace ember

namespace ember::nn {

struct RNNOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(nonlinearity_t, nonlinearity) = enumtype::kTanh{};
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;  // input and output (B, T, *) instead of (T, B, *); states unchanged
  EMBER_ARG(double, dropout) = 0.0;      // on the outputs of every layer but the last, while training
  EMBER_ARG(bool, bidirectional) = false;
};

struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;  // > 0: h = W_hr (o * tanh(c)), of size proj_size < hidden_size
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

namespace detail {

// What the three modules share; mode says which recurrence.
struct RNNOptionsBase {
  using rnn_options_base_mode_t =
      std::variant<enumtype::kLSTM, enumtype::kGRU, enumtype::kRNN_TANH, enumtype::kRNN_RELU>;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(rnn_options_base_mode_t, mode);
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

// The parameters of one layer in one direction: w_ih (G*H, in), w_hh (G*H, H_out), b_ih and b_hh (G*H)
// (undefined without bias), w_hr (proj_size, H) (LSTM with proj_size only); G = 4, 3 or 1 gates.
struct RNNLayerWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// One step of the recurrence, for the layers and the cells: xw = x W_ih^T + b_ih (b, G*H) (computed
// for all steps at once by the layers), h0 (b, H_out), c0 (b, H) (LSTM only) -> (h (b, H_out), c (b, H)
// or undefined).
std::pair<Tensor, Tensor> recurrent_step(const RNNOptionsBase::rnn_options_base_mode_t& mode, const RNNLayerWeights& w,
                                         const Tensor& xw, const Tensor& h0, const Tensor& c0);

// The layers, their parameters and the recurrence over a packed batch; LSTM, GRU and RNN add their
// options and forward signatures.
class RNNImplBase : public Module {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_base);

  // Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // A no-op (there is no cuDNN weight buffer to compact); kept so libtorch programs compile.
  void flatten_parameters() {}
  // Every parameter in registration order (layer by layer, forward direction first).
  std::vector<Tensor> all_weights() const;

  RNNOptionsBase options_base;

 protected:
  // The module's name as printed and in errors: "LSTM", "GRU" or "RNN".
  std::string kind() const;
  int64_t num_directions() const { return options_base.bidirectional() ? 2 : 1; }
  int64_t output_hidden_size() const {
    return options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
  }

  // A forward pass over packed rows: data (N, input_size), step t holding batch_sizes[t] rows
  // (non-increasing); h0 (L*D, B, H_out), c0 (L*D, B, H) (LSTM only, else undefined), B = batch_sizes[0].
  // Returns (output (N, D*H_out), h_n (L*D, B, H_out), c_n (L*D, B, H) or undefined).
  std::tuple<Tensor, Tensor, Tensor> run_packed(const Tensor& data, const std::vector<int64_t>& batch_sizes,
                                                const Tensor& h0, const Tensor& c0);

  // Shared by the three forwards: checks the input, makes it packed rows, runs, and restores the
  // layout. input (T, B, I), (B, T, I) with batch_first, or (T, I); hx and cx as the user passed them
  // (undefined for zeros). Returns (output, h_n, c_n) in the caller's layout.
  std::tuple<Tensor, Tensor, Tensor> forward_padded(const Tensor& input, Tensor hx, Tensor cx);
  // Same for a PackedSequence: hx and cx are in the original batch order.
  std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> forward_packed(const utils::rnn::PackedSequence& input,
                                                                        Tensor hx, Tensor cx);

  std::vector<RNNLayerWeights> layers_;  // index layer * D + direction

 private:
  // (h0, c0) checked against (L*D, batch, H_out) and (L*D, batch, H), or zeros like input when hx is undefined.
  std::pair<Tensor, Tensor> initial_state(const Tensor& hx, const Tensor& cx, int64_t batch, const Tensor& input) const;
};

}  // namespace detail

// torch::nn::RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (or relu).
class RNNImpl : public detail::RNNImplBase {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  // input (T, B, I) / (B, T, I) / (T, I); hx (L*D, B, H) or (L*D, H), zeros when undefined
  // -> (output (T, B, D*H), h_n (L*D, B, H)).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  RNNOptions options;
};
EMBER_MODULE(RNN);

// torch::nn::LSTM: i, f, g, o = sigma, sigma, tanh, sigma (W_ih x_t + b_ih + W_hh h_{t-1} + b_hh);
// c_t = f * c_{t-1} + i * g; h_t = o * tanh(c_t) (then W_hr h_t with proj_size).
class LSTMImpl : public detail::RNNImplBase {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  // input (T, B, I) / (B, T, I) / (T, I); hx = (h0 (L*D, B, H_out), c0 (L*D, B, H)) (2-D for unbatched
  // input), zeros when absent -> (output (T, B, D*H_out), (h_n, c_n)); H_out = proj_size or hidden_size.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

// torch::nn::GRU: r, z = sigma(W_i x_t + b_i + W_h h_{t-1} + b_h); n = tanh(W_in x_t + b_in + r * (W_hn h_{t-1}
// + b_hn)); h_t = (1 - z) * n + z * h_{t-1}.
class GRUImpl : public detail::RNNImplBase {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  // As RNNImpl::forward.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  GRUOptions options;
};
EMBER_MODULE(GRU);

}  // namespace ember::nn
