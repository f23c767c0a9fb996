// <torch/torch.h> for Ember (CMake target Ember::torch_compat): libtorch's C++ frontend names mapped
// onto Ember, so that a libtorch program builds against Ember unchanged where it uses what Ember has.
//
//   #include <torch/torch.h>
//   int main() {
//     torch::manual_seed(0);
//     torch::nn::Linear model(4, 3);
//     torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
//     torch::Tensor loss = torch::mse_loss(model(torch::randn({8, 4})), torch::zeros({8, 3}));
//     loss.backward();
//     optimizer.step();
//     std::cout << loss << '\n';   // "0.4103\n[ CPUFloatType{} ]", as libtorch prints it
//   }
//
// Ember's public names already mirror libtorch's, so torch:: *is* ember:: (one using-directive).
// This file adds only what a libtorch program expects and Ember spells differently: libtorch's print
// format, a few libtorch spellings (TORCH_MODULE, torch::mse_loss, at::), torch::save/load onto
// safetensors files, and compile-time errors that name what Ember does not support.
// It is not a second API: everything here forwards to Ember. docs/COMPAT.md lists what is covered.
#pragma once

#include <exception>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <ember/ember.h>

#include "ember_compat/aten_functions.h"

namespace torch {
using namespace ember;
using namespace ember::compat_aten;  // torch::transpose(x, 0, 1), torch::add_out(out, a, b)
}  // namespace torch

// libtorch code also says at::Tensor, at::kFloat.
namespace at {
using namespace ember;
using namespace ember::compat_aten;
}  // namespace at

// ---- names libtorch has in sub-namespaces that Ember keeps one level up ----
// torch::nn and friends *are* Ember's namespaces (a torch::nn of our own would make `nn::` ambiguous
// after `using namespace torch;`), so these aliases are declared there.
namespace ember::autograd {
using ember::tensor_list;
using Variable = ember::Tensor;
}  // namespace ember::autograd
namespace ember::nn::functional {
using ember::one_hot;
}  // namespace ember::nn::functional

// ---- macros ----
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, ImplType) EMBER_MODULE_IMPL(Name, ImplType)
#define FORWARD_HAS_DEFAULT_ARGS(...) EMBER_FORWARD_HAS_DEFAULT_ARGS(__VA_ARGS__)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
// Throws torch::Error (ember::Error) with the parts streamed together, as libtorch's does.
#define TORCH_CHECK(cond, ...)                                                                               \
  do {                                                                                                       \
    if (!(cond)) {                                                                                           \
      ::ember::detail::throw_error(::torch::compat_detail::check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
    }                                                                                                        \
  } while (0)

// libtorch's error type is c10::Error; Ember throws ember::Error (a std::runtime_error).
namespace c10 {
using Error = ember::Error;
using BFloat16 = ember::BFloat16;  // libtorch's bfloat16 element type (at::BFloat16 is ember's, through at)
}  // namespace c10

// ==== nn mappings (issue 19, nn half): c10::str ====
// c10::str(parts...): the parts streamed into one string (modules print in libtorch's format).
namespace c10 {
template <typename... Parts>
std::string str(const Parts&... parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}
}  // namespace c10
// ==== end of nn mappings ====

namespace torch {
namespace compat_detail {

template <typename...>
inline constexpr bool always_false = false;

template <typename... Parts>
std::string check_message(const char* condition, const Parts&... parts) {
  if constexpr (sizeof...(Parts) == 0) {
    return std::string("Expected ") + condition +
           " to be true, but got false.  (Could this error message be improved?  If so, please report an "
           "enhancement request to PyTorch.)";
  } else {
    std::ostringstream os;
    (os << ... << parts);
    return os.str();
  }
}

// Module holders (nn::Linear) and shared pointers to modules.
template <typename V>
concept ModuleHolderType = requires {
  typename V::ContainedType;
}
&&std::is_base_of_v<ember::nn::Module, typename V::ContainedType>;

// libtorch prints tensors in its C++ format, not PyTorch's Python one: select it before main, in
// every program that includes this header (Ember's own printing stays Python's elsewhere).
inline const bool libtorch_print_style = (ember::set_print_style(ember::PrintStyle::LibTorch), true);

}  // namespace compat_detail

// ---- losses libtorch also offers as torch:: functions (reduction as torch::Reduction::Mean) ----
inline Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::mse_loss(input, target, nn::functional::MSELossFuncOptions(reduction));
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::l1_loss(input, target, nn::functional::L1LossFuncOptions(reduction));
}
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean,
                             double beta = 1.0) {
  return nn::functional::smooth_l1_loss(input, target, nn::functional::SmoothL1LossFuncOptions(reduction).beta(beta));
}
// Class weights (`weight`) are not supported: pass an undefined tensor ({}).
inline Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                 Reduction reduction = kMean, int64_t ignore_index = -100,
                                 double label_smoothing = 0.0) {
  EMBER_CHECK(!weight.defined(), "torch::cross_entropy_loss: class weights are not supported by Ember");
  return nn::functional::cross_entropy(input, target,
                                       nn::functional::CrossEntropyFuncOptions()
                                           .reduction(reduction)
                                           .ignore_index(ignore_index)
                                           .label_smoothing(label_smoothing));
}

