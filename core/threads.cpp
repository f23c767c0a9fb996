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
#include <string_view>

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

namespace detail {

namespace {

// OpenBLAS's x86-64 kernel sets from before AVX (DYNAMIC_ARCH's fallbacks).
bool is_pre_avx_core(const char* core) {
  for (const char* old : {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Opteron", "Barcelona",
                          "Bobcat", "Katmai", "Coppermine", "Northwood"})
    if (std::strcmp(core, old) == 0) return true;
  return false;
}

}  // namespace

std::string cpu_environment_warning(const char* coretype_env, const char* openblas_core, bool avx512, bool avx2) {
  const std::string_view forced = coretype_env ? coretype_env : "";
  if (coretype_env && avx512 && !forced.starts_with("SkylakeX") && !forced.starts_with("Cooperlake") &&
      !forced.starts_with("SapphireRapids"))
    return fmt::format(
        "ember: warning: OPENBLAS_CORETYPE={} forces OpenBLAS onto older kernels on this AVX-512 CPU (about half "
        "the matmul speed). Unset it for full speed, or set EMBER_NO_PERF_WARNINGS=1 to silence this.\n",
        coretype_env);
  // An OpenBLAS older than the CPU (Debian 12's 0.3.21 on an Emerald Rapids Xeon, family 6 model
  // 207) does not recognise it and falls back to its SSE3 kernels: about an eighth of the float32
  // product speed of its AVX-512 ones, measured on that Xeon.
  if (!coretype_env && openblas_core && (avx512 || avx2) && is_pre_avx_core(openblas_core))
    return fmt::format(
        "ember: warning: OpenBLAS does not recognise this CPU and runs its {} (pre-AVX) kernels: float32 "
        "products run at a fraction of the CPU's speed (an eighth on an AVX-512 Xeon). Set "
        "OPENBLAS_CORETYPE={} (or install a newer OpenBLAS), or set EMBER_NO_PERF_WARNINGS=1 to silence this.\n",
        openblas_core, avx512 ? "SkylakeX" : "Haswell");
  return "";
}

}  // namespace detail

void warn_cpu_environment() {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  const char* quiet = std::getenv("EMBER_NO_PERF_WARNINGS");
  if (quiet && std::strcmp(quiet, "0") != 0) return;
  __builtin_cpu_init();
  const std::string warning =
      detail::cpu_environment_warning(std::getenv("OPENBLAS_CORETYPE"), openblas_get_corename(),
                                      __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx2"));
  if (!warning.empty()) std::fputs(warning.c_str(), stderr);
}

}  // namespace ember
