// Thread-count control shared by OpenMP and OpenBLAS, and the one-time environment warning.
#include "core/threads.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace ember {

int max_num_threads() {
  if (const char* env = std::getenv("EMBER_MAX_THREADS"); env && *env) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(env, &end, 10);
    EMBER_CHECK(*end == '\0' && errno == 0 && v > 0 && v <= INT_MAX,
                "set_num_threads: EMBER_MAX_THREADS='{}' is not a positive integer", env);
    return static_cast<int>(v);
  }
  return kThreadsPerCore * std::max(omp_get_num_procs(), 1);
}

void set_num_threads(int n) {
  const int max = max_num_threads();
  const char* env = std::getenv("EMBER_MAX_THREADS");
  EMBER_CHECK(n > 0 && n <= max,
              "set_num_threads: {} threads is outside the range 1 to {} ({}; the environment "
              "variable EMBER_MAX_THREADS overrides the limit)",
              n, max,
              env && *env ? fmt::format("EMBER_MAX_THREADS={}", env)
                          : fmt::format("{} x the {} cores", kThreadsPerCore, omp_get_num_procs()));
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