// ---- torch::save / torch::load ----
// Same calls as libtorch, but the file is a safetensors file (nn/serialize.h), not libtorch's zip
// archive: Ember writes and reads its own files, never a libtorch .pt file. Supported values: a
// Tensor, a std::vector<Tensor>, a module (holder or shared_ptr), an optimizer.
template <typename Value>
void save(const Value& value, const std::string& path) {
  if constexpr (std::is_same_v<Value, Tensor>) {
    save_safetensors(path, {{"tensor", value}});
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    NamedTensors named;
    for (size_t i = 0; i < value.size(); ++i) named.emplace_back(std::to_string(i), value[i]);
    save_safetensors(path, named);
  } else if constexpr (compat_detail::ModuleHolderType<Value>) {
    nn::save(static_cast<const nn::Module&>(*value), path);
  } else if constexpr (std::is_base_of_v<optim::Optimizer, Value>) {
    value.save(path);
  } else {
    static_assert(compat_detail::always_false<Value>,
                  "torch::save: Ember saves a Tensor, a std::vector<Tensor>, an nn module or an optimizer");
  }
}

template <typename Value>
void load(Value& value, const std::string& path) {
  if constexpr (std::is_same_v<Value, Tensor>) {
    value = load_safetensors(path).at("tensor");
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    SafetensorsFile file = load_safetensors(path);
    value.clear();
    for (size_t i = 0; file.contains(std::to_string(i)); ++i) value.push_back(file.at(std::to_string(i)));
  } else if constexpr (compat_detail::ModuleHolderType<Value>) {
    nn::load(static_cast<nn::Module&>(*value), path);
  } else if constexpr (std::is_base_of_v<optim::Optimizer, Value>) {
    value.load(path);
  } else {
    static_assert(compat_detail::always_false<Value>,
                  "torch::load: Ember loads a Tensor, a std::vector<Tensor>, an nn module or an optimizer");
  }
}

// ==== nn mappings (issue 19, nn half): stream save/load, c10::str ====
// torch::save / torch::load through a std::ostream / std::istream: the same bytes as the file
// (a safetensors file), and the same values as the overloads above.
template <typename Value>
void save(const Value& value, std::ostream& stream) {
  if constexpr (std::is_same_v<Value, Tensor>) {
    save_safetensors(stream, {{"tensor", value}});
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    NamedTensors named;
    for (size_t i = 0; i < value.size(); ++i) named.emplace_back(std::to_string(i), value[i]);
    save_safetensors(stream, named);
  } else if constexpr (compat_detail::ModuleHolderType<Value>) {
    nn::save(static_cast<const nn::Module&>(*value), stream);
  } else {
    static_assert(compat_detail::always_false<Value>,
                  "torch::save to a stream: Ember saves a Tensor, a std::vector<Tensor> or an nn module");
  }
}

