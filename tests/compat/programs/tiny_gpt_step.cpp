// A tiny GPT (token + position embeddings, one pre-norm transformer block with causal multi-head
// self-attention and a GELU MLP, a tied language-model head) and three AdamW training steps.
#include <cmath>
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t n_embd, int64_t n_head, int64_t block_size)
      : n_head(n_head),
        ln1(torch::nn::LayerNormOptions({n_embd})),
        qkv(n_embd, 3 * n_embd),
        proj(n_embd, n_embd),
        ln2(torch::nn::LayerNormOptions({n_embd})),
        fc(n_embd, 4 * n_embd),
        fc_out(4 * n_embd, n_embd) {
    register_module("ln1", ln1);
    register_module("qkv", qkv);
    register_module("proj", proj);
    register_module("ln2", ln2);
    register_module("fc", fc);
    register_module("fc_out", fc_out);
    mask = register_buffer("mask", torch::ones({block_size, block_size}).triu(1).to(torch::kBool));
  }

  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), hs = C / n_head;
    auto parts = qkv(ln1(x)).split(C, 2);
    auto heads = [&](const torch::Tensor& t) { return t.view({B, T, n_head, hs}).transpose(1, 2); };
    torch::Tensor q = heads(parts[0]), k = heads(parts[1]), v = heads(parts[2]);
    torch::Tensor att = q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(hs)));
    att = torch::softmax(att.masked_fill(mask.slice(0, 0, T).slice(1, 0, T), -INFINITY), -1);
    torch::Tensor y = att.matmul(v).transpose(1, 2).contiguous().view({B, T, C});
    torch::Tensor h = x + proj(y);
    namespace F = torch::nn::functional;
    return h + fc_out(F::gelu(fc(ln2(h)), F::GELUFuncOptions().approximate("tanh")));
  }

  int64_t n_head;
  torch::nn::LayerNorm ln1;
  torch::nn::Linear qkv, proj;
  torch::nn::LayerNorm ln2;
  torch::nn::Linear fc, fc_out;
  torch::Tensor mask;
};
TORCH_MODULE(Block);

struct TinyGPTImpl : torch::nn::Module {
  TinyGPTImpl(int64_t vocab, int64_t n_embd, int64_t n_head, int64_t block_size)
      : wte(vocab, n_embd),
        wpe(block_size, n_embd),
        block(n_embd, n_head, block_size),
        ln_f(torch::nn::LayerNormOptions({n_embd})) {
    register_module("wte", wte);
    register_module("wpe", wpe);
    register_module("block", block);
    register_module("ln_f", ln_f);
  }
  // idx (B, T) int64 -> logits (B, T, vocab), the head tied to the token embedding.
  torch::Tensor forward(const torch::Tensor& idx) {
    torch::Tensor pos = torch::arange(idx.size(1), torch::kLong);
    torch::Tensor x = wte(idx) + wpe(pos);
    return ln_f(block(x)).matmul(wte->weight.t());
  }
  torch::nn::Embedding wte, wpe;
  Block block;
  torch::nn::LayerNorm ln_f;
};
TORCH_MODULE(TinyGPT);

int main() {
  torch::manual_seed(1337);
  const int64_t vocab = 11, n_embd = 8, n_head = 2, block_size = 6, B = 2;
  TinyGPT model(vocab, n_embd, n_head, block_size);
  for (auto& p : model->parameters()) {
    if (p.dim() == 2) torch::nn::init::normal_(p, 0.0, 0.02);
  }
  torch::Tensor data = torch::randint(0, vocab, {B, block_size + 1});
  torch::Tensor inputs = data.slice(1, 0, block_size);
  torch::Tensor targets = data.slice(1, 1, block_size + 1);
  std::cout << inputs << std::endl;

  torch::Tensor logits = model(inputs);
  std::cout << logits[0][0] << std::endl;
  torch::optim::AdamW optimizer(model->parameters(),
                                torch::optim::AdamWOptions(3e-3).betas({0.9, 0.95}).weight_decay(0.1));
  std::cout << std::setprecision(6);
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model(inputs).view({-1, vocab}), targets.reshape({-1}));
    loss.backward();
    std::cout << "step " << step << " loss " << loss.item<float>() << std::endl;
    optimizer.step();
  }
  std::cout << model->block->qkv->weight.grad().slice(0, 0, 3) << std::endl;
  std::cout << model->ln_f->weight << std::endl;
}
