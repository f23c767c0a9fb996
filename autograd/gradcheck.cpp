// gradcheck and gradgradcheck (see autograd/gradcheck.h): numerical Jacobians by central
// differences, analytical Jacobians by one vector-Jacobian product per output element.
//
// Jacobians are stored per (input, output) pair as a dense row-major matrix of doubles:
// jac[j * n_out + k] = d output_k / d input_j, with j and k flat (row-major) element indices.
// Elements are read and written through 0-dim views at their storage offset, so inputs may
// be non-contiguous and live on any device.
#include "autograd/gradcheck.h"

#include <cmath>

#include "autograd/autograd.h"
#include "core/shape.h"

namespace ember::autograd {

namespace {

using Matrix = std::vector<double>;  // (n_in, n_out), row-major

// The storage offset of flat (row-major) element `flat` of t.
int64_t element_offset(const Tensor& t, int64_t flat) {
  int64_t offset = t.storage_offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (flat % t.size(d)) * t.stride(d);
    flat /= t.size(d);
  }
  return offset;
}

// "[1, 2]": the multi-index of flat element `flat` of a tensor of shape `sizes`.
std::string index_str(IntArrayRef sizes, int64_t flat) {
  std::vector<int64_t> index(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return shape_str(index);
}

Tensor element(const Tensor& t, int64_t flat) { return raw_view(t, {}, {}, element_offset(t, flat)); }

void set_element(const Tensor& t, int64_t flat, double value) {
  NoGradGuard no_grad;  // a perturbation autograd must not see
  element(t, flat).fill_(value);
}

// Outputs that take part in the check: floating-point ones.
bool differentiable(const Tensor& t) { return t.defined() && t.is_floating_point(); }

std::vector<double> values(const Tensor& t) { return t.to(kFloat64).to_vector<double>(); }

tensor_list call(const GradcheckFn& fn, const tensor_list& inputs) {
  tensor_list outs = fn(inputs);
  EMBER_CHECK(std::any_of(outs.begin(), outs.end(), differentiable),
              "gradcheck: the function returned no floating-point output to check ({} outputs)", outs.size());
  return outs;
}

// numerical[i][o]: Jacobian of output o with respect to input i (empty for inputs not checked).
std::vector<std::vector<Matrix>> numerical_jacobians(const GradcheckFn& fn, const tensor_list& inputs,
                                                     const tensor_list& reference_outs, double eps) {
  std::vector<std::vector<Matrix>> jac(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    const int64_t n_in = x.numel();
    for (const Tensor& o : reference_outs) jac[i].emplace_back(differentiable(o) ? n_in * o.numel() : 0, 0.0);
    // The outputs' values, read before the input changes again: an output may share the input's
    // storage (add's gradient is the incoming gradient itself, which gradgradcheck perturbs).
    auto outputs_at = [&](double value, int64_t j) {
      set_element(x, j, value);
      const tensor_list outs = call(fn, inputs);
      std::vector<std::vector<double>> read(outs.size());
      for (size_t o = 0; o < outs.size(); ++o)
        if (differentiable(reference_outs[o])) read[o] = values(outs[o]);
      return read;
    };
    for (int64_t j = 0; j < n_in; ++j) {
      const double orig = element(x, j).item<double>();
      const std::vector<std::vector<double>> plus = outputs_at(orig + eps, j), minus = outputs_at(orig - eps, j);
      set_element(x, j, orig);
      for (size_t o = 0; o < reference_outs.size(); ++o) {
        if (!differentiable(reference_outs[o])) continue;
        const std::vector<double>& p = plus[o];
        const std::vector<double>& m = minus[o];
        const int64_t n_out = static_cast<int64_t>(p.size());
        for (int64_t k = 0; k < n_out; ++k) jac[i][o][j * n_out + k] = (p[k] - m[k]) / (2 * eps);
      }
    }
  }
  return jac;
}

// analytical[i][o], built from one autograd::grad call per output element (a one-hot grad_output).
std::vector<std::vector<Matrix>> analytical_jacobians(const tensor_list& inputs, const tensor_list& outs) {
  tensor_list checked;
  std::vector<size_t> checked_index;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) {
      checked.push_back(inputs[i]);
      checked_index.push_back(i);
    }
  std::vector<std::vector<Matrix>> jac(inputs.size());
  for (size_t i : checked_index)
    for (const Tensor& o : outs) jac[i].emplace_back(differentiable(o) ? inputs[i].numel() * o.numel() : 0, 0.0);

  for (size_t o = 0; o < outs.size(); ++o) {
    const Tensor& out = outs[o];
    if (!differentiable(out) || !out.requires_grad()) continue;  // no graph: the Jacobian is zero
    const int64_t n_out = out.numel();
    for (int64_t k = 0; k < n_out; ++k) {
      Tensor grad_output = zeros(out.sizes(), out.options());
      set_element(grad_output, k, 1.0);
      tensor_list grads = grad({out}, checked, {grad_output}, /*retain_graph=*/true, /*create_graph=*/false,
                               /*allow_unused=*/true);
      for (size_t c = 0; c < checked.size(); ++c) {
        if (!grads[c].defined()) continue;
        const size_t i = checked_index[c];
        EMBER_CHECK(grads[c].sizes() == inputs[i].sizes(),
                    "gradcheck: the gradient for input {} has shape {} but the input has shape {}", i, grads[c].sizes(),
                    inputs[i].sizes());
        const std::vector<double> g = values(grads[c]);
        for (size_t j = 0; j < g.size(); ++j) jac[i][o][j * n_out + k] = g[j];
      }
    }
  }
  return jac;
}

void check_inputs(const tensor_list& inputs) {
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    any = true;
    EMBER_CHECK(x.dtype() == kFloat64,
                "gradcheck: input {} requires grad and is {}, not float64; finite differences in single precision "
                "are too imprecise for gradcheck's tolerances. Create it as float64 (ember::dtype(ember::kFloat64)) "
                "or pass x.to(ember::kFloat64).detach().requires_grad_()",
                i, dtype_name(x.dtype()));
  }
  EMBER_CHECK(any,
              "gradcheck: expects at least one input tensor to require gradient, but none of the {} inputs has "
              "requires_grad=true",
              inputs.size());
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps, double atol, double rtol,
               bool raise_exception) {
  check_inputs(inputs);
  const tensor_list reference = call(fn, inputs);
  // Numerical first: it perturbs the inputs in place, which must happen before the analytical
  // pass saves them in a graph.
  const auto numerical = numerical_jacobians(fn, inputs, reference, eps);
  const auto analytical = analytical_jacobians(inputs, call(fn, inputs));

  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t o = 0; o < numerical[i].size(); ++o) {
      const Matrix& num = numerical[i][o];
      const Matrix& ana = analytical[i][o];
      size_t worst = 0;
      double worst_excess = 0;
      for (size_t e = 0; e < num.size(); ++e) {
        const double diff = std::abs(ana[e] - num[e]);  // nan when either is nan: always a mismatch
        const double excess = std::isnan(diff) ? INFINITY : diff - (atol + rtol * std::abs(num[e]));
        if (excess > worst_excess) {
          worst = e;
          worst_excess = excess;
        }
      }
      if (worst_excess <= 0) continue;
      if (!raise_exception) return false;
      const int64_t n_out = reference[o].numel();
      EMBER_FAIL(
          "gradcheck: Jacobian mismatch for output {} (shape {}) with respect to input {} (shape {}). Worst "
          "element: d output{} / d input{}: numerical {:.6g} vs analytical {:.6g} (difference {:.3g} > atol {:g} "
          "+ rtol {:g} * |numerical|)",
          o, reference[o].sizes(), i, inputs[i].sizes(), index_str(reference[o].sizes(), worst % n_out),
          index_str(inputs[i].sizes(), worst / n_out), num[worst], ana[worst], std::abs(ana[worst] - num[worst]), atol,
          rtol);
    }
  }
  return true;
}

bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps, double atol, double rtol,
                   bool raise_exception) {
  check_inputs(inputs);
  // One fixed grad_output v per differentiable output, float64, values cos(0.7 k + 0.3) in [-1, 1].
  const tensor_list outs = call(fn, inputs);
  tensor_list all = inputs;
  std::vector<size_t> out_of_v;
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!differentiable(outs[o]) || !outs[o].requires_grad()) continue;
    Tensor v = (arange(outs[o].numel(), dtype(kFloat64)) * 0.7 + 0.3).cos().view(outs[o].sizes());
    all.push_back(v.requires_grad_());
    out_of_v.push_back(o);
  }
  EMBER_CHECK(!out_of_v.empty(), "gradgradcheck: no output of the function requires grad");
  const size_t n = inputs.size();

  // (inputs, v) -> the gradients of sum_o <v_o, out_o> with respect to the inputs, differentiable.
  GradcheckFn first_order = [fn, n, out_of_v](const tensor_list& args) {
    const tensor_list xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
    const tensor_list outs = fn(xs);
    tensor_list roots, vs, wrt;
    for (size_t k = 0; k < out_of_v.size(); ++k) {
      if (!outs[out_of_v[k]].requires_grad()) continue;
      roots.push_back(outs[out_of_v[k]]);
      vs.push_back(args[n + k]);
    }
    for (const Tensor& x : xs)
      if (x.defined() && x.requires_grad()) wrt.push_back(x);
    tensor_list grads = roots.empty() ? tensor_list(wrt.size())
                                      : grad(roots, wrt, vs, /*retain_graph=*/true, /*create_graph=*/true,
                                             /*allow_unused=*/true);
    for (size_t k = 0; k < grads.size(); ++k)
      if (!grads[k].defined()) grads[k] = zeros_like(wrt[k]);
    return grads;
  };
  return gradcheck(first_order, all, eps, atol, rtol, raise_exception);
}

}  // namespace ember::autograd
