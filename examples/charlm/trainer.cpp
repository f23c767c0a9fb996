// Training and sampling for ember-charlm and ember-charlstm (see trainer.h), whatever the model.
// The loop is nanoGPT's train.py:
//
//   for it in start..max_iters:
//     lr = warmup-then-cosine(it)
//     every eval_interval (and at the end): mean train/val loss over eval_iters batches, no graph,
//                                           dropout off; log to CSV; checkpoint; keep the best
//     x, y = random batch; loss = model(x, y); backward; clip grad norm; AdamW step
//
// Everything random (init, batches, dropout, scheduled evals) draws from the default generator,
// whose state is saved in each checkpoint, so a resumed run repeats the uninterrupted one bit for
// bit. The end-of-run eval off the eval_interval schedule draws from its own generator instead, so a
// finished run extended with --resume --max_iters equals one straight run at every eval they share
// (the cosine schedule depends on lr_decay_iters, not max_iters). Step 0 (the untrained model) is
// logged but never saved; out_dir is locked for the run; SIGINT and SIGTERM save and stop (also in
// the middle of an eval or of a step's micro-batches: the state saved is then that of the step's
// start), a second one quits at once. A loss or weights that are not finite numbers stop the run
// with an error, and never reach a checkpoint.
//
// Under ember-run (WORLD_SIZE > 1) each rank is a DistributedDataParallel replica: rank 0's initial
// weights everywhere, batches drawn from a generator seeded per rank, gradients averaged during
// backward, eval losses averaged over the ranks, the stop signal agreed on at each step (and at every
// 8th batch inside one); only rank 0 locks out_dir, logs, prints and writes checkpoints (with the
// world size, which --resume checks).
// A collective waits --dist_timeout seconds for a peer that stopped answering.
// gradient_accumulation_steps micro-batches run per step, all but the last under no_sync().
#include "trainer.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <ember/ember.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <sys/wait.h>

#ifdef EMBER_WITH_DISTRIBUTED
#include "distributed/ddp.h"
#include "distributed/process_group.h"
#endif

#include "checkpoint.h"
#include "data.h"
#include "nn/json_guard.h"
#include "progress.h"
#include "rundir.h"

namespace charlm {

namespace fs = std::filesystem;
using ember::Tensor;

namespace {

// The first SIGINT (Ctrl-C) or SIGTERM (batch schedulers) asks the loop to save and stop at the next
// step; a second one quits at once, without saving: the last checkpoint on disk is intact, since
// saves replace it by rename.
std::atomic<int> g_signal{0};
// Written by the handler as it is (formatting is not async-signal-safe); set before it is installed.
char g_second_interrupt[256];

void on_stop_signal(int sig) {
  if (g_signal.load() != 0) {
    (void)!::write(STDERR_FILENO, g_second_interrupt, std::strlen(g_second_interrupt));
    ::_exit(128 + sig);
  }
  g_signal = sig;
}

// Installs the handler for SIGINT and SIGTERM for the training loop's lifetime.
class StopSignals {
 public:
  explicit StopSignals(const std::string& program) {
    g_signal = 0;
    fmt::format_to_n(g_second_interrupt, sizeof g_second_interrupt - 1,
                     "\n{}: second interrupt: quitting without saving (the last saved checkpoint is intact)\n", program)
        .out[0] = '\0';
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &previous_int_);
    sigaction(SIGTERM, &sa, &previous_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }

