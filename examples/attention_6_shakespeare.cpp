// Attention walkthrough, part 6: attention that learns, on tiny Shakespeare (after Karpathy's
// "Let's build GPT" lecture). A bigram language model (each character predicts the next from a
// lookup table) gains self-attention over the previous block_size characters: first one head,
// then several heads side by side plus a feed-forward layer. Each is trained for a few hundred
// AdamW steps on CPU, printing train/val losses and a short sample.
//
//   ./build/examples/attention_6_shakespeare [--steps N] [path/to/tinyshakespeare.txt]
//
// The default data file is the repository's data/tinyshakespeare.txt; --steps shortens the training
// (the tests use it). Given a path that does not exist it says so and exits 0 (nothing to learn from). Not a full GPT: no residual
// blocks or LayerNorm here; nn::GPT (nn/gpt.h) and examples/charlm are the complete version.
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

using ember::Tensor;
namespace nn = ember::nn;

constexpr int64_t kBatchSize = 32;  // sequences per step
constexpr int64_t kBlockSize = 8;   // the longest context
constexpr int64_t kEmbd = 32;       // embedding size
constexpr int64_t kDefaultSteps = 300;
constexpr int64_t kMaxSteps = 1000000;
constexpr int64_t kEvalInterval = 100;
constexpr int64_t kEvalIters = 20;
constexpr double kLearningRate = 3e-3;

// ---- data: characters are tokens ----
struct Dataset {
  std::vector<char> itos;  // id -> character
  Tensor train, val;       // (N) int64 token ids, 90% / 10%
};

Dataset load_dataset(const std::string& text) {
  std::set<char> chars(text.begin(), text.end());
  Dataset d;
  d.itos.assign(chars.begin(), chars.end());
  int stoi[256] = {};
  for (size_t i = 0; i < d.itos.size(); ++i) stoi[static_cast<unsigned char>(d.itos[i])] = static_cast<int>(i);
  std::vector<int64_t> ids;
  ids.reserve(text.size());
  for (char c : text) ids.push_back(stoi[static_cast<unsigned char>(c)]);
  Tensor data = ember::from_vector(ids, {static_cast<int64_t>(ids.size())}, ember::dtype(ember::kInt64));
  int64_t n = data.size(0) * 9 / 10;
  d.train = data.slice(0, 0, n);
  d.val = data.slice(0, n);
  return d;
}

// A batch of random windows: x (B, T) and the next characters y (B, T).
std::pair<Tensor, Tensor> get_batch(const Tensor& data) {
  Tensor ix = ember::randint(data.size(0) - kBlockSize, {kBatchSize});
  ember::tensor_list xs, ys;
  for (int64_t i : ix.to_vector<int64_t>()) {
    xs.push_back(data.slice(0, i, i + kBlockSize));
    ys.push_back(data.slice(0, i + 1, i + kBlockSize + 1));
  }
  return {ember::stack(xs), ember::stack(ys)};
}

// ---- the models ----

// Several nn::Head side by side, their outputs concatenated (the lecture's MultiHeadAttention).
class MultiHeadImpl : public nn::Module {
 public:
  MultiHeadImpl(int64_t num_heads, int64_t head_size) {
    heads = register_module("heads", nn::ModuleList());
    for (int64_t h = 0; h < num_heads; ++h) heads->push_back(nn::Head(kEmbd, head_size, kBlockSize));
  }
  Tensor forward(const Tensor& x) {  // (B, T, C) -> (B, T, num_heads * head_size)
    ember::tensor_list outs;
    for (size_t h = 0; h < heads->size(); ++h) outs.push_back(heads->at<nn::HeadImpl>(h).forward(x));
    return ember::cat(outs, -1);
  }
  nn::ModuleList heads{nullptr};
};
EMBER_MODULE(MultiHead);

// Token and position embeddings -> attention (one head, or four heads + feed-forward) -> logits.
class BigramAttentionImpl : public nn::Module {
 public:
  BigramAttentionImpl(int64_t vocab_size, bool multi_head) : multi_head(multi_head) {
    token_embedding_table = register_module("token_embedding_table", nn::Embedding(vocab_size, kEmbd));
    position_embedding_table = register_module("position_embedding_table", nn::Embedding(kBlockSize, kEmbd));
    if (multi_head) {
      sa_heads = register_module("sa_heads", MultiHead(4, kEmbd / 4));  // 4 heads of 8: same total size
      ffwd = register_module("ffwd", nn::Linear(kEmbd, kEmbd));         // each token thinks on what it gathered
    } else {
      sa_head = register_module("sa_head", nn::Head(kEmbd, kEmbd, kBlockSize));
    }
    lm_head = register_module("lm_head", nn::Linear(kEmbd, vocab_size));
  }

