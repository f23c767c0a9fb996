// All-reduce time against message size on the Gloo backend: run under ember-run, e.g.
//   ember-run --nproc_per_node 2 build-bench/bench/bench_allreduce
// Rank 0 prints one line per size: bytes, median ms over the repeats, and bus bandwidth
// (2 (n-1)/n x bytes / time, the ring all-reduce's traffic per rank, as nccl-tests reports it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "distributed/process_group.h"
#include "ember/ember.h"

int main() {
  namespace dist = ember::distributed;
  dist::init_process_group("gloo");
  auto pg = dist::default_process_group();
  const double n = pg->size();
  if (pg->rank() == 0) std::printf("%12s %10s %12s\n", "bytes", "ms", "busbw_GB/s");
  for (int64_t elems = 256; elems <= (int64_t{16} << 20); elems *= 4) {
    ember::Tensor t = ember::ones({elems});
    std::vector<double> ms;
    const int repeats = elems >= (int64_t{4} << 20) ? 5 : 20;
    for (int k = 0; k < repeats + 2; ++k) {
      pg->barrier();
      const auto start = std::chrono::steady_clock::now();
      pg->all_reduce(t);
      const double took = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (k >= 2) ms.push_back(took);  // the first two warm the connections
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2], bytes = static_cast<double>(elems) * 4;
    if (pg->rank() == 0)
      std::printf("%12.0f %10.3f %12.2f\n", bytes, median, 2 * (n - 1) / n * bytes / (median * 1e-3) / 1e9);
  }
  dist::destroy_process_group();
}
