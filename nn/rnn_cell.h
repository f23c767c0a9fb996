// nn::RNNCell, nn::LSTMCell, nn::GRUCell: one step of a recurrent network, as torch::nn's cells.
//
//   ember::nn::LSTMCell cell(/*input_size=*/8, /*hidden_size=*/16);
//   auto [h, c] = cell(x);                               // x (B, 8) -> h, c (B, 16), from zeros
//   std::tie(h, c) = cell->forward(x2, std::make_tuple(h, c));
//   ember::nn::GRUCell gru(8, 16);
//   ember::Tensor h1 = gru(x.select(0, 0));              // unbatched: (8) -> (16)
//
// Parameters weight_ih (G*H, I), weight_hh (G*H, H), bias_ih and bias_hh (G*H), each ~ U(-1/sqrt(H),
// 1/sqrt(H)) in that order, with the gates of the layers in nn/rnn.h (LSTM i, f, g, o; GRU r, z, n),
// whose step they share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>

#include "nn/rnn.h"

namespace ember::nn {

struct RNNCellOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(nonlinearity_t, nonlinearity) = enumtype::kTanh{};
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

namespace detail {

struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);  // gates: 1 (RNN), 4 (LSTM), 3 (GRU)
};

// The parameters, checks and step the three cells share.
class RNNCellImplBase : public Module {
 public:
  RNNCellImplBase(const RNNCellOptionsBase& options_base, RNNOptionsBase::rnn_options_base_mode_t mode);

  // Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order.
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  RNNCellOptionsBase options_base;
  Tensor weight_ih;  // (G*H, I)
  Tensor weight_hh;  // (G*H, H)
  Tensor bias_ih;    // (G*H), undefined without bias
  Tensor bias_hh;    // (G*H), undefined without bias

 protected:
  // input (B, I) or (I); hx and cx (B, H) or (H) to match, or undefined for zeros -> (h, c) shaped as hx.
  std::pair<Tensor, Tensor> step(const Tensor& input, Tensor hx, Tensor cx);

 private:
  std::string kind() const;
  void check_hidden(const Tensor& input, const Tensor& hx, const char* label) const;
  RNNOptionsBase::rnn_options_base_mode_t mode_;
};

}  // namespace detail

// h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu).
class RNNCellImpl : public detail::RNNCellImplBase {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  // input (B, I) or (I); hx (B, H) or (H), zeros when undefined -> h' shaped as hx.
  Tensor forward(const Tensor& input, Tensor hx = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

// One LSTM step: (h', c') from x and (h, c).
class LSTMCellImpl : public detail::RNNCellImplBase {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  // input (B, I) or (I); hx = (h (B, H), c (B, H)) or 1-D, zeros when absent -> (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

// One GRU step.
class GRUCellImpl : public detail::RNNCellImplBase {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  // As RNNCellImpl::forward.
  Tensor forward(const Tensor& input, Tensor hx = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())})
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
