// The autocast state (per thread, as PyTorch's) and the two casts its ops apply (autograd/autocast.h).
#include "autograd/autocast.h"

#include <unordered_map>

#include "autograd/grad_mode.h"
#include "core/error.h"

namespace ember {

namespace {
// A weight's bf16 copy, made once per scope: `source` is held so its address is not reused while
// the entry lives, and `version` is its version counter when cast (an in-place update since, such
// as an optimizer step, makes the entry stale).
struct CachedCast {
  Tensor source;
  uint32_t version;
  Tensor cast;
};
struct AutocastState {
  bool enabled = false;
  ScalarType dtype = kBFloat16;  // torch 1.13's default CPU autocast dtype
  int nesting = 0;
  std::unordered_map<const void*, CachedCast> cache;  // by the source's TensorImpl
};
thread_local AutocastState g_state;
}  // namespace

autocast::autocast(DeviceType device, ScalarType dtype, bool enabled)
    : previous_enabled_(g_state.enabled), previous_dtype_(g_state.dtype) {
  EMBER_CHECK(device == kCPU,
              "autocast: only the CPU is supported (device_type 'cpu' with bfloat16); Ember has no CUDA autocast");
  set_autocast_cpu_dtype(dtype);
  g_state.enabled = enabled;
  ++g_state.nesting;
}

autocast::~autocast() {
  g_state.enabled = previous_enabled_;
  g_state.dtype = previous_dtype_;
  if (--g_state.nesting == 0) clear_cache();  // as torch.autocast's __exit__ on leaving the outermost scope
}

bool autocast::is_cpu_enabled() { return g_state.enabled; }
void autocast::set_cpu_enabled(bool enabled) { g_state.enabled = enabled; }
ScalarType autocast::get_autocast_cpu_dtype() { return g_state.dtype; }
void autocast::set_autocast_cpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kBFloat16,
              "autocast: in CPU autocast, but the target dtype is not supported; CPU autocast only supports "
              "bfloat16, got {}",
              dtype_name(dtype));
  g_state.dtype = dtype;
}
int autocast::increment_nesting() { return ++g_state.nesting; }
int autocast::decrement_nesting() { return --g_state.nesting; }
void autocast::clear_cache() { g_state.cache.clear(); }
size_t autocast::cache_size() { return g_state.cache.size(); }

namespace autograd {

namespace {
// torch 1.13's is_eligible: a defined floating-point tensor on the device, float64 excepted.
bool eligible(const Tensor& x) {
  return g_state.enabled && x.defined() && x.is_cpu() && x.is_floating_point() && x.dtype() != kFloat64;
}
}  // namespace

Tensor autocast_to_lower(const Tensor& x) {
  if (!eligible(x) || x.dtype() == g_state.dtype) return x;
  // torch 1.13's cached_cast: float32 leaves that require grad (the weights) are cast once per
  // scope; activations, which change every call, are not. Casts made without grad mode are not
  // kept, since they carry no graph back to the weight.
  if (!(x.dtype() == kFloat32 && x.requires_grad() && x.is_leaf())) return x.to(g_state.dtype);
  auto it = g_state.cache.find(x.unsafeGetTensorImpl());
  if (it != g_state.cache.end() && it->second.version == x._version()) return it->second.cast;
  Tensor cast = x.to(g_state.dtype);
  if (GradMode::is_enabled()) g_state.cache[x.unsafeGetTensorImpl()] = {x, x._version(), cast};
  return cast;
}

Tensor autocast_to_float32(const Tensor& x) {
  if (!eligible(x) || x.dtype() == kFloat32) return x;
  return x.to(kFloat32);
}

}  // namespace autograd

}  // namespace ember
