// Thread-count control shared by OpenMP and OpenBLAS, and the one-time environment warning.
#include "core/threads.h"

#include <cblas.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace ember {

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads: expected a positive number of threads, got {}", n);
  omp_set_num_threads(n);
  use_one_thread_pool();
}

void use_one_thread_pool() {
  // OpenBLAS runs each call on the calling thread; Ember's kernels split the work over OpenMP's
  // threads themselves (core/cpu/matmul.cpp), so only one pool ever runs.
  openblas_set_num_threads(1);
}

int get_num_threads() { return omp_get_max_threads(); }

void warn_cpu_environment() {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  const char* quiet = std::getenv("EMBER_NO_PERF_WARNINGS");
  if (quiet && std::strcmp(quiet, "0") != 0) return;
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  __builtin_cpu_init();
  if (coretype && __builtin_cpu_supports("avx512f") && std::strncmp(coretype, "SkylakeX", 8) != 0 &&
      std::strncmp(coretype, "Cooperlake", 10) != 0 && std::strncmp(coretype, "SapphireRapids", 14) != 0) {
    std::fprintf(stderr,
                 "ember: warning: OPENBLAS_CORETYPE=%s forces OpenBLAS onto older kernels on this AVX-512 CPU "
                 "(about half the matmul speed). Unset it for full speed, or set EMBER_NO_PERF_WARNINGS=1 to "
                 "silence this.\n",
                 coretype);
  }
}

}  // namespace ember
