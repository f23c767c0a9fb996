// What bench_gpt.cpp (Ember) and torch_gpt.cpp (libtorch) share: the presets, the command line,
// and the timing loop, so the two programs differ only in the framework they call.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include <sys/resource.h>

namespace bench {

// The model and batch of ember-charlm's presets (examples/charlm/config.cpp).
struct Preset {
  std::string name;
  int64_t n_layer, n_head, n_embd, block_size, batch_size;
  double dropout;
  int64_t vocab_size = 65;  // tiny Shakespeare's characters
};

inline Preset preset(const std::string& name) {
  if (name == "baby") return {"baby", 4, 4, 128, 64, 12, 0.0};
  if (name == "video") return {"video", 6, 6, 384, 256, 64, 0.2};
  std::fprintf(stderr, "unknown preset '%s' (baby or video)\n", name.c_str());
  std::exit(2);
}

struct Args {
  Preset preset = bench::preset("baby");
  int steps = 30, warmup = 3, threads = 2;
  std::string dtype = "float32";  // or bfloat16: the forward under CPU autocast, as nanoGPT's --dtype
};

inline Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(
          stderr, "usage: %s [--preset baby|video] [--steps N] [--warmup N] [--threads N] [--dtype float32|bfloat16]\n",
          argv[0]);
      std::exit(2);
    }
    std::string value = argv[++i];
    if (flag == "--preset")
      a.preset = preset(value);
    else if (flag == "--steps")
      a.steps = std::stoi(value);
    else if (flag == "--warmup")
      a.warmup = std::stoi(value);
    else if (flag == "--threads")
      a.threads = std::stoi(value);
    else if (flag == "--dtype" && (value == "float32" || value == "bfloat16"))
      a.dtype = value;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return a;
}

// nanoGPT's estimate of a training step's work: 6 flops per parameter per token (forward 2,
// backward 4), plus attention's 12 * n_layer * n_embd * block_size per token. Position
// embeddings are not counted (a lookup); the tied token embedding counts once, as lm_head.
inline double flops_per_step(const Preset& p) {
  double C = p.n_embd, L = p.n_layer, T = p.block_size;
  double per_layer = 12 * C * C + 13 * C;  // qkv, proj, fc, fc-proj weights and biases, two LayerNorms
  double params = L * per_layer + 2 * C + p.vocab_size * C;
  return (6 * params + 12 * L * C * T) * T * p.batch_size;
}

inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

// Runs `warmup` untimed steps, then `steps` timed ones, and prints the result line.
inline void run_and_report(const char* framework, const Args& a, const std::function<void()>& step,
                           const std::function<double()>& last_loss) {
  for (int i = 0; i < a.warmup; ++i) step();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < a.steps; ++i) step();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double ms = 1e3 * seconds / a.steps;
  double tokens = double(a.preset.batch_size * a.preset.block_size);
  std::printf("%s %s threads %d dtype %s ms/step %.2f tok/s %.0f GFLOP/s %.1f peak_rss_mib %.0f loss %.4f\n", framework,
              a.preset.name.c_str(), a.threads, a.dtype.c_str(), ms, tokens * 1e3 / ms,
              flops_per_step(a.preset) / ms / 1e6, peak_rss_mib(), last_loss());
}

}  // namespace bench
