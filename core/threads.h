// Threads for CPU kernels, as torch::set_num_threads: one knob for OpenMP and OpenBLAS together.
//
//   ember::set_num_threads(2);
//
// OpenMP's pool does all the threading; OpenBLAS runs single-threaded inside it, so the two
// pools never spin against each other.
// warn_cpu_environment() tells the user once (to stderr) about settings known to cost speed on
// this CPU, e.g. OPENBLAS_CORETYPE=Haswell on an AVX-512 machine, or an OpenBLAS too old to know
// the CPU; EMBER_NO_PERF_WARNINGS=1 silences it.
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
void warn_cpu_environment();

namespace detail {
// The text warn_cpu_environment prints ("" for none), from OPENBLAS_CORETYPE (null: unset), the
// kernels OpenBLAS chose (openblas_get_corename()) and the CPU's vector extensions.
std::string cpu_environment_warning(const char* coretype_env, const char* openblas_core, bool avx512, bool avx2);
}  // namespace detail

}  // namespace ember