  Tensor forward(const Tensor& idx) {  // (B, T) -> logits (B, T, vocab_size)
    int64_t T = idx.size(1);
    Tensor x = token_embedding_table(idx) + position_embedding_table(ember::arange(T, ember::dtype(ember::kInt64)));
    x = multi_head ? ffwd(sa_heads(x)).relu() : sa_head(x);
    return lm_head(x);
  }

  Tensor generate(Tensor idx, int64_t max_new_tokens) {
    ember::NoGradGuard no_grad;
    for (int64_t i = 0; i < max_new_tokens; ++i) {
      int64_t T = idx.size(1);
      Tensor idx_cond = T <= kBlockSize ? idx : idx.narrow(1, T - kBlockSize, kBlockSize);
      Tensor logits = forward(idx_cond).select(1, idx_cond.size(1) - 1);  // (B, V): the last position
      Tensor next = ember::multinomial(ember::softmax(logits, -1), 1);
      idx = ember::cat({idx, next}, 1);
    }
    return idx;
  }

  bool multi_head;
  nn::Embedding token_embedding_table{nullptr}, position_embedding_table{nullptr};
  nn::Head sa_head{nullptr};
  MultiHead sa_heads{nullptr};
  nn::Linear ffwd{nullptr}, lm_head{nullptr};
};
EMBER_MODULE(BigramAttention);

Tensor loss_of(BigramAttention& model, const Tensor& x, const Tensor& y) {
  Tensor logits = model(x);
  return nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}), y.view({-1}));
}

// Mean loss over kEvalIters random batches of each split.
std::pair<double, double> estimate_loss(BigramAttention& model, const Dataset& d) {
  ember::NoGradGuard no_grad;
  model->eval();
  double out[2] = {0, 0};
  for (int split = 0; split < 2; ++split) {
    for (int64_t k = 0; k < kEvalIters; ++k) {
      auto [x, y] = get_batch(split == 0 ? d.train : d.val);
      out[split] += loss_of(model, x, y).item<double>() / kEvalIters;
    }
  }
  model->train();
  return {out[0], out[1]};
}

void train_and_sample(const std::string& title, bool multi_head, const Dataset& d, int64_t steps) {
  std::cout << "== " << title << " ==\n";
  BigramAttention model(static_cast<int64_t>(d.itos.size()), multi_head);
  ember::optim::AdamW optimizer(model->parameters(), ember::optim::AdamWOptions(kLearningRate));
  auto start = std::chrono::steady_clock::now();
  for (int64_t step = 0; step <= steps; ++step) {
    if (step % kEvalInterval == 0 || step == steps) {
      auto [train_loss, val_loss] = estimate_loss(model, d);
      std::printf("step %ld: train loss %.4f, val loss %.4f\n", static_cast<long>(step), train_loss, val_loss);
    }
    if (step == steps) break;
    auto [x, y] = get_batch(d.train);
    Tensor loss = loss_of(model, x, y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("trained %ld steps in %.1f s\n", static_cast<long>(steps), seconds);
  Tensor sample = model->generate(ember::zeros({1, 1}, ember::dtype(ember::kInt64)), 200)[0];
  std::string text;
  for (int64_t id : sample.to_vector<int64_t>()) text += d.itos[id];
  std::cout << "sample:\n" << text << "\n\n";
}

int main(int argc, char** argv) {
  std::string path = std::string(EMBER_DATA_DIR) + "/tinyshakespeare.txt";
  int64_t steps = kDefaultSteps;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "--steps") {
      path = arg;
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long n = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : 0;
    if (i + 1 >= argc || *end != '\0' || end == argv[i + 1] || errno != 0 || n < 1 || n > kMaxSteps) {
      std::cerr << "attention_6_shakespeare: --steps needs a whole number from 1 to " << kMaxSteps << ", got '"
                << (i + 1 < argc ? argv[i + 1] : "") << "'\n";
      return 2;
    }
    steps = n;
    ++i;
  }
  std::ifstream in(path);
  if (!in) {
    std::cout << "attention_6_shakespeare: skipping, no data file at " << path
              << " (pass the path to tinyshakespeare.txt as the first argument)\n";
    return 0;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  Dataset d = load_dataset(buffer.str());
  std::cout << "characters: " << d.train.size(0) + d.val.size(0) << ", vocabulary: " << d.itos.size() << "\n";

  ember::manual_seed(1337);
  train_and_sample("bigram + one attention head", /*multi_head=*/false, d, steps);
  train_and_sample("bigram + four heads + feed-forward", /*multi_head=*/true, d, steps);
  return 0;
}