template <typename Value>
void load(Value& value, std::istream& stream) {
  if constexpr (std::is_same_v<Value, Tensor>) {
    value = load_safetensors(stream).at("tensor");
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    SafetensorsFile file = load_safetensors(stream);
    value.clear();
    for (size_t i = 0; file.contains(std::to_string(i)); ++i) value.push_back(file.at(std::to_string(i)));
  } else if constexpr (compat_detail::ModuleHolderType<Value>) {
    nn::load(static_cast<nn::Module&>(*value), stream);
  } else {
    static_assert(compat_detail::always_false<Value>,
                  "torch::load from a stream: Ember loads a Tensor, a std::vector<Tensor> or an nn module");
  }
}
// ==== end of nn mappings ====

// ---- what Ember does not support: using it stops the build with a message naming it ----
// A dtype Ember lacks. The conversion (to TensorOptions, as torch::ones({2}, torch::kHalf) or
// x.to(torch::kHalf) need) is what fails, so merely including this header costs nothing.
#define EMBER_TORCH_UNSUPPORTED_DTYPE(name)                                                                    \
  template <typename = void>                                                                                   \
  struct name##_is_not_supported {                                                                             \
    operator TensorOptions() const {                                                                           \
      static_assert(compat_detail::always_false<name##_is_not_supported>,                                      \
                    "torch::" #name                                                                            \
                    ": Ember has kFloat32, kFloat64, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8 and kBool"); \
      std::terminate();                                                                                        \
    }                                                                                                          \
    /* as a ScalarType too: torch::dtype(torch::kInt32), x.scalar_type() == torch::kInt32 */                   \
    operator ScalarType() const {                                                                              \
      static_assert(compat_detail::always_false<name##_is_not_supported>,                                      \
                    "torch::" #name                                                                            \
                    ": Ember has kFloat32, kFloat64, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8 and kBool"); \
      std::terminate();                                                                                        \
    }                                                                                                          \
  };                                                                                                           \
  inline constexpr name##_is_not_supported<> name {}

EMBER_TORCH_UNSUPPORTED_DTYPE(kHalf);
EMBER_TORCH_UNSUPPORTED_DTYPE(kFloat16);
EMBER_TORCH_UNSUPPORTED_DTYPE(kComplexFloat);
EMBER_TORCH_UNSUPPORTED_DTYPE(kComplexDouble);
#undef EMBER_TORCH_UNSUPPORTED_DTYPE

// TorchScript: a whole subsystem Ember does not have. (torch::data is ember::data, data/data.h.)
namespace jit {
template <typename... Args>
void load(Args&&...) {
  static_assert(compat_detail::always_false<Args...>,
                "torch::jit::load: Ember has no TorchScript; save weights with torch::save and build the model in C++");
}
}  // namespace jit

}  // namespace torch