 private:
  struct sigaction previous_int_ {
  }, previous_term_{};
};

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

// nanoGPT's optimizer: weight decay on every parameter of 2 or more dimensions (matmuls,
// embeddings), none on biases and LayerNorm weights.
ember::optim::AdamW make_optimizer(const ember::nn::Module& model, const Config& c) {
  ember::nn::WeightDecayGroups split = ember::nn::weight_decay_groups(model);
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

// This process's place in an ember-run / torchrun job (world 1 without one).
struct World {
  int rank = 0, size = 1;
  bool main() const { return rank == 0; }
#ifdef EMBER_WITH_DISTRIBUTED
  std::shared_ptr<ember::distributed::ProcessGroup> pg;
  std::unique_ptr<ember::nn::parallel::DistributedDataParallel> ddp;
#endif
  // The mean over ranks of `values` (float64).
  void average(std::vector<double>& values) const {
#ifdef EMBER_WITH_DISTRIBUTED
    if (size == 1) return;
    Tensor t = ember::from_vector(values, {static_cast<int64_t>(values.size())});
    pg->all_reduce(t, ember::distributed::ReduceOp::AVG);
    for (size_t i = 0; i < values.size(); ++i) values[i] = t[static_cast<int64_t>(i)].item<double>();
#endif
  }
  // The largest of every rank's `value` (the stop signal: any rank's Ctrl-C stops all).
  int max(int value) const {
#ifdef EMBER_WITH_DISTRIBUTED
    if (size == 1) return value;
    Tensor t = ember::full({1}, static_cast<double>(value), ember::TensorOptions().dtype(ember::kInt64));
    pg->all_reduce(t, ember::distributed::ReduceOp::MAX);
    return static_cast<int>(t.item<int64_t>());
#else
    return value;
#endif
  }
};

// Whether to stop now: a signal to this process, or under ember-run to any rank (every rank asks at
// the same points of the loop, so the all_reduce behind it pairs up).
bool stop_requested(const World& world) {
  if (world.size > 1) g_signal = world.max(g_signal.load());
  return g_signal != 0;
}

// Inside the eval and micro-batch loops: a stop is seen within this many batches. Under ember-run
// the ranks agree only on those batches (all at the same k), so a step of many small micro-batches
// pays one small all_reduce per interval, not one per batch; a single process checks every batch.
constexpr int64_t kStopCheckInterval = 8;
bool stop_requested_at(const World& world, int64_t k) {
  if (world.size > 1 && k % kStopCheckInterval != 0) return false;
  return stop_requested(world);
}

World join_world(double timeout_s, const std::string& program) {
  World w;
  const char* size = std::getenv("WORLD_SIZE");
  if (!size || std::atoi(size) <= 1) return w;
#ifdef EMBER_WITH_DISTRIBUTED
  ember::distributed::InitOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  if (!ember::distributed::is_initialized()) ember::distributed::init_process_group("gloo", options);
  w.pg = ember::distributed::default_process_group();
  w.rank = w.pg->rank();
  w.size = w.pg->size();
  return w;
#else
  (void)timeout_s;
  EMBER_FAIL("train: WORLD_SIZE={} but this {} was built without ember::distributed (install libgloo-dev and rebuild)",
             size, program);
#endif
}

// Mean loss over eval_iters random batches of each split (drawn from `gen`), in eval mode and
// without a graph; std::nullopt when a stop signal came meanwhile.
std::optional<Losses> estimate_loss(CharModel& model, const Dataset& data, const Config& c, ember::Device dev,
                                    ember::Generator& gen, const World& world) {
  ember::NoGradGuard no_grad;
  ember::nn::Module& module = *model.module();
  module.eval();
  Losses out;
  for (int split = 0; split < 2; ++split) {
    const TokenArray& d = split == 0 ? data.train : data.val;
    double sum = 0;
    for (int64_t k = 0; k < c.eval_iters; ++k) {
      if (stop_requested_at(world, k)) {
        module.train();
        return std::nullopt;
      }
      auto [x, y] = get_batch(d, c.batch_size, c.block_size, gen);
      ember::autocast mixed(dev.type, ember::kBFloat16, c.dtype == "bfloat16");
      sum += model.loss(x.to(dev), y.to(dev)).item<double>();
    }
    (split == 0 ? out.train : out.val) = sum / static_cast<double>(c.eval_iters);
  }
  module.train();
  return out;
}

void append_csv(const fs::path& path, int64_t it, const Losses& l, double lr, double tok_s, double wall_s) {
  const RunFile log = open_run_file(path, O_WRONLY | O_APPEND | O_CREAT, "train: the log");
  struct stat st {};
  const bool fresh = ::fstat(log.fd(), &st) == 0 && st.st_size == 0;
  std::string rows = fresh ? "step,train_loss,val_loss,lr,tokens_per_s,wall_s,peak_rss_mib\n" : "";
  rows += fmt::format("{},{:.6f},{:.6f},{:.6e},{:.1f},{:.2f},{:.1f}\n", it, l.train, l.val, lr, tok_s, wall_s,
                      peak_rss_mib());
  write_run_file(log, rows, path, "train");
}

// Keeps the rows of log.csv up to step `last` (header included): after a resume, the rows of the
// steps that run again would otherwise appear twice. Rewritten beside and renamed, like checkpoints.
void trim_log(const fs::path& path, int64_t last) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  const std::string text =
      read_run_file(open_run_file(path, O_RDONLY, "train --resume: the log"), path, "train --resume");
  std::string kept, line;
  bool dropped = false;
  std::istringstream in(text);
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    const bool is_row = !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]));
    int64_t step = 0;
    if (is_row) {
      const auto [end, err] = std::from_chars(line.data(), line.data() + line.size(), step);
      EMBER_CHECK(err == std::errc() && (end == line.data() + line.size() || *end == ','),
                  "train --resume: {} line {}: the step '{}' is not an integer of at most 19 digits (the log is "
                  "damaged; fix or delete that line)",
                  path.string(), line_no, ember::excerpt(line.substr(0, line.find(','))));
    }
    if (is_row && step > last) {
      dropped = true;
      continue;
    }
    kept += line + "\n";
  }
  if (!dropped) return;
  const fs::path tmp = path.string() + ".trim";
  write_run_file(open_run_file(tmp, O_WRONLY | O_CREAT | O_TRUNC, "train --resume: the log's rewrite"), kept, tmp,
                 "train --resume");
  fs::rename(tmp, path);
}

