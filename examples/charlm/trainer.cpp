// Training and sampling for ember-charlm (see trainer.h). The loop is nanoGPT's train.py:
//
//   for it in start..max_iters:
//     lr = warmup-then-cosine(it)
//     every eval_interval (and at the end): mean train/val loss over eval_iters batches, no graph,
//                                           dropout off; log to CSV; checkpoint; keep the best
//     x, y = random batch; loss = model(x, y); backward; clip grad norm; AdamW step
//
// Everything random (init, batches, dropout) draws from the default generator, whose state is
// saved in each checkpoint, so a resumed run repeats the uninterrupted one bit for bit.
#include "trainer.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <ember/ember.h>
#include <fmt/format.h>

#include "checkpoint.h"
#include "data.h"
#include "progress.h"

namespace charlm {

namespace fs = std::filesystem;
using ember::Tensor;

namespace {

std::atomic<bool> g_stop{false};
void on_sigint(int) { g_stop = true; }

// Peak resident memory of this process so far, in MiB (VmHWM in /proc/self/status).
double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      in >> kib;
      return kib / 1024.0;
    }
    std::getline(in, key);
  }
  return 0;
}

ember::Device device_of(const Config& cfg) {
  return cfg.device == "cpu" ? ember::Device(ember::kCPU) : ember::Device(ember::kCUDA);
}

ember::nn::GPTConfig gpt_config(const Config& c, int64_t vocab_size) {
  ember::nn::GPTConfig g;
  g.vocab_size = vocab_size;
  g.block_size = c.block_size;
  g.n_layer = c.n_layer;
  g.n_head = c.n_head;
  g.n_embd = c.n_embd;
  g.dropout = c.dropout;
  g.bias = c.bias;
  return g;
}

// nanoGPT's optimizer: weight decay on every parameter of 2 or more dimensions (matmuls,
// embeddings), none on biases and LayerNorm weights.
ember::optim::AdamW make_optimizer(ember::nn::GPT& model, const Config& c) {
  ember::nn::WeightDecayGroups split = model->weight_decay_groups();
  auto options = ember::optim::AdamWOptions(c.learning_rate).betas({c.beta1, c.beta2}).weight_decay(c.weight_decay);
  std::vector<ember::optim::OptimizerParamGroup> groups;
  groups.emplace_back(split.decay, std::make_unique<ember::optim::AdamWOptions>(options));
  auto no_decay = options;
  groups.emplace_back(split.no_decay, std::make_unique<ember::optim::AdamWOptions>(no_decay.weight_decay(0.0)));
  return ember::optim::AdamW(std::move(groups), options);
}

struct Losses {
  double train = 0, val = 0;
};

// Mean loss over eval_iters random batches of each split, in eval mode and without a graph.
Losses estimate_loss(ember::nn::GPT& model, const Dataset& data, const Config& c, ember::Device dev) {
  ember::NoGradGuard no_grad;
  model->eval();
  Losses out;
  for (int split = 0; split < 2; ++split) {
    const Tensor& d = split == 0 ? data.train : data.val;
    double sum = 0;
    for (int64_t k = 0; k < c.eval_iters; ++k) {
      auto [x, y] = get_batch(d, c.batch_size, c.block_size, ember::default_generator());
      sum += std::get<1>(model->forward(x.to(dev), y.to(dev))).item<double>();
    }
    (split == 0 ? out.train : out.val) = sum / static_cast<double>(c.eval_iters);
  }
  model->train();
  return out;
}

void append_csv(const fs::path& path, int64_t it, const Losses& l, double lr, double tok_s, double wall_s) {
  const bool fresh = !fs::exists(path);
  std::ofstream out(path, std::ios::app);
  EMBER_CHECK(out.good(), "train: cannot write the log {}", path.string());
  if (fresh) out << "step,train_loss,val_loss,lr,tokens_per_s,wall_s,peak_rss_mib\n";
  out << fmt::format("{},{:.6f},{:.6f},{:.6e},{:.1f},{:.2f},{:.1f}\n", it, l.train, l.val, lr, tok_s, wall_s,
                     peak_rss_mib());
}

}  // namespace

