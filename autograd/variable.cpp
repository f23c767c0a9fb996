// The autograd side of Tensor: requires_grad, grad, grad_fn, backward, detach, hooks, names.
#include <atomic>

#include "autograd/autograd.h"
#include "core/shape.h"

namespace ember {

using autograd::AutogradMeta;
using autograd::ensure_meta;
using autograd::meta;

namespace {
std::atomic<unsigned> next_hook_id{1};
}  // namespace

bool Tensor::requires_grad() const {
  AutogradMeta* m = meta(*this);
  return m && (m->requires_grad || m->grad_fn);
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  AutogradMeta* m = meta(*this);
  if (m && m->grad_fn) {
    EMBER_CHECK(requires_grad,
                "requires_grad_: you can only change requires_grad flags of leaf variables. If you "
                "want to use a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().");
    return *this;
  }
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "requires_grad_: only Tensors of floating point dtype can require gradients (got {})",
              dtype_name(dtype()));
  ensure_meta(*this).requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  AutogradMeta* m = meta(*this);
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() const { return ensure_meta(*this).grad; }

void Tensor::set_grad(const Tensor& g) const {
  EMBER_CHECK(!g.defined() || g.sizes() == sizes(), "set_grad: assigned grad has shape {} but the tensor has shape {}",
              g.defined() ? g.sizes() : IntArrayRef{}, sizes());
  ensure_meta(*this).grad = g;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  AutogradMeta* m = meta(*this);
  return m ? m->grad_fn : nullptr;
}

std::string Tensor::grad_fn_name() const {
  AutogradMeta* m = meta(*this);
  return m && m->grad_fn ? m->grad_fn->name() : std::string();
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

bool Tensor::is_view() const {
  AutogradMeta* m = meta(*this);
  return m != nullptr && m->view_base.defined();
}

uint32_t Tensor::output_nr() const {
  AutogradMeta* m = meta(*this);
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<tensor_list> inputs) const {
  EMBER_CHECK(!inputs || !inputs->empty(), "'inputs' argument to backward cannot be empty");
  autograd::backward({*this}, gradient.defined() ? tensor_list{gradient} : tensor_list{}, retain_graph, create_graph,
                     inputs.value_or(tensor_list{}));
}

Tensor Tensor::detach() const { return raw_view(*this, sizes().vec(), strides().vec(), storage_offset()); }

Tensor& Tensor::detach_() {
  if (AutogradMeta* m = meta(*this)) {
    m->grad_fn = nullptr;
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return *this;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep their grad anyway
  AutogradMeta& m = ensure_meta(*this);
  if (m.retains_grad) return;
  m.retains_grad = true;
  // Keep only a weak link from the hook (on our own grad_fn) back to this tensor's metadata.
  std::weak_ptr<AutogradMeta> weak = unsafeGetTensorImpl()->autograd;
  m.grad_fn->pre_hooks[m.output_nr].emplace_back(0, [weak](const Tensor& g) {
    if (auto mm = weak.lock()) {
      NoGradGuard no_grad;
      mm->grad = mm->grad.defined() ? mm->grad + g : g.clone();
    }
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = meta(*this);
  return m && m->retains_grad;
}

unsigned Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  const unsigned id = next_hook_id++;
  AutogradMeta& m = ensure_meta(*this);
  if (m.grad_fn) {
    m.grad_fn->pre_hooks[m.output_nr].emplace_back(id, std::move(hook));
  } else {
    m.leaf_hooks.emplace_back(id, std::move(hook));
  }
  return id;
}

void Tensor::remove_hook(unsigned handle) const {
  AutogradMeta* m = meta(*this);
  if (!m) return;
  auto drop = [handle](auto& hooks) { std::erase_if(hooks, [handle](const auto& h) { return h.first == handle; }); };
  drop(m->leaf_hooks);
  if (m->grad_fn)
    for (auto& [nr, hooks] : m->grad_fn->pre_hooks) drop(hooks);
}

const Tensor& Tensor::set_name(const std::string& name) const {
  ensure_meta(*this).name = name;
  return *this;
}

std::string Tensor::name() const {
  AutogradMeta* m = meta(*this);
  return m ? m->name : std::string();
}

namespace autograd {
Tensor make_variable(const Tensor& data, bool requires_grad) {
  EMBER_CHECK(data.defined(), "make_variable: the data is an undefined tensor");
  Tensor t = data.detach();
  if (requires_grad) t.requires_grad_(true);
  return t;
}
}  // namespace autograd

}  // namespace ember