// ---- activations and losses of nn/activation_more.h and nn/loss.h as ATen's torch:: functions ----
// (The modules, options and nn::functional calls need nothing here: torch::nn is ember::nn.)
// Reductions as torch::Reduction::Mean / Sum / None, argument order and defaults as ATen's.
namespace torch {
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   Reduction reduction = kMean) {
  return nn::functional::binary_cross_entropy(
      input, target, nn::functional::BinaryCrossEntropyFuncOptions().weight(weight).reduction(reduction));
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                               const Tensor& pos_weight = {}, Reduction reduction = kMean) {
  return nn::functional::binary_cross_entropy_with_logits(input, target,
                                                          nn::functional::BinaryCrossEntropyWithLogitsFuncOptions()
                                                              .weight(weight)
                                                              .pos_weight(pos_weight)
                                                              .reduction(reduction));
}
inline Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = kMean, bool log_target = false) {
  return nn::functional::kl_div(input, target, nn::functional::KLDivFuncOptions(reduction).log_target(log_target));
}
inline Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double delta = 1.0) {
  return nn::functional::huber_loss(input, target, nn::functional::HuberLossFuncOptions(reduction).delta(delta));
}
inline Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                                  Reduction reduction = kMean) {
  return nn::functional::margin_ranking_loss(
      input1, input2, target, nn::functional::MarginRankingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                                   Reduction reduction = kMean) {
  return nn::functional::hinge_embedding_loss(
      input, target, nn::functional::HingeEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                    double margin = 0.0, Reduction reduction = kMean) {
  return nn::functional::cosine_embedding_loss(
      input1, input2, target, nn::functional::CosineEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                  double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                                  Reduction reduction = kMean) {
  return nn::functional::triplet_margin_loss(
      anchor, positive, negative,
      nn::functional::TripletMarginLossFuncOptions().margin(margin).p(p).eps(eps).swap(swap).reduction(reduction));
}
inline Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                               Reduction reduction) {
  return nn::functional::poisson_nll_loss(
      input, target,
      nn::functional::PoissonNLLLossFuncOptions().log_input(log_input).full(full).eps(eps).reduction(reduction));
}
inline Tensor softplus(const Tensor& input, double beta = 1, double threshold = 20) {
  return nn::functional::softplus(input, nn::functional::SoftplusFuncOptions().beta(beta).threshold(threshold));
}
inline Tensor elu(const Tensor& input, double alpha = 1) {
  return nn::functional::elu(input, nn::functional::ELUFuncOptions().alpha(alpha));
}
inline Tensor selu(const Tensor& input) { return nn::functional::selu(input); }
inline Tensor celu(const Tensor& input, double alpha = 1) {
  return nn::functional::celu(input, nn::functional::CELUFuncOptions().alpha(alpha));
}
inline Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01) {
  return nn::functional::leaky_relu(input, nn::functional::LeakyReLUFuncOptions().negative_slope(negative_slope));
}
inline Tensor prelu(const Tensor& input, const Tensor& weight) { return nn::functional::prelu(input, weight); }
inline Tensor hardtanh(const Tensor& input, double min_val = -1, double max_val = 1) {
  return nn::functional::hardtanh(input, nn::functional::HardtanhFuncOptions().min_val(min_val).max_val(max_val));
}
inline Tensor threshold(const Tensor& input, double threshold, double value) {
  return nn::functional::threshold(input, nn::functional::ThresholdFuncOptions(threshold, value));
}
inline Tensor log_sigmoid(const Tensor& input) { return nn::functional::logsigmoid(input); }
inline Tensor silu(const Tensor& input) { return nn::functional::silu(input); }
inline Tensor mish(const Tensor& input) { return nn::functional::mish(input); }
}  // namespace torch
// ==== compat-core (issue 19): errors, warnings, default dtype, ArrayRef ====
// Errors: c10::Error is ember::Error (above), so Ember's own exceptions are caught as c10::Error and
// torch::Error; what() is the message (libtorch appends a backtrace, Ember has none).
// Warnings: c10::Warning, c10::WarningHandler and the guard are Ember's (core/error.h); a handler
// may override libtorch 2.x's process(const c10::Warning&) or 1.x's process(loc, msg, verbatim).
namespace c10 {
using ember::ArrayRef;
using ember::IntArrayRef;
using ember::kStrided;
using ember::Layout;
using ember::MemoryFormat;
using ember::Scalar;
using ember::ScalarType;
inline MemoryFormat get_contiguous_memory_format() { return MemoryFormat::Contiguous; }
using std::nullopt;
using std::optional;
using SourceLocation = ember::SourceLocation;
using Warning = ember::Warning;
using WarningHandler = ember::WarningHandler;
// libtorch 2.x's home of the handler functions.
namespace WarningUtils {
using ember::get_warning_handler;
using ember::set_warning_handler;
using ember::WarningHandlerGuard;
inline void set_warnAlways(bool enabled) { ember::set_warn_always(enabled); }
inline bool get_warnAlways() { return ember::get_warn_always(); }
}  // namespace WarningUtils
inline void warn(const Warning& warning) { ember::warn(warning); }
}  // namespace c10