// Whether every parameter holds finite numbers: the weights of a diverged run are never saved.
bool parameters_finite(const ember::nn::Module& model) {
  for (const Tensor& p : model.parameters()) {
    const Tensor values = p.detach().to(ember::Device(ember::kCPU)).to(ember::kFloat).contiguous();
    const float* v = values.data_ptr<float>();
    if (!std::all_of(v, v + values.numel(), [](float x) { return std::isfinite(x); })) return false;
  }
  return true;
}

// Draws ARG1 (a log.csv) into ARG2 (a PNG) titled ARG3; run as `gnuplot -c loss.gp ARG1 ARG2 ARG3`.
// A format string: {0} is the program's name.
constexpr const char* kPlotScript = R"(# {0}'s loss curves: gnuplot -c loss.gp log.csv loss.png title
set terminal pngcairo size 900,540 noenhanced
set output ARG2
set datafile separator ','
set key autotitle columnhead
set xlabel 'step'
set ylabel 'loss'
set grid
set title '{0}: '.ARG3
plot ARG1 using 1:2 with linespoints title 'train', '' using 1:3 with linespoints title 'val'
)";

}  // namespace

TrainResult train(const Family& family, const TrainArgs& args) {
  const fs::path out_dir = args.out_dir;
  const fs::path ckpt_path = out_dir / "ckpt.safetensors", best_path = out_dir / "best.safetensors";
  const fs::path log_path = out_dir / "log.csv";
  EMBER_CHECK(!(args.resume && args.overwrite),
              "train: --resume continues the run in {} and --overwrite deletes it; "
              "give one of them",
              out_dir.string());
  EMBER_CHECK(std::isfinite(args.dist_timeout_s) && args.dist_timeout_s > 0 && args.dist_timeout_s <= kMaxDistTimeout,
              "train: --dist_timeout must be a number of seconds in (0, {}], got {}", kMaxDistTimeout,
              args.dist_timeout_s);
  const std::string data_path = args.data_path.empty() ? default_data_path() : args.data_path;
  // From here a Ctrl-C or SIGTERM stops at the next step (before the first one: without saving).
  StopSignals signals(family.program);
  World world = join_world(args.dist_timeout_s, family.program);
  Config cfg = args.cfg;
  TrainState st;
  Vocab vocab;
  std::u32string text;
  std::optional<RunDirLock> lock;

  if (args.resume) {
    EMBER_CHECK(fs::exists(ckpt_path), "train --resume: no checkpoint at {} (train without --resume first)",
                ckpt_path.string());
    if (world.main()) lock.emplace(out_dir);  // before reading: a run still writing here would change it under us
    Loaded header = read_checkpoint_header(ckpt_path.string(), family);
    cfg = header.cfg;
    args.continued.resumable().apply(cfg);
    vocab = header.vocab;
    st = header.state;
    EMBER_CHECK(st.world_size == world.size,
                "train --resume: the checkpoint {} was trained by {} process(es) and this run has {}; resume it with "
                "ember-run --nproc_per_node {} (the batches per step, and so the run, depend on the world size)",
                ckpt_path.string(), st.world_size, world.size, st.world_size);
    text = read_text(data_path);
    // The text must use the checkpoint's vocabulary, or the ids would mean other characters.
    EMBER_CHECK(Vocab(text).chars() == vocab.chars(),
                "train --resume: {} has a different character set than the checkpoint's vocabulary ({} characters)",
                data_path, vocab.size());
  } else {
    text = read_text(data_path);
    vocab = Vocab(text);
  }
  family.validate(cfg);
  const uint64_t data_bytes = text.size() * static_cast<uint64_t>(TokenArray::bytes_per_token(vocab.size()));
  family.check_fits_in_memory(cfg, vocab.size(), /*training=*/true, args.resume ? "train --resume" : "train",
                              data_bytes);
  const Dataset data = make_dataset(text, vocab, cfg.block_size);
  const int64_t text_chars = static_cast<int64_t>(text.size());
  std::u32string().swap(text);  // from here the run keeps the compact tokens only
  if (!lock && world.main()) {
    lock.emplace(out_dir);
    std::vector<std::string> held;
    for (const fs::path& p : {ckpt_path, best_path, log_path})
      if (std::error_code ec; fs::exists(fs::symlink_status(p, ec))) held.push_back(p.filename().string());
    EMBER_CHECK(held.empty() || args.overwrite,
                "train: {} already holds a run ({}); continue it with --resume, start over with --overwrite (deletes "
                "them), or pick another --out_dir",
                out_dir.string(), fmt::join(held, ", "));
    for (const fs::path& p : {ckpt_path, best_path, log_path, out_dir / "loss.png"}) fs::remove(p);
  }
  if (int n = world.main() ? remove_stale_temporaries(out_dir) : 0; n > 0)
    std::printf("%s: removed %d temporary file(s) left in %s by an interrupted save\n", family.program.c_str(), n,
                out_dir.string().c_str());
  // The log's rows after the checkpoint belong to steps that will run again.
  if (args.resume && world.main()) trim_log(log_path, st.evaluated ? st.iter : st.iter - 1);
  if (cfg.threads > 0) ember::set_num_threads(cfg.threads);
  ember::warn_cpu_environment();
  const ember::Device dev = device_of(cfg);

  ember::manual_seed(cfg.seed);
  std::unique_ptr<CharModel> model = family.make_model(cfg, vocab.size());
  ember::nn::Module& module = *model->module();
  module.to(dev);
  ember::optim::AdamW opt = make_optimizer(module, cfg);
  if (args.resume) load_checkpoint(ckpt_path.string(), module, &opt, &ember::default_generator());
  st.world_size = world.size;
#ifdef EMBER_WITH_DISTRIBUTED
  if (world.size > 1) {
    world.ddp = std::make_unique<ember::nn::parallel::DistributedDataParallel>(model->module(), world.pg);
    // Rank 0 keeps the default generator (saved in checkpoints); the others draw their own batches.
    if (!world.main()) ember::manual_seed(cfg.seed + 7919 * static_cast<uint64_t>(world.rank) + st.iter);
  }
#endif
  // Silence the other ranks' printing: rank 0 speaks for the run.
  if (!world.main()) EMBER_CHECK(std::freopen("/dev/null", "w", stdout), "train: cannot silence rank {}", world.rank);

  const bool interactive = isatty(STDOUT_FILENO);
  std::printf("%s: %s characters (vocabulary %lld), %lld train / %lld val; model %.2fM parameters; %s%s\n",
              family.program.c_str(), fmt::format("{:L}", text_chars).c_str(), static_cast<long long>(vocab.size()),
              static_cast<long long>(data.train.size()), static_cast<long long>(data.val.size()),
              static_cast<double>(model->num_parameters()) / 1e6, args.resume ? "resuming at step " : "from scratch",
              args.resume ? std::to_string(st.iter).c_str() : "");
  std::printf("settings: %s\n", describe(cfg, family.settings).c_str());
  std::fflush(stdout);  // a log followed with tail -f shows the run's start at once
  Progress progress(cfg.max_iters, cfg.batch_size * cfg.block_size * cfg.gradient_accumulation_steps * world.size,
                    interactive, cfg.log_interval);

  TrainResult result;
  const int64_t first_iter = st.iter;
  double lr = 0;
  // Checkpoints are written only of finite weights: a diverged model never replaces a good file.
  auto save = [&](const fs::path& path, int64_t it) {
    if (!world.main()) return;
    EMBER_CHECK(parameters_finite(module),
                "train: at step {} the weights are not finite numbers (training diverged); {} was not written, and "
                "the files in {} keep the last good state. Lower --learning_rate or use --grad_clip",
                it, path.string(), out_dir.string());
    save_checkpoint(path.string(), family, cfg, vocab, st, module, opt, ember::default_generator());
  };
  // Stops the run at step `it`, whose state (the default generator's included) is restored to the
  // step's start, or to just after its eval when `evaluated`. Saves it unless no step ran.
  auto stop_run = [&](int64_t it, bool evaluated) {
    result.interrupted = true;
    result.signal = g_signal;
    const std::string why = fmt::format("interrupted{} at step {}", g_signal == SIGTERM ? " by SIGTERM" : "", it);
    // No step ran: the checkpoint on disk (the one resumed from, or the one this step's eval just
    // wrote) already holds this state; an eval of step 0 is never saved.
    if (it == first_iter) {
      progress.message(
          fs::exists(ckpt_path)
              ? fmt::format("{}: no step ran, {} holds this state (continue with --resume)", why, ckpt_path.string())
              : fmt::format("{}: no step ran, nothing saved", why));
      return;
    }
    st.iter = it;
    st.evaluated = evaluated;
    save(ckpt_path, it);
    progress.message(fmt::format("{}: saved {} (continue with --resume)", why, ckpt_path.string()));
  };
  // A loss that is not a finite number ends the run before the optimizer or a save can use it.
  auto check_finite = [&](int64_t it, const std::string& what, double value) {
    if (std::isfinite(value)) return;
    const bool kept = fs::exists(ckpt_path);
    EMBER_FAIL(
        "train: the {} at step {} is {} (not a finite number): training diverged. Stopped without saving; {}. Lower "
        "--learning_rate (it is {:g} at this step) or --grad_clip ({:g}; 0 is off)",
        what, it,
        std::isnan(value) ? "nan"
        : value > 0       ? "inf"
                          : "-inf",
        kept ? fmt::format("{} keeps the last good state", ckpt_path.string()) : "no checkpoint was written", lr,
        cfg.grad_clip);
  };
  for (int64_t it = st.iter;; ++it) {
    lr = ember::optim::nanogpt_lr(it, cfg.learning_rate, cfg.min_lr, cfg.warmup_iters, cfg.lr_decay_iters);
    for (auto& group : opt.param_groups()) group.options().set_lr(lr);

    if (stop_requested(world) || it == args.stop_at) {  // it == stop_at: a scripted Ctrl-C, for the resume test
      stop_run(it, false);
      break;
    }
    // The generator as the step starts (then as its eval left it): a stop inside the step goes back to it.
    Tensor rng_at_step = ember::default_generator().get_state();
    const bool scheduled = it % cfg.eval_interval == 0;
    const bool eval_now = (scheduled || it == cfg.max_iters) && !(st.evaluated && it == st.iter);
    if (eval_now) {
      // The end-of-run eval off the schedule draws from its own generator, so that extending a finished
      // run with --resume --max_iters repeats the straight run's batches exactly.
      ember::Generator end_of_run(cfg.seed + static_cast<uint64_t>(it));
      std::optional<Losses> measured =
          estimate_loss(*model, data, cfg, dev, scheduled ? ember::default_generator() : end_of_run, world);
      if (!measured) {
        ember::default_generator().set_state(rng_at_step);
        stop_run(it, false);
        break;
      }
      Losses l = *measured;
      if (world.size > 1) {
        std::vector<double> both{l.train, l.val};
        world.average(both);
        l = {both[0], both[1]};
      }
      check_finite(it, "train loss of the eval", l.train);
      check_finite(it, "val loss of the eval", l.val);
      st.last_train = l.train;
      st.last_val = l.val;
      st.iter = it;
      st.evaluated = true;
      // Step 0 is the untrained model: logged, but never saved, so it can neither replace a checkpoint
      // nor be the best one.
      const bool saving = it > 0, best = saving && l.val < st.best_val;
      if (best) st.best_val = l.val;
      if (world.main()) append_csv(log_path, it, l, lr, progress.median_tokens_per_s(), progress.elapsed_s());
      if (saving) save(ckpt_path, it);
      // The same state again, written atomically as well (never a truncated best.safetensors).
      if (best) save(best_path, it);
      progress.message(fmt::format("step {}: train loss {:.4f}, val loss {:.4f}{} (peak RSS {:.0f} MiB)", it, l.train,
                                   l.val, best ? ", best so far" : "", peak_rss_mib()));
      rng_at_step = ember::default_generator().get_state();
    }
    if (it >= cfg.max_iters) break;

    opt.zero_grad(true);
    Tensor loss;
    const int64_t micro_steps = cfg.gradient_accumulation_steps;
    double step_loss = 0;
    bool stopped = false;
    for (int64_t micro = 0; micro < micro_steps && !stopped; ++micro) {
      if (micro > 0 && stop_requested_at(world, micro)) {
        stopped = true;
        break;
      }
      auto [x, y] = get_batch(data.train, cfg.batch_size, cfg.block_size, ember::default_generator());
      {  // nanoGPT's `with ctx:` around the forward only; the backward runs outside it
        ember::autocast mixed(dev.type, ember::kBFloat16, cfg.dtype == "bfloat16");
        loss = model->loss(x.to(dev), y.to(dev));
      }
      if (micro_steps > 1) loss = loss / static_cast<double>(micro_steps);
#ifdef EMBER_WITH_DISTRIBUTED
      if (world.ddp && micro + 1 < micro_steps) {
        auto no_sync = world.ddp->no_sync();  // accumulate locally; the last micro-batch averages
        loss.backward();
        step_loss += loss.item<double>();
        continue;
      }
#endif
      loss.backward();
      step_loss += loss.item<double>();
    }
    if (stopped) {  // the micro-batches so far are dropped: the step runs again on resume
      opt.zero_grad(true);
      ember::default_generator().set_state(rng_at_step);
      stop_run(it, st.evaluated && st.iter == it);
      break;
    }
    check_finite(it, "training loss", step_loss);
    if (cfg.grad_clip > 0) {
      const double norm = ember::nn::utils::clip_grad_norm_(module.parameters(), cfg.grad_clip);
      check_finite(it, "gradient norm", norm);
    }
    opt.step();
    progress.step(it, step_loss, lr);
  }
  progress.finish();

  result.iters = cfg.max_iters;
  result.train_loss = st.last_train;
  result.val_loss = st.last_val;
  result.best_val = st.best_val;
  result.median_tokens_per_s = progress.median_tokens_per_s();
  result.wall_s = progress.elapsed_s();
  // best_val stays at its 1e30 sentinel until a saved eval (step 0 is never saved).
  const std::string best = st.best_val < 1e29 ? fmt::format("{:.4f}", st.best_val) : "none saved";
  std::printf("summary: steps %lld, train loss %.4f, val loss %.4f (best %s), median %.0f tokens/s, wall %.1f s\n",
              static_cast<long long>(cfg.max_iters), result.train_loss, result.val_loss, best.c_str(),
              result.median_tokens_per_s, result.wall_s);
  if (args.plot && !result.interrupted && world.main()) plot(family, args.out_dir);
  return result;
}

