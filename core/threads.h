// Threads for CPU kernels, as torch::set_num_threads: one knob for OpenMP and OpenBLAS together.
//
//   ember::set_num_threads(2);
//
// Both pools get the same count so they take turns instead of spinning against each other.
// warn_cpu_environment() tells the user once (to stderr) about settings known to cost speed on
// this CPU, e.g. OPENBLAS_CORETYPE=Haswell on an AVX-512 machine; EMBER_NO_PERF_WARNINGS=1 silences it.
#pragma once

namespace ember {

void set_num_threads(int n);
int get_num_threads();
void warn_cpu_environment();

}  // namespace ember
