// The autocast state (per thread and per device, as PyTorch's), the op table's lookups and the
// casts an op on the lists applies (autograd/autocast.h).
#include "autograd/autocast.h"

#include <unordered_map>

#include "autograd/grad_mode.h"
#include "core/dtype.h"
#include "core/error.h"

namespace ember {

namespace {
// A weight's low-precision copy, made once per scope: `source` is held so its address is not
// reused while the entry lives, and `version` is its version counter when cast (an in-place update
// since, such as an optimizer step, makes the entry stale).
struct CachedCast {
  Tensor source;
  uint32_t version;
  Tensor cast;
};
struct DeviceState {
  bool enabled = false;
  ScalarType dtype;
};
struct AutocastState {
  DeviceState cpu{false, kBFloat16};  // torch's default CPU autocast dtype
  DeviceState cuda{false, kHalf};     // and its default GPU one
  bool excluded = false;              // inside an op on the lists, or a backward pass
  int nesting = 0;
  std::unordered_map<const void*, CachedCast> cache;  // by the source's TensorImpl
};
thread_local AutocastState g_state;

DeviceState& state_of(DeviceType device) { return device == kCPU ? g_state.cpu : g_state.cuda; }
}  // namespace

autocast::autocast(DeviceType device, std::optional<ScalarType> dtype, bool enabled)
    : device_(device), previous_enabled_(state_of(device).enabled), previous_dtype_(state_of(device).dtype) {
  if (dtype) {
    if (device == kCPU)
      set_autocast_cpu_dtype(*dtype);
    else
      set_autocast_gpu_dtype(*dtype);
  }
  state_of(device).enabled = enabled;
  ++g_state.nesting;
}

autocast::~autocast() {
  DeviceState& s = state_of(device_);
  s.enabled = previous_enabled_;
  s.dtype = previous_dtype_;
  if (--g_state.nesting == 0) clear_cache();  // as torch.autocast's __exit__ on leaving the outermost scope
}

bool autocast::is_enabled() { return g_state.cuda.enabled; }
void autocast::set_enabled(bool enabled) { g_state.cuda.enabled = enabled; }
bool autocast::is_cpu_enabled() { return g_state.cpu.enabled; }
void autocast::set_cpu_enabled(bool enabled) { g_state.cpu.enabled = enabled; }
bool autocast::is_enabled(DeviceType device) { return state_of(device).enabled; }
ScalarType autocast::get_autocast_gpu_dtype() { return g_state.cuda.dtype; }
void autocast::set_autocast_gpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kBFloat16 || dtype == kHalf,
              "autocast: in CUDA autocast, but the target dtype is not supported; CUDA autocast supports float16 "
              "and bfloat16, got {}",
              dtype_name(dtype));
  g_state.cuda.dtype = dtype;
}
ScalarType autocast::get_autocast_cpu_dtype() { return g_state.cpu.dtype; }
void autocast::set_autocast_cpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kBFloat16,
              "autocast: in CPU autocast, but the target dtype is not supported; CPU autocast only supports "
              "bfloat16, got {}",
              dtype_name(dtype));
  g_state.cpu.dtype = dtype;
}
int autocast::increment_nesting() { return ++g_state.nesting; }
int autocast::decrement_nesting() { return --g_state.nesting; }
void autocast::clear_cache() { g_state.cache.clear(); }
size_t autocast::cache_size() { return g_state.cache.size(); }

namespace autograd {

namespace {
struct OpRow {
  const char* name;
  CastPolicy cpu, cuda;
};
constexpr OpRow kOps[] = {
#define EMBER_AUTOCAST_ROW(op, cpu, cuda) {#op, CastPolicy::cpu, CastPolicy::cuda},
    EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_ROW)
#undef EMBER_AUTOCAST_ROW
};

// torch's is_eligible: a defined floating-point tensor on a device whose autocast is on, float64
// excepted.
bool eligible(const Tensor& x) {
  if (!x.defined() || !x.is_floating_point() || x.dtype() == kFloat64) return false;
  if (x.is_cpu()) return g_state.cpu.enabled;
  return x.is_cuda() && g_state.cuda.enabled;
}

ScalarType lower_dtype(const Tensor& x) { return x.is_cpu() ? g_state.cpu.dtype : g_state.cuda.dtype; }

// torch's cached_cast: float32 leaves that require grad (the weights) are cast once per scope;
// activations, which change every call, are not. Casts made without grad mode are not kept, since
// they carry no graph back to the weight.
Tensor cached_lower(const Tensor& x) {
  const ScalarType to = lower_dtype(x);
  if (x.dtype() == to) return x;
  if (!(x.dtype() == kFloat32 && x.requires_grad() && x.is_leaf())) return x.to(to);
  auto it = g_state.cache.find(x.unsafeGetTensorImpl());
  if (it != g_state.cache.end() && it->second.version == x._version() && it->second.cast.dtype() == to)
    return it->second.cast;
  Tensor cast = x.to(to);
  if (GradMode::is_enabled()) g_state.cache[x.unsafeGetTensorImpl()] = {x, x._version(), cast};
  return cast;
}

// The floating dtype every eligible input is cast to under `promote`: the autocast dtype promoted
// with each of theirs, as torch's promote_type.
ScalarType promoted_dtype(const std::vector<std::reference_wrapper<const Tensor>>& inputs, ScalarType lower) {
  ScalarType to = lower;
  for (const Tensor& x : inputs)
    if (eligible(x)) to = promote_types(to, x.dtype());
  return to;
}
}  // namespace

