// ember-charlstm's family: the character LSTM (model.h) for the shared trainer, with its settings and
// presets. The training settings (batch, AdamW, schedule, evals, device) are ember-charlm's.
//
//   tiny  - 1 layer of 128, sequences of 32: learns words in about a minute on 2 cores
//   small - 2 layers of 128, sequences of 64, 600 steps: torch_charlstm.py's reference run
//   large - char-rnn's Shakespeare model: 3 layers of 512, dropout 0.5, sequences of 100 (for a GPU)
#include "lstm_family.h"

#include <fmt/format.h>

#include "model.h"

namespace charlstm {

namespace {

using charlm::Bytes;
using charlm::Config;

Config lstm_preset(const std::string& name) {
  Config c;  // small
  c.n_layer = 2;
  c.n_embd = 32;
  c.hidden_size = 128;
  c.block_size = 64;
  c.batch_size = 32;
  c.dropout = 0.0;
  c.learning_rate = 2e-3;
  c.min_lr = 2e-4;
  c.warmup_iters = 30;
  c.max_iters = 600;
  c.lr_decay_iters = 600;
  c.eval_interval = 200;
  c.eval_iters = 20;
  if (name == "tiny") {
    c.n_layer = 1;
    c.block_size = 32;
    c.max_iters = 300;
    c.lr_decay_iters = 300;
    c.eval_interval = 100;
  } else if (name == "large") {
    c.n_layer = 3;
    c.n_embd = 128;
    c.hidden_size = 512;
    c.block_size = 100;
    c.batch_size = 64;
    c.dropout = 0.5;
    c.max_iters = 5000;
    c.lr_decay_iters = 5000;
    c.warmup_iters = 100;
    c.eval_interval = 500;
    c.eval_iters = 200;
  }
  return c;
}

void validate_lstm(const Config& c) {
  EMBER_CHECK(c.n_layer > 0 && c.n_embd > 0 && c.hidden_size > 0 && c.block_size > 0 && c.batch_size > 0,
              "config: n_layer, n_embd, hidden_size, block_size and batch_size must be positive (got {}, {}, {}, {}, "
              "{})",
              c.n_layer, c.n_embd, c.hidden_size, c.block_size, c.batch_size);
}

charlm::MemoryEstimate estimate_lstm_memory(const Config& c, int64_t vocab_size, bool training) {
  const Bytes V = Bytes::of(vocab_size), T = Bytes::of(c.block_size), C = Bytes::of(c.n_embd);
  const Bytes H = Bytes::of(c.hidden_size), L = Bytes::of(c.n_layer), B = Bytes::of(training ? c.batch_size : 1);
  const Bytes f32{4};
  // Parameters: the embedding; per layer weight_ih (4H, in), weight_hh (4H, H) and two 4H biases, the
  // input being C wide for the first layer and H for the others (counted as H, at most C + H more);
  // the output layer.
  const Bytes per_layer = Bytes{4} * H * (H + H) + Bytes{8} * H;
  const Bytes params = V * C + L * per_layer + Bytes{4} * H * C + H * V + V;
  // Training keeps weights, gradients, both AdamW moments and a copy while saving.
  charlm::MemoryEstimate e;
  e.state_bytes = (Bytes{training ? 20u : 8u} * params).v;
  // Per layer and character the backward keeps about 12 H (the gates before and after their
  // nonlinearities, c, tanh(c), h); then the embeddings and the logits, their softmax and gradient.
  e.activation_bytes = (f32 * B * T * (L * Bytes{12} * H + C + Bytes{3} * V)).v;
  return e;
}

class LstmModel : public charlm::CharModel {
 public:
  LstmModel(const Config& c, int64_t vocab_size)
      : model_(vocab_size, CharLSTMOptions{c.n_embd, c.hidden_size, c.n_layer, c.dropout}), block_size_(c.block_size) {}

  std::shared_ptr<ember::nn::Module> module() const override { return model_.ptr(); }

  ember::Tensor loss(const ember::Tensor& x, const ember::Tensor& y) override {
    ember::Tensor logits = std::get<0>(model_->forward(x));  // (B, T, V)
    return ember::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), y.view({-1}));
  }

  int64_t num_parameters() const override {
    int64_t n = 0;
    for (const ember::Tensor& p : model_->parameters()) n += p.numel();
    return n;
  }

  // use_cache: the prompt runs once and then each new character continues from the carried (h, c),
  // so the state holds the whole text so far. Without it every character reruns the model from
  // zeros over the last block_size characters, the context it was trained on.
  void generate_stream(const ember::Tensor& idx, int64_t count,
                       const std::function<void(const ember::Tensor&)>& on_token, double temperature,
                       std::optional<int64_t> top_k, ember::Generator gen, bool use_cache) override {
    ember::NoGradGuard no_grad;
    const int64_t block = block_size_;
    ember::Tensor context = idx.size(1) <= block ? idx : idx.narrow(1, idx.size(1) - block, block);  // (1, <= T)
    std::optional<LSTMState> state;
    ember::Tensor last;  // (1, V): the logits of the next character
    for (int64_t i = 0; i < count; ++i) {
      if (!use_cache || i == 0) {
        auto [logits, next_state] = model_->forward(context);
        last = logits.select(1, logits.size(1) - 1);
        state = next_state;
      }
      ember::Tensor logits = last / temperature;
      if (top_k) logits = ember::nn::keep_top_k(logits, *top_k);
      ember::Tensor next = ember::multinomial(ember::softmax(logits, -1), 1, /*replacement=*/false, gen);  // (1, 1)
      if (on_token) on_token(next);
      if (use_cache) {
        auto [logits_next, next_state] = model_->forward(next, state);
        last = logits_next.select(1, 0);
        state = next_state;
      } else {
        context = ember::cat({context, next}, 1);
        if (context.size(1) > block) context = context.narrow(1, 1, block);
      }
    }
  }

 private:
  CharLSTM model_;
  int64_t block_size_;
};

charlm::Family make_lstm_family() {
  charlm::Family f;
  f.program = "ember-charlstm";
  f.description = "a character-level LSTM language model trained on a text file";
  f.checkpoint_format = "ember-charlstm/1";
  f.settings = {
      {"n_layer", &Config::n_layer, "LSTM layers"},
      {"n_embd", &Config::n_embd, "embedding width (the LSTM's input size)"},
      {"hidden_size", &Config::hidden_size, "LSTM state width"},
      {"block_size", &Config::block_size, "characters per training sequence (backpropagation through time)"},
      {"dropout", &Config::dropout, "dropout between LSTM layers (with n_layer > 1)"},
  };
  f.settings.insert(f.settings.end(), charlm::training_settings().begin(), charlm::training_settings().end());
  f.presets = {"tiny", "small", "large"};
  f.default_preset = "small";
  f.preset = lstm_preset;
  f.validate_model = validate_lstm;
  f.estimate_memory = estimate_lstm_memory;
  f.describe_size = [](const Config& c) {
    return fmt::format("n_layer {}, n_embd {}, hidden_size {}", c.n_layer, c.n_embd, c.hidden_size);
  };
  f.size_flags = "--n_layer, --hidden_size";
  f.use_cache_help = "carry the LSTM state from character to character (false: rerun the last block_size each time)";
  f.make_model = [](const Config& c, int64_t vocab_size) { return std::make_unique<LstmModel>(c, vocab_size); };
  return f;
}

}  // namespace

const charlm::Family& lstm_family() {
  static const charlm::Family family = make_lstm_family();
  return family;
}

}  // namespace charlstm