void sample(const Family& family, const SampleArgs& args) {
  EMBER_CHECK(args.temperature > 0, "sample: --temperature must be positive, got {}", args.temperature);
  EMBER_CHECK(args.num_chars >= 0, "sample: --num_chars must be non-negative, got {}", args.num_chars);
  EMBER_CHECK(std::filesystem::exists(args.checkpoint), "sample: no checkpoint at {} (train first)", args.checkpoint);
  Loaded header = read_checkpoint_header(args.checkpoint, family);
  family.check_fits_in_memory(header.cfg, header.vocab.size(), /*training=*/false, "sample");
  std::unique_ptr<CharModel> model = family.make_model(header.cfg, header.vocab.size());
  load_checkpoint(args.checkpoint, *model->module(), nullptr, nullptr);
  model->module()->eval();
  ember::NoGradGuard no_grad;

  std::u32string prompt = utf8_to_u32(args.prompt, "sample: --prompt");
  EMBER_CHECK(!prompt.empty(), "sample: --prompt must not be empty");
  std::vector<int64_t> ids = header.vocab.encode(prompt);
  ember::Generator gen(args.seed);
  std::fputs(args.prompt.c_str(), stdout);
  // The model's generate, printing each character as it is drawn.
  auto print = [&](const Tensor& next) {  // (1, 1)
    std::fputs(u32_to_utf8(header.vocab.decode({next.item<int64_t>()})).c_str(), stdout);
    std::fflush(stdout);
  };
  Tensor idx = ember::from_vector(ids, {1, static_cast<int64_t>(ids.size())});
  model->generate_stream(idx, args.num_chars, print, args.temperature, args.top_k, gen, args.use_cache);
  std::fputs("\n", stdout);
}