namespace torch::compat_detail {
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}
}  // namespace torch::compat_detail

// TORCH_WARN("x is ", x): the parts streamed together, to the current warning handler.
#define TORCH_WARN(...)                                                                                        \
  ::ember::warn(::ember::Warning(::ember::SourceLocation{__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, \
                                 ::torch::compat_detail::concat(__VA_ARGS__), false))
// Once per call site, unless warnAlways is set (as libtorch).
#define TORCH_WARN_ONCE(...)                                            \
  if (::ember::get_warn_always()) {                                     \
    TORCH_WARN(__VA_ARGS__);                                            \
  } else {                                                              \
    [[maybe_unused]] static const bool ember_torch_warned_once_ = [&] { \
      TORCH_WARN(__VA_ARGS__);                                          \
      return true;                                                      \
    }();                                                                \
  }
// libtorch's message: `cond INTERNAL ASSERT FAILED at "file":line, please report a bug to PyTorch. ` + parts.
#define EMBER_TORCH_STRINGIZE_(x) #x
#define EMBER_TORCH_STRINGIZE(x) EMBER_TORCH_STRINGIZE_(x)
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                                 \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      ::ember::detail::throw_error(::torch::compat_detail::concat(                                       \
          #cond " INTERNAL ASSERT FAILED at " EMBER_TORCH_STRINGIZE(__FILE__) ":" EMBER_TORCH_STRINGIZE( \
              __LINE__) ", please report a bug to PyTorch. " __VA_OPT__(, ) __VA_ARGS__));               \
    }                                                                                                    \
  } while (0)
// libtorch 1.x's older spellings, still in tutorials (the MNIST example's AT_ASSERT).
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#ifndef AT_ERROR
#define AT_ERROR(...) ::ember::detail::throw_error(::torch::compat_detail::concat(__VA_ARGS__))
#endif

// torch::InferenceMode: a scope without autograd recording (Ember has no separate inference
// tensors: inside it, results need no grad, as NoGradGuard's do). InferenceMode(false) is a no-op.
namespace c10 {
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : previous_(ember::GradMode::is_enabled()), previous_inference_(active()) {
    if (enabled) {
      ember::GradMode::set_enabled(false);
      active() = true;
    }
  }
  ~InferenceMode() {
    ember::GradMode::set_enabled(previous_);
    active() = previous_inference_;
  }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return active(); }

 private:
  static bool& active() {
    thread_local bool value = false;
    return value;
  }
  bool previous_;
  bool previous_inference_;
};
}  // namespace c10
namespace torch {
using c10::InferenceMode;
using c10::str;
using ember::nll_loss;
// ATen's nll_loss(self, target, weight, reduction, ignore_index), as the MNIST example calls it:
// torch::nll_loss(output, targets, /*weight=*/{}, at::Reduction::Sum). Class weights are not supported.
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction = kMean,
                       int64_t ignore_index = -100) {
  EMBER_CHECK(!weight.defined(), "torch::nll_loss: class weights are not supported by Ember");
  return ember::nll_loss(input, target, reduction, ignore_index);
}
}  // namespace torch
namespace at {
using torch::nll_loss;
}  // namespace at