CastPolicy autocast_policy(AutocastOp op, DeviceType device) {
  const OpRow& row = kOps[static_cast<size_t>(op)];
  return device == kCPU ? row.cpu : device == kCUDA ? row.cuda : CastPolicy::none;
}

const char* autocast_op_name(AutocastOp op) { return kOps[static_cast<size_t>(op)].name; }

AutocastCall::AutocastCall(AutocastOp op, std::initializer_list<std::reference_wrapper<const Tensor>> inputs,
                           bool on_list) {
  if (!on_list || g_state.excluded || !(g_state.cpu.enabled || g_state.cuda.enabled)) return;
  apply(op, std::vector<std::reference_wrapper<const Tensor>>(inputs));
}

AutocastCall::AutocastCall(AutocastOp op, const tensor_list& inputs) {
  if (g_state.excluded || !(g_state.cpu.enabled || g_state.cuda.enabled)) return;
  apply(op, std::vector<std::reference_wrapper<const Tensor>>(inputs.begin(), inputs.end()));
}

void AutocastCall::apply(AutocastOp op, const std::vector<std::reference_wrapper<const Tensor>>& inputs) {
  // The op follows the list of its first eligible input's device, as PyTorch's dispatch key does.
  const Tensor* first = nullptr;
  for (const Tensor& x : inputs)
    if (eligible(x)) {
      first = &x;
      break;
    }
  if (first == nullptr) return;
  const CastPolicy policy = autocast_policy(op, first->device().type);
  if (policy == CastPolicy::none) return;
  EMBER_CHECK(policy != CastPolicy::banned,
              "{}: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast. Many "
              "models use a sigmoid layer right before the binary cross entropy layer. In this case, combine the "
              "two layers using torch.nn.functional.binary_cross_entropy_with_logits or torch.nn.BCEWithLogitsLoss. "
              "binary_cross_entropy_with_logits and BCEWithLogits are safe to autocast.",
              autocast_op_name(op));
  const ScalarType promoted = promoted_dtype(inputs, lower_dtype(*first));
  cast_.reserve(inputs.size());
  for (const Tensor& x : inputs) {
    if (!eligible(x)) {
      cast_.push_back(x);
      continue;
    }
    switch (policy) {
      case CastPolicy::lower_precision_fp:
        cast_.push_back(cached_lower(x));
        break;
      case CastPolicy::fp32:
        cast_.push_back(x.dtype() == kFloat32 ? x : x.to(kFloat32));
        break;
      case CastPolicy::promote:
        cast_.push_back(x.dtype() == promoted ? x : x.to(promoted));
        break;
      case CastPolicy::none:
      case CastPolicy::banned:
        cast_.push_back(x);
        break;
    }
  }
  // The op is called again with these inputs and autocast off inside it, as PyTorch's wrappers
  // redispatch below the autocast key: the ops it is composed of keep the dtypes it chose.
  applied_ = true;
  g_state.excluded = true;
}

AutocastCall::~AutocastCall() {
  if (applied_) g_state.excluded = false;
}

AutocastExcluded::AutocastExcluded() : previous_(g_state.excluded) { g_state.excluded = true; }
AutocastExcluded::~AutocastExcluded() { g_state.excluded = previous_; }

Tensor autocast_to_lower(const Tensor& x) {
  if (g_state.excluded || !eligible(x)) return x;
  return cached_lower(x);
}

bool autocast_casts_to_float32(AutocastOp op, const Tensor& x) {
  return !g_state.excluded && eligible(x) && x.dtype() != kFloat32 &&
         autocast_policy(op, x.device().type) == CastPolicy::fp32;
}

}  // namespace autograd

}  // namespace ember
