// The peer of bench_gpt.cpp: the same nanoGPT model and training step written against libtorch,
// so both frameworks can be timed side by side in one run (scripts/bench_cpu.sh). Built only when
// libtorch is installed (-DEMBER_BUILD_BENCH=ON finds it); Ember itself never depends on it.
//
//   torch_gpt --preset baby --steps 30 --threads 2
//
// Prints one line: "torch <preset> ms/step <x> tok/s <x> GFLOP/s <x> peak_rss_mib <x> loss <x>".
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <torch/torch.h>

#include "bench_gpt_common.h"

namespace {

using bench::Preset;

struct CausalSelfAttentionImpl : torch::nn::Module {
  CausalSelfAttentionImpl(const Preset& p) : n_head(p.n_head), n_embd(p.n_embd), dropout(p.dropout) {
    c_attn = register_module("c_attn", torch::nn::Linear(n_embd, 3 * n_embd));
    c_proj = register_module("c_proj", torch::nn::Linear(n_embd, n_embd));
    attn_drop = register_module("attn_drop", torch::nn::Dropout(dropout));
    resid_drop = register_module("resid_drop", torch::nn::Dropout(dropout));
    mask = register_buffer("mask", torch::ones({p.block_size, p.block_size}, torch::kBool).triu(1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    int64_t B = x.size(0), T = x.size(1), C = n_embd, NH = n_head, HS = C / NH;
    auto qkv = c_attn(x).split(C, 2);
    auto q = qkv[0].view({B, T, NH, HS}).transpose(1, 2);
    auto k = qkv[1].view({B, T, NH, HS}).transpose(1, 2);
    auto v = qkv[2].view({B, T, NH, HS}).transpose(1, 2);
    // libtorch 1.13 has no scaled_dot_product_attention: the composed form, as nanoGPT's fallback.
    auto att = q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(HS)));
    att = att.masked_fill(mask.slice(0, 0, T).slice(1, 0, T), -INFINITY);
    att = attn_drop(torch::softmax(att, -1));
    auto y = att.matmul(v).transpose(1, 2).contiguous().view({B, T, C});
    return resid_drop(c_proj(y));
  }
  int64_t n_head, n_embd;
  double dropout;
  torch::nn::Linear c_attn{nullptr}, c_proj{nullptr};
  torch::nn::Dropout attn_drop{nullptr}, resid_drop{nullptr};
  torch::Tensor mask;
};
TORCH_MODULE(CausalSelfAttention);

struct BlockImpl : torch::nn::Module {
  BlockImpl(const Preset& p) {
    ln_1 = register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({p.n_embd})));
    attn = register_module("attn", CausalSelfAttention(p));
    ln_2 = register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({p.n_embd})));
    c_fc = register_module("c_fc", torch::nn::Linear(p.n_embd, 4 * p.n_embd));
    c_proj = register_module("c_proj", torch::nn::Linear(4 * p.n_embd, p.n_embd));
    drop = register_module("drop", torch::nn::Dropout(p.dropout));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = x + attn(ln_1(x));
    return x + drop(c_proj(torch::gelu(c_fc(ln_2(x)))));
  }
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  torch::nn::Linear c_fc{nullptr}, c_proj{nullptr};
  torch::nn::Dropout drop{nullptr};
};
TORCH_MODULE(Block);

struct GPTImpl : torch::nn::Module {
  GPTImpl(const Preset& p) {
    wte = register_module("wte", torch::nn::Embedding(p.vocab_size, p.n_embd));
    wpe = register_module("wpe", torch::nn::Embedding(p.block_size, p.n_embd));
    drop = register_module("drop", torch::nn::Dropout(p.dropout));
    h = register_module("h", torch::nn::ModuleList());
    for (int64_t i = 0; i < p.n_layer; ++i) h->push_back(Block(p));
    ln_f = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({p.n_embd})));
    lm_head =
        register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(p.n_embd, p.vocab_size).bias(false)));
    // Weight tying, as Ember's GPT and nanoGPT: the embedding reads lm_head's matrix. (The
    // embedding's own registered weight is left unused; it gets no gradient, so AdamW skips it.)
    wte->weight = lm_head->weight;
  }
  torch::Tensor forward(const torch::Tensor& idx, const torch::Tensor& targets) {
    auto pos = torch::arange(idx.size(1), torch::kLong);
    auto x = drop(wte(idx) + wpe(pos));
    for (auto& block : *h) x = block->as<BlockImpl>()->forward(x);
    auto logits = lm_head(ln_f(x));
    return torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), targets.view({-1}));
  }
  torch::nn::Embedding wte{nullptr}, wpe{nullptr};
  torch::nn::Dropout drop{nullptr};
  torch::nn::ModuleList h{nullptr};
  torch::nn::LayerNorm ln_f{nullptr};
  torch::nn::Linear lm_head{nullptr};
};
TORCH_MODULE(GPT);

}  // namespace

int main(int argc, char** argv) {
  bench::Args args = bench::parse_args(argc, argv);
  if (args.dtype != "float32") {  // libtorch's autocast is not wired into this peer
    std::fprintf(stderr, "torch_gpt: only --dtype float32 is measured\n");
    return 2;
  }
  torch::set_num_threads(args.threads);
  torch::manual_seed(1337);
  const Preset& p = args.preset;
  GPT model(p);
  model->train();
  // nanoGPT's AdamW: decay on matrices and embeddings, none on biases and LayerNorm weights.
  std::vector<torch::Tensor> decay, no_decay;
  for (auto& param : model->parameters()) (param.dim() >= 2 ? decay : no_decay).push_back(param);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(1e-3).betas({0.9, 0.99}).weight_decay(0.1)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(1e-3).betas({0.9, 0.99}).weight_decay(0.0)));
  torch::optim::AdamW opt(groups);

  auto batch = [&] {
    auto x = torch::randint(p.vocab_size, {p.batch_size, p.block_size}, torch::kLong);
    auto y = torch::randint(p.vocab_size, {p.batch_size, p.block_size}, torch::kLong);
    return std::make_pair(x, y);
  };
  double loss_value = 0;
  auto step = [&] {
    auto [x, y] = batch();
    auto loss = model->forward(x, y);
    opt.zero_grad();  // 1.13 sets grads to zero (no set_to_none argument yet)
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
    loss_value = loss.item<double>();
  };
  bench::run_and_report("torch", args, step, [&] { return loss_value; });
}