// The default dtype: libtorch passes a caffe2::TypeMeta; Ember's TypeMeta converts to and from its
// ScalarType, so torch::set_default_dtype(caffe2::TypeMeta::Make<double>()) lands in
// ember::set_default_dtype. torch::get_default_dtype() returns Ember's ScalarType (prints float64).
namespace caffe2 {
class TypeMeta {
 public:
  TypeMeta() = default;
  TypeMeta(ember::ScalarType type) : type_(type) {}     // NOLINT: implicit
  operator ember::ScalarType() const { return type_; }  // NOLINT
  template <typename T>
  static TypeMeta Make() {
    return TypeMeta(ember::dtype_of<T>::value);
  }
  ember::ScalarType toScalarType() const { return type_; }
  size_t itemsize() const { return ember::element_size(type_); }
  // libtorch's names: "float", "double", "long int", "bool", "c10::BFloat16".
  std::string_view name() const {
    switch (type_) {
      case ember::kFloat32:
        return "float";
      case ember::kFloat64:
        return "double";
      case ember::kInt64:
        return "long int";
      case ember::kBool:
        return "bool";
      case ember::kBFloat16:
        return "c10::BFloat16";
    }
    return "?";
  }

 private:
  ember::ScalarType type_ = ember::kFloat32;
};
inline std::ostream& operator<<(std::ostream& os, const TypeMeta& t) { return os << t.name(); }
}  // namespace caffe2

namespace ember {
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType type) { return type; }
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta meta) { return meta.toScalarType(); }
inline ScalarType get_default_dtype_as_scalartype() { return get_default_dtype(); }
// libtorch's at::TensorList: torch::cat(list) takes it through the conversion to tensor_list.
using TensorList = ArrayRef<Tensor>;
}  // namespace ember

// ==== data (issue 23): torch::data is ember::data (data/data.h) ====
// libtorch's datasets return torch::optional<size_t> from size() (c10::optional); Ember's, std::optional.
namespace torch {
using std::nullopt;
using std::optional;
}  // namespace torch

// ==== pooling (issue 23): ATen's torch::max_pool2d and friends, on nn::functional's ====
// An IntArrayRef of one value stands for that value in each dim, and an empty stride for the kernel
// size, as ATen reads them.
namespace torch::compat_detail {
template <size_t D>
ember::ExpandingArray<D> expand_pool_arg(ember::IntArrayRef values, ember::IntArrayRef fallback) {
  if (values.empty()) values = fallback;
  return values.size() == 1 ? ember::ExpandingArray<D>(values[0]) : ember::ExpandingArray<D>(values.vec());
}
}  // namespace torch::compat_detail
namespace torch {
inline Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::expand_pool_arg;
  return nn::functional::max_pool1d(input, nn::MaxPool1dOptions(expand_pool_arg<1>(kernel_size, {}))
                                               .stride(expand_pool_arg<1>(stride, kernel_size))
                                               .padding(expand_pool_arg<1>(padding, {}))
                                               .dilation(expand_pool_arg<1>(dilation, {}))
                                               .ceil_mode(ceil_mode));
}
inline Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::expand_pool_arg;
  return nn::functional::max_pool2d(input, nn::MaxPool2dOptions(expand_pool_arg<2>(kernel_size, {}))
                                               .stride(expand_pool_arg<2>(stride, kernel_size))
                                               .padding(expand_pool_arg<2>(padding, {}))
                                               .dilation(expand_pool_arg<2>(dilation, {}))
                                               .ceil_mode(ceil_mode));
}
inline Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  using compat_detail::expand_pool_arg;
  return nn::functional::avg_pool2d(input, nn::AvgPool2dOptions(expand_pool_arg<2>(kernel_size, {}))
                                               .stride(expand_pool_arg<2>(stride, kernel_size))
                                               .padding(expand_pool_arg<2>(padding, {}))
                                               .ceil_mode(ceil_mode)
                                               .count_include_pad(count_include_pad)
                                               .divisor_override(divisor_override));
}
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool2d(
      input, nn::AdaptiveAvgPool2dOptions(compat_detail::expand_pool_arg<2>(output_size, {})));
}
}  // namespace torch

// ==== indexing: torch::indexing / at::indexing are ember::indexing (core/indexing.h) through the
// using-directives above; c10::List<c10::optional<Tensor>> is ATen's index list, a std::vector here ====
namespace c10 {
template <typename T>
using List = std::vector<T>;
}  // namespace c10
