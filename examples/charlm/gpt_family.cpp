// ember-charlm's family: nanoGPT's character GPT (nn/gpt.h), its settings and three presets.
//
//   tiny  - the tutorials' bigram-plus-attention scale: block 8, n_embd 32, 4 heads (under a minute)
//   baby  - nanoGPT's shakespeare_char CPU config: 4 layers, 4 heads, n_embd 128, block 64, batch 12
//   video - the lecture's final model: 6 layers, 6 heads, n_embd 384, block 256, batch 64 (for a GPU)
#include <fmt/format.h>

#include "family.h"

namespace charlm {

namespace {

Config gpt_preset(const std::string& name) {
  Config c;
  if (name == "tiny") {
    c.n_layer = 1;
    c.n_head = 4;
    c.n_embd = 32;
    c.block_size = 8;
    c.batch_size = 32;
    c.learning_rate = 1e-3;
    c.min_lr = 1e-4;
    c.max_iters = 500;
    c.lr_decay_iters = 500;
    c.warmup_iters = 20;
    c.eval_interval = 100;
    c.eval_iters = 50;
  } else if (name == "video") {
    c.n_layer = 6;
    c.n_head = 6;
    c.n_embd = 384;
    c.block_size = 256;
    c.batch_size = 64;
    c.dropout = 0.2;
    c.learning_rate = 3e-4;
    c.min_lr = 3e-5;
    c.max_iters = 5000;
    c.lr_decay_iters = 5000;
    c.warmup_iters = 100;
    c.eval_interval = 500;
    c.eval_iters = 200;
  }
  return c;  // baby: the defaults are nanoGPT's shakespeare_char CPU run
}

void validate_gpt(const Config& c) {
  EMBER_CHECK(c.n_layer > 0 && c.n_head > 0 && c.n_embd > 0 && c.block_size > 0 && c.batch_size > 0,
              "config: n_layer, n_head, n_embd, block_size and batch_size must be positive (got {}, {}, {}, {}, {})",
              c.n_layer, c.n_head, c.n_embd, c.block_size, c.batch_size);
  EMBER_CHECK(c.n_embd % c.n_head == 0, "config: n_embd ({}) must be divisible by n_head ({})", c.n_embd, c.n_head);
}

MemoryEstimate estimate_gpt_memory(const Config& c, int64_t vocab_size, bool training) {
  const Bytes V = Bytes::of(vocab_size), T = Bytes::of(c.block_size), C = Bytes::of(c.n_embd);
  const Bytes L = Bytes::of(c.n_layer), NH = Bytes::of(c.n_head), B = Bytes::of(training ? c.batch_size : 1);
  const Bytes f32{4};
  // Parameters: token (tied with lm_head) and position embeddings; per block attention 4 C^2 and MLP
  // 8 C^2 weights, 13 C of biases and LayerNorms; the final LayerNorm.
  const Bytes per_block = Bytes{12} * C * C + Bytes{13} * C;
  const Bytes params = V * C + T * C + L * per_block + Bytes{2} * C;
  // Training keeps weights, gradients, both AdamW moments and a copy while saving; sampling keeps the
  // weights and the loaded file.
  MemoryEstimate e;
  e.state_bytes = (Bytes{training ? 20u : 8u} * params).v;
  // Per block the backward keeps about 16 (B, T, C) tensors (LayerNorms, q k v, the MLP's 4C hidden
  // before and after GELU, residuals) and 3 (B, NH, T, T) attention maps (scores, softmax, dropout);
  // then the logits, their softmax and gradient, 3 (B, T, V).
  const Bytes per_block_act = Bytes{16} * C + Bytes{3} * NH * T;
  e.activation_bytes = (f32 * B * T * (L * per_block_act + Bytes{3} * V)).v;
  return e;
}

class GptModel : public CharModel {
 public:
  GptModel(const Config& c, int64_t vocab_size) {
    ember::nn::GPTConfig g;
    g.vocab_size = vocab_size;
    g.block_size = c.block_size;
    g.n_layer = c.n_layer;
    g.n_head = c.n_head;
    g.n_embd = c.n_embd;
    g.dropout = c.dropout;
    g.bias = c.bias;
    model_ = ember::nn::GPT(g);
  }
  std::shared_ptr<ember::nn::Module> module() const override { return model_.ptr(); }
  ember::Tensor loss(const ember::Tensor& x, const ember::Tensor& y) override {
    return std::get<1>(model_->forward(x, y));
  }
  int64_t num_parameters() const override { return model_->num_parameters(); }
  void generate_stream(const ember::Tensor& idx, int64_t count,
                       const std::function<void(const ember::Tensor&)>& on_token, double temperature,
                       std::optional<int64_t> top_k, ember::Generator gen, bool use_cache) override {
    model_->generate_stream(idx, count, on_token, temperature, top_k, gen, use_cache);
  }

 private:
  ember::nn::GPT model_{nullptr};
};

Family make_gpt_family() {
  Family f;
  f.program = "ember-charlm";
  f.description = "a character-level GPT trained on a text file, nanoGPT-style";
  f.checkpoint_format = "ember-charlm/1";
  f.settings = {
      {"n_layer", &Config::n_layer, "transformer blocks"},
      {"n_head", &Config::n_head, "attention heads per block"},
      {"n_embd", &Config::n_embd, "embedding width (divisible by n_head)"},
      {"block_size", &Config::block_size, "context length in characters"},
      {"dropout", &Config::dropout, "dropout probability"},
      {"bias", &Config::bias, "biases in the Linear layers and LayerNorms (true or false)"},
  };
  f.settings.insert(f.settings.end(), training_settings().begin(), training_settings().end());
  f.presets = {"tiny", "baby", "video"};
  f.default_preset = "baby";
  f.preset = gpt_preset;
  f.validate_model = validate_gpt;
  f.estimate_memory = estimate_gpt_memory;
  f.describe_size = [](const Config& c) {
    return fmt::format("n_layer {}, n_head {}, n_embd {}", c.n_layer, c.n_head, c.n_embd);
  };
  f.size_flags = "--n_layer, --n_embd";
  f.use_cache_help = "keep keys and values between characters (false: recompute the whole context each time)";
  f.make_model = [](const Config& c, int64_t vocab_size) { return std::make_unique<GptModel>(c, vocab_size); };
  return f;
}

}  // namespace

const Family& gpt_family() {
  static const Family family = make_gpt_family();
  return family;
}

}  // namespace charlm
