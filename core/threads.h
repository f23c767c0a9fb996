// Threads for CPU kernels, as torch::set_num_threads: one knob for OpenMP and OpenBLAS together.
//
//   ember::set_num_threads(2);
//
// OpenMP's pool does all the threading; OpenBLAS runs single-threaded inside it, so the two
// pools never spin against each other.
// choose_openblas_kernels() runs when the CPU backend starts: where OpenBLAS is older than the CPU
// (Debian 12's 0.3.21 on an Emerald Rapids Xeon) and fell back to its pre-AVX kernels, it restarts
// OpenBLAS with its AVX-512 (or AVX2) ones, as OPENBLAS_CORETYPE would; not when OPENBLAS_CORETYPE
// or EMBER_KEEP_OPENBLAS_KERNELS=1 is set. warn_cpu_environment() tells the user once (to stderr)
// about settings known to cost speed on this CPU, e.g. OPENBLAS_CORETYPE=Haswell on an AVX-512
// machine; EMBER_NO_PERF_WARNINGS=1 silences it.
#pragma once

#include <string>

namespace ember {

// Threads a CPU kernel may use: 1 to max_num_threads(), else an ember::Error naming the range
// (a huge count would make OpenMP try to start that many threads and crash).
void set_num_threads(int n);
// The most set_num_threads accepts: kThreadsPerCore x the cores this process may run on, or the
// value of the environment variable EMBER_MAX_THREADS when it is set (a positive integer).
int max_num_threads();
inline constexpr int kThreadsPerCore = 4;
// Keeps OpenBLAS single-threaded, so OpenMP's pool is the only one (called when the CPU backend
// starts, and by set_num_threads). Matmuls are split across OpenMP's threads by Ember.
void use_one_thread_pool();
int get_num_threads();
void choose_openblas_kernels();
void warn_cpu_environment();

namespace detail {
// The text warn_cpu_environment prints ("" for none), from OPENBLAS_CORETYPE (null: unset), the
// kernels OpenBLAS chose (openblas_get_corename()) and the CPU's vector extensions.
std::string cpu_environment_warning(const char* coretype_env, const char* openblas_core, bool avx512, bool avx2);
// The kernel set choose_openblas_kernels asks OpenBLAS for ("SkylakeX", "Haswell"), or null to keep
// its choice: OPENBLAS_CORETYPE and EMBER_KEEP_OPENBLAS_KERNELS unset (null), OpenBLAS on a pre-AVX
// set (openblas_core), and the CPU with AVX-512 or AVX2.
const char* better_openblas_core(const char* coretype_env, const char* keep_env, const char* openblas_core,
                                 bool avx512, bool avx2);
// The kernel set OpenBLAS runs now (openblas_get_corename()).
const char* openblas_kernels();
}  // namespace detail

}  // namespace ember