void plot(const Family& family, const std::string& out_dir) {
  const fs::path dir = fs::absolute(out_dir);
  const fs::path csv = dir / "log.csv", png = dir / "loss.png", script = dir / "loss.gp";
  EMBER_CHECK(fs::exists(csv), "plot: no log at {} (train first)", csv.string());
  // A fixed script; the paths reach gnuplot as arguments (ARG1..ARG3), never as code, and no shell
  // is involved, so any character in out_dir is just a character.
  write_run_file(open_run_file(script, O_WRONLY | O_CREAT | O_TRUNC, "plot: the script"),
                 fmt::format(kPlotScript, family.program), script, "plot");
  // gnuplot draws into a file made here, renamed over loss.png at the end: a link at loss.png is
  // replaced, never written through.
  const fs::path drawing = png.string() + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  fs::remove(drawing, ec);
  open_run_file(drawing, O_WRONLY | O_CREAT | O_EXCL, "plot: the image");
  const std::string title = out_dir;
  std::vector<std::string> args = {"gnuplot", "-c", script.string(), csv.string(), drawing.string(), title};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (err == 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (err != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) fs::remove(drawing, ec);
  EMBER_CHECK(err != ENOENT, "plot: gnuplot is not installed (apt-get install gnuplot-nox)");
  EMBER_CHECK(err == 0, "plot: cannot start gnuplot: {}", std::strerror(err));
  EMBER_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "plot: gnuplot failed to draw {} (script {})",
              png.string(), script.string());
  fs::rename(drawing, png);
  std::printf("plot: wrote %s\n", png.string().c_str());
}

}  // namespace charlm