TrainResult train(const TrainArgs& args) {
  const fs::path out_dir = args.out_dir;
  const fs::path ckpt_path = out_dir / "ckpt.safetensors", best_path = out_dir / "best.safetensors";
  Config cfg = args.cfg;
  TrainState st;
  Vocab vocab;
  std::u32string text;

  if (args.resume) {
    EMBER_CHECK(fs::exists(ckpt_path), "train --resume: no checkpoint at {} (train without --resume first)",
                ckpt_path.string());
    Loaded header = read_checkpoint_header(ckpt_path.string());
    const int64_t max_iters = cfg.max_iters;
    cfg = header.cfg;
    if (max_iters >= 0) cfg.max_iters = max_iters;
    vocab = header.vocab;
    st = header.state;
    text = read_text(args.data_path);
    // The text must use the checkpoint's vocabulary, or the ids would mean other characters.
    EMBER_CHECK(Vocab(text).chars() == vocab.chars(),
                "train --resume: {} has a different character set than the checkpoint's vocabulary ({} characters)",
                args.data_path, vocab.size());
  } else {
    text = read_text(args.data_path);
    vocab = Vocab(text);
  }
  validate(cfg);
  if (cfg.threads > 0) ember::set_num_threads(cfg.threads);
  ember::warn_cpu_environment();
  const ember::Device dev = device_of(cfg);
  Dataset data = make_dataset(text, vocab, cfg.block_size);

  ember::manual_seed(cfg.seed);
  ember::nn::GPT model(gpt_config(cfg, vocab.size()));
  model->to(dev);
  ember::optim::AdamW opt = make_optimizer(model, cfg);
  if (args.resume) {
    load_checkpoint(ckpt_path.string(), model, &opt, &ember::default_generator());
  } else {
    fs::create_directories(out_dir);
    fs::remove(out_dir / "log.csv");
  }

  const bool interactive = isatty(STDOUT_FILENO);
  std::printf("ember-charlm: %s characters (vocabulary %lld), %lld train / %lld val; model %.2fM parameters; %s%s\n",
              fmt::format("{:L}", static_cast<int64_t>(text.size())).c_str(), static_cast<long long>(vocab.size()),
              static_cast<long long>(data.train.numel()), static_cast<long long>(data.val.numel()),
              static_cast<double>(model->num_parameters()) / 1e6, args.resume ? "resuming at step " : "from scratch",
              args.resume ? std::to_string(st.iter).c_str() : "");
  Progress progress(cfg.max_iters, cfg.batch_size * cfg.block_size, interactive, cfg.eval_interval / 5 + 1);

  auto previous = std::signal(SIGINT, on_sigint);
  g_stop = false;
  TrainResult result;
  double lr = 0;
  for (int64_t it = st.iter;; ++it) {
    if (it == args.stop_at) g_stop = true;  // a scripted Ctrl-C, for the resume test
    lr = ember::optim::nanogpt_lr(it, cfg.learning_rate, cfg.min_lr, cfg.warmup_iters, cfg.lr_decay_iters);
    for (auto& group : opt.param_groups()) group.options().set_lr(lr);

    if (g_stop) {
      st.iter = it;
      st.evaluated = false;
      save_checkpoint(ckpt_path.string(), cfg, vocab, st, model, opt, ember::default_generator());
      progress.message(fmt::format("interrupted at step {}: saved {} (continue with --resume)", it, ckpt_path.string()));
      result.interrupted = true;
      break;
    }
    const bool eval_now = (it % cfg.eval_interval == 0 || it == cfg.max_iters) && !(st.evaluated && it == st.iter);
    if (eval_now) {
      Losses l = estimate_loss(model, data, cfg, dev);
      st.last_train = l.train;
      st.last_val = l.val;
      st.iter = it;
      st.evaluated = true;
      const bool best = l.val < st.best_val;
      if (best) st.best_val = l.val;
      append_csv(out_dir / "log.csv", it, l, lr, progress.median_tokens_per_s(), progress.elapsed_s());
      save_checkpoint(ckpt_path.string(), cfg, vocab, st, model, opt, ember::default_generator());
      if (best) fs::copy_file(ckpt_path, best_path, fs::copy_options::overwrite_existing);
      progress.message(fmt::format("step {}: train loss {:.4f}, val loss {:.4f}{} (peak RSS {:.0f} MiB)", it, l.train,
                                   l.val, best ? ", best so far" : "", peak_rss_mib()));
    }
    if (it >= cfg.max_iters) break;

    auto [x, y] = get_batch(data.train, cfg.batch_size, cfg.block_size, ember::default_generator());
    Tensor loss = std::get<1>(model->forward(x.to(dev), y.to(dev)));
    opt.zero_grad(true);
    loss.backward();
    if (cfg.grad_clip > 0) ember::nn::utils::clip_grad_norm_(model->parameters(), cfg.grad_clip);
    opt.step();
    progress.step(it, loss.item<double>(), lr);
  }
  std::signal(SIGINT, previous);
  progress.finish();

  result.iters = cfg.max_iters;
  result.train_loss = st.last_train;
  result.val_loss = st.last_val;
  result.best_val = st.best_val;
  result.median_tokens_per_s = progress.median_tokens_per_s();
  result.wall_s = progress.elapsed_s();
  std::printf("summary: steps %lld, train loss %.4f, val loss %.4f (best %.4f), median %.0f tokens/s, wall %.1f s\n",
              static_cast<long long>(cfg.max_iters), result.train_loss, result.val_loss, result.best_val,
              result.median_tokens_per_s, result.wall_s);
  if (args.plot && !result.interrupted) plot(args.out_dir);
  return result;
}

