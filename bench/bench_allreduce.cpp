// All-reduce time against message size on the Gloo backend, and the all-reduce each training step of
// ember-charlm's presets does. Run under ember-run (scripts/bench_distributed.sh does):
//   ember-run --nproc_per_node 2 build-bench/bench/bench_allreduce
// Rank 0 prints two markdown tables: a sweep of float32 sums from 4 KiB to 64 MiB, and the
// gradients of the baby and video GPTs as DDP reduces them (one all-reduce per bucket of at most
// 25 MiB, the default bucket_cap_mb). Each row: the median over the repeats (a barrier before each,
// the first two dropped), algorithm bandwidth (bytes / time) and bus bandwidth (2 (n-1)/n x bytes /
// time, a ring all-reduce's traffic per rank, as nccl-tests reports it). Not a test: nothing is
// asserted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "ember/ember.h"

namespace {

namespace dist = ember::distributed;
using ember::Tensor;

constexpr int64_t kBucketCapBytes = 25 * 1024 * 1024;  // DistributedDataParallelOptions::bucket_cap_mb
constexpr int64_t kCharVocab = 65;                     // tinyshakespeare's characters

// Median milliseconds of all-reducing `buckets` (float32 tensors) one after the other.
double median_ms(dist::ProcessGroup& pg, std::vector<Tensor>& buckets, int repeats) {
  std::vector<double> ms;
  for (int k = 0; k < repeats + 2; ++k) {
    pg.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (Tensor& b : buckets) pg.all_reduce(b);
    const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (k >= 2) ms.push_back(took);  // the first two warm the connections
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::string human(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:g} MiB", bytes / (1 << 20));
  return fmt::format("{:g} KiB", bytes / 1024);
}

// The bytes DDP reduces per step for ember-charlm's preset (float32 gradients, tied embedding once).
int64_t gradient_bytes(int64_t n_layer, int64_t n_head, int64_t n_embd, int64_t block_size) {
  ember::nn::GPTConfig c;
  c.vocab_size = kCharVocab;
  c.block_size = block_size;
  c.n_layer = n_layer;
  c.n_head = n_head;
  c.n_embd = n_embd;
  ember::nn::GPT model(c);
  int64_t elements = 0;
  for (const Tensor& p : model->parameters()) elements += p.numel();  // parameters() lists a tied one once
  return elements * 4;
}

}  // namespace

int main() {
  dist::init_process_group("gloo");
  auto pg = dist::default_process_group();
  const bool main_rank = pg->rank() == 0;
  const double n = pg->size();
  auto row = [&](const std::string& what, double bytes, double ms) {
    if (main_rank)
      std::printf("| %s | %.3f | %.2f | %.2f |\n", what.c_str(), ms, bytes / (ms * 1e-3) / 1e9,
                  2 * (n - 1) / n * bytes / (ms * 1e-3) / 1e9);
  };
  if (main_rank)
    std::printf("| float32 sum, %d ranks | ms (median) | algbw GB/s | busbw GB/s |\n|---|---|---|---|\n", pg->size());
  for (int64_t bytes = 4096; bytes <= (int64_t{64} << 20); bytes *= 4) {
    std::vector<Tensor> one = {ember::ones({bytes / 4})};
    row(human(static_cast<double>(bytes)), static_cast<double>(bytes),
        median_ms(*pg, one, bytes >= (int64_t{16} << 20) ? 5 : 20));
  }

  struct Preset {
    const char* name;
    int64_t n_layer, n_head, n_embd, block_size;
  };
  if (main_rank)
    std::printf("\n| gradients per step, %d ranks | ms (median) | algbw GB/s | busbw GB/s |\n|---|---|---|---|\n",
                pg->size());
  for (const Preset& p : {Preset{"baby", 4, 4, 128, 64}, Preset{"video", 6, 6, 384, 256}}) {
    const int64_t total = gradient_bytes(p.n_layer, p.n_head, p.n_embd, p.block_size);
    std::vector<Tensor> buckets;
    for (int64_t left = total; left > 0; left -= kBucketCapBytes)
      buckets.push_back(ember::ones({std::min(left, kBucketCapBytes) / 4}));
    const std::string what = fmt::format("{}: {:.2f} MB in {} bucket(s)", p.name, total / 1e6, buckets.size());
    row(what, static_cast<double>(total), median_ms(*pg, buckets, 5));
  }
  dist::destroy_process_group();
}
