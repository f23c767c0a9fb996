// The CUDA backend of a build without CUDA: every kernel throws "built without CUDA support".
//
// Linked instead of cuda/*.cu and cuda/*.cpp when EMBER_CUDA is OFF (or AUTO found no nvcc), so code that asks
// for a CUDA tensor gets a clear error instead of a link failure or an #ifdef in its own code.
#include "core/generator.h"
#include "cuda/cuda.h"
#include "cuda/unavailable.h"

namespace ember {

Backend& cuda_backend() {
  static cuda::UnavailableBackend stub(
      "CUDA: Ember was built without CUDA support; rebuild with -DEMBER_CUDA=ON on a machine with the CUDA "
      "Toolkit, or use device cpu");
  return stub;
}

namespace cuda {
bool is_available() { return false; }
int device_count() { return 0; }
void synchronize() {}
void manual_seed(uint64_t seed) { philox_manual_seed(seed); }
size_t memory_allocated(int) { return 0; }
size_t max_memory_allocated(int) { return 0; }
size_t memory_reserved(int) { return 0; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}
void set_allow_tf32(bool) {}
bool allow_tf32() { return false; }
}  // namespace cuda

}  // namespace ember