std::string sample(const SampleArgs& args) {
  EMBER_CHECK(args.temperature > 0, "sample: --temperature must be positive, got {}", args.temperature);
  EMBER_CHECK(args.num_chars >= 0, "sample: --num_chars must be non-negative, got {}", args.num_chars);
  EMBER_CHECK(std::filesystem::exists(args.checkpoint), "sample: no checkpoint at {} (train first)", args.checkpoint);
  Loaded header = read_checkpoint_header(args.checkpoint);
  ember::nn::GPT model(gpt_config(header.cfg, header.vocab.size()));
  load_checkpoint(args.checkpoint, model, nullptr, nullptr);
  model->eval();
  ember::NoGradGuard no_grad;

  std::u32string prompt = utf8_to_u32(args.prompt, "sample: --prompt");
  EMBER_CHECK(!prompt.empty(), "sample: --prompt must not be empty");
  std::vector<int64_t> ids = header.vocab.encode(prompt);
  ember::Generator gen(args.seed);
  std::string out = args.prompt;
  std::fputs(args.prompt.c_str(), stdout);
  const int64_t block = header.cfg.block_size;
  for (int64_t n = 0; n < args.num_chars; ++n) {
    // nanoGPT's generate: crop to the context, last position's logits / temperature, top-k, sample.
    const int64_t len = static_cast<int64_t>(ids.size()), start = std::max<int64_t>(0, len - block);
    std::vector<int64_t> ctx(ids.begin() + start, ids.end());
    Tensor idx = ember::from_vector(ctx, {1, len - start});
    Tensor logits = std::get<0>(model->forward(idx)).select(1, -1) / args.temperature;
    if (args.top_k && *args.top_k < logits.size(-1)) {
      std::vector<float> v(logits.data_ptr<float>(), logits.data_ptr<float>() + logits.numel());
      std::nth_element(v.begin(), v.begin() + (*args.top_k - 1), v.end(), std::greater<float>());
      logits = logits.masked_fill(logits < v[*args.top_k - 1], -INFINITY);
    }
    Tensor next = ember::multinomial(logits.softmax(-1), 1, false, gen);
    ids.push_back(next.item<int64_t>());
    std::string ch = u32_to_utf8(header.vocab.decode({ids.back()}));
    out += ch;
    std::fputs(ch.c_str(), stdout);
    std::fflush(stdout);
  }
  std::fputs("\n", stdout);
  return out;
}

void plot(const std::string& out_dir) {
  const fs::path csv = fs::path(out_dir) / "log.csv", png = fs::path(out_dir) / "loss.png";
  EMBER_CHECK(fs::exists(csv), "plot: no log at {} (train first)", csv.string());
  EMBER_CHECK(std::system("command -v gnuplot > /dev/null 2>&1") == 0,
              "plot: gnuplot is not installed (apt-get install gnuplot-nox)");
  const std::string script = fmt::format(
      "set terminal pngcairo size 900,540 noenhanced; set output '{}'; set datafile separator ',';"
      "set key autotitle columnhead; set xlabel 'step'; set ylabel 'loss'; set grid;"
      "set title 'ember-charlm: {}';"
      "plot '{}' using 1:2 with linespoints title 'train', '' using 1:3 with linespoints title 'val'",
      png.string(), out_dir, csv.string());
  FILE* gp = popen("gnuplot", "w");
  EMBER_CHECK(gp != nullptr, "plot: cannot start gnuplot");
  std::fputs(script.c_str(), gp);
  EMBER_CHECK(pclose(gp) == 0, "plot: gnuplot failed to draw {}", png.string());
  std::printf("plot: wrote %s\n", png.string().c_str());
}

}  // namespace charlm
