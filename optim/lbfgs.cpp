// L-BFGS (optim/lbfgs.h): torch 1.13's torch/optim/lbfgs.py, statement by statement, with the
// scalars (losses, step lengths, directional derivatives) in double as libtorch keeps them.
// The strong-Wolfe line search is lbfgs.py's _strong_wolfe, itself a port of torch7's lswolfe.lua.
#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "core/trace.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

namespace {

double val(const Tensor& t) { return t.item<double>(); }
Tensor dot(const Tensor& a, const Tensor& b) { return a.matmul(b); }  // (N,) . (N,) -> ()

// The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
// `bounds` (default: between x1 and x2); the middle of the bounds when the cubic has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [xmin_bound, xmax_bound] = bounds ? *bounds : (x1 <= x2 ? std::make_pair(x1, x2) : std::make_pair(x2, x1));
  // d1 = g1 + g2 - 3 (f1 - f2) / (x1 - x2);  d2 = sqrt(d1^2 - g1 g2)
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (xmin_bound + xmax_bound) / 2.;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, xmin_bound), xmax_bound);
}

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

// Finds t along d satisfying the strong Wolfe conditions (sufficient decrease c1, curvature c2):
// first brackets an interval that holds such a point, then shrinks it by cubic interpolation
// ("zoom"). f, g, gtd: the loss, gradient and directional derivative at t = 0.
template <typename ObjFunc>
LineSearchResult strong_wolfe(ObjFunc obj_func, double t, const Tensor& d, double f, const Tensor& g_in, double gtd,
                              double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9, int64_t max_ls = 25) {
  const double d_norm = val(d.abs().max());
  Tensor g = g_in.clone();
  auto [f_new, g_new] = obj_func(t, d);
  int64_t ls_func_evals = 1;
  double gtd_new = val(dot(g_new, d));

  // Bracketing phase. The bracket holds up to two points (step, loss, gradient, slope).
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate: the next trial lies between 1.01 t and 10 t.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::make_pair(min_step, max_step));
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(t, d);
    ls_func_evals += 1;
    gtd_new = val(dot(g_new, d));
    ls_iter += 1;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // Zoom phase: shrink the bracket until a point satisfies the conditions.
  bool insuf_progress = false;
  size_t low_pos = bracket_f.front() <= bracket_f.back() ? 0 : 1;
  size_t high_pos = 1 - low_pos;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // A trial too close to an end of the bracket, twice or at the end itself, moves to 10% inside it.
    const double hi = std::max(bracket[0], bracket[1]), lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj_func(t, d);
    ls_func_evals += 1;
    gtd_new = val(dot(g_new, d));
    ls_iter += 1;

    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low_pos]) {
      // Not a sufficient decrease, or not below the low end: the new point is the high end.
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      low_pos = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high_pos = 1 - low_pos;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;  // the Wolfe conditions hold
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        bracket[high_pos] = bracket[low_pos];  // the old low end becomes the high end
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

void check_options(const LBFGSOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "LBFGS: invalid learning rate {}", o.lr());
  EMBER_CHECK(o.max_iter() >= 1, "LBFGS: max_iter must be at least 1, got {}", o.max_iter());
  EMBER_CHECK(!o.max_eval() || *o.max_eval() >= 1, "LBFGS: max_eval must be at least 1, got {}",
              o.max_eval().value_or(0));
  EMBER_CHECK(o.history_size() >= 1, "LBFGS: history_size must be at least 1, got {}", o.history_size());
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe",
              "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got '{}'", o.line_search_fn().value_or(""));
}

}  // namespace

// ---- options and state ----

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

std::string LBFGSOptions::to_json() const {
  return json{{"lr", lr()},
              {"max_iter", max_iter()},
              {"max_eval", max_eval() ? json(*max_eval()) : json(nullptr)},
              {"tolerance_grad", tolerance_grad()},
              {"tolerance_change", tolerance_change()},
              {"history_size", history_size()},
              {"line_search_fn", line_search_fn() ? json(*line_search_fn()) : json(nullptr)}}
      .dump();
}

void LBFGSOptions::from_json(const std::string& text) {
  json j = detail::parse_json(text, "LBFGSOptions::from_json");
  lr(detail::field<double>(j, "lr"));
  max_iter(detail::field<int64_t>(j, "max_iter"));
  const json eval = detail::field<json>(j, "max_eval");
  max_eval(eval.is_null() ? std::nullopt : std::optional<int64_t>(detail::field<int64_t>(j, "max_eval")));
  tolerance_grad(detail::field<double>(j, "tolerance_grad"));
  tolerance_change(detail::field<double>(j, "tolerance_change"));
  history_size(detail::field<int64_t>(j, "history_size"));
  const json fn = detail::field<json>(j, "line_search_fn");
  line_search_fn(fn.is_null() ? std::nullopt
                              : std::optional<std::string>(detail::field<std::string>(j, "line_search_fn")));
}

std::vector<std::pair<std::string, Tensor*>> LBFGSParamState::tensors() {
  std::vector<std::pair<std::string, Tensor*>> out = {
      {"d", &d_}, {"H_diag", &H_diag_}, {"prev_flat_grad", &prev_flat_grad_}};
  for (auto [name, list] :
       {std::pair{"old_dirs", &old_dirs_}, std::pair{"old_stps", &old_stps_}, std::pair{"ro", &ro_}})
    for (size_t k = 0; k < list->size(); ++k) out.emplace_back(fmt::format("{}.{}", name, k), &(*list)[k]);
  if (al_)
    for (size_t k = 0; k < al_->size(); ++k) out.emplace_back(fmt::format("al.{}", k), &(*al_)[k]);
  return out;
}

Tensor* LBFGSParamState::tensor_slot(const std::string& name) {
  if (Tensor* slot = OptimizerParamState::tensor_slot(name)) return slot;
  // "old_dirs.<k>": grow the list to hold entry k (load_state checks afterwards that none is missing).
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return nullptr;
  const std::string list = name.substr(0, dot), index = name.substr(dot + 1);
  if (index.empty() || index.size() > 6 || !std::all_of(index.begin(), index.end(), ::isdigit)) return nullptr;
  const size_t k = std::stoul(index);
  if (list == "al") {
    if (!al_) al_.emplace();
    if (al_->size() <= k) al_->resize(k + 1);
    return &(*al_)[k];
  }
  std::deque<Tensor>* deque = list == "old_dirs"   ? &old_dirs_
                              : list == "old_stps" ? &old_stps_
                              : list == "ro"       ? &ro_
                                                   : nullptr;
  if (deque == nullptr) return nullptr;
  if (deque->size() <= k) deque->resize(k + 1);
  return &(*deque)[k];
}

// ---- LBFGS ----

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  EMBER_CHECK(param_groups_.size() == 1,
              "LBFGS doesn't support per-parameter options (parameter groups): got {} groups", param_groups_.size());
  check_options(detail::options_as<LBFGSOptions>(param_groups_[0].options(), "LBFGS"));
  auto& options = static_cast<LBFGSOptions&>(param_groups_[0].options());
  if (!options.max_eval()) {  // as PyTorch: max_iter * 5 / 4, in integers
    const int64_t max_eval = options.max_iter() * 5 / 4;
    options.max_eval(max_eval);
    static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
  }
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void LBFGS::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                              const std::string& where) const {
  auto& s = static_cast<LBFGSParamState&>(state);
  EMBER_CHECK(s.old_dirs().size() == s.old_stps().size() && s.old_dirs().size() == s.ro().size(),
              "{}: the history lists differ in length (old_dirs {}, old_stps {}, ro {})", where, s.old_dirs().size(),
              s.old_stps().size(), s.ro().size());
  for (auto [name, list] :
       {std::pair{"old_dirs", &s.old_dirs()}, std::pair{"old_stps", &s.old_stps()}, std::pair{"ro", &s.ro()}})
    for (size_t k = 0; k < list->size(); ++k)
      EMBER_CHECK((*list)[k].defined(), "{}: the checkpoint lacks {}.{}", where, name, k);
  EMBER_CHECK(s.n_iter() == 0 || (s.d().defined() && s.H_diag().defined() && s.prev_flat_grad().defined()),
              "{}: the checkpoint's n_iter is {} but it lacks d, H_diag or prev_flat_grad", where, s.n_iter());
}

Tensor LBFGS::gather_flat_grad() const {
  tensor_list views;
  for (const Tensor& p : params())
    views.push_back(p.grad().defined() ? p.grad().reshape({-1})
                                       : zeros({p.numel()}, dtype(p.dtype()).device(p.device())));
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Tensor& p : params()) {
    const int64_t numel = p.numel();
    Tensor(p).add_(update.slice(0, offset, offset + numel).view_as(p), step_size);
    offset += numel;
  }
}

std::vector<Tensor> LBFGS::clone_params() const {
  std::vector<Tensor> out;
  for (const Tensor& p : params()) out.push_back(p.clone());
  return out;
}

void LBFGS::set_params(const std::vector<Tensor>& values) {
  for (size_t i = 0; i < values.size(); ++i) Tensor(params()[i]).copy_(values[i]);
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                      double t, const Tensor& d) {
  add_grad(t, d);
  const double loss = val(run_closure(closure));
  Tensor flat_grad = gather_flat_grad();
  set_params(x);
  return {loss, flat_grad};
}

Tensor LBFGS::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  EMBER_CHECK(closure != nullptr, "LBFGS::step: L-BFGS re-evaluates the loss, so it requires a closure");
  NoGradGuard no_grad;
  const auto& o = detail::options_as<LBFGSOptions>(param_groups_.at(0).options(), "LBFGS");
  check_options(o);
  const double lr = o.lr(), tolerance_grad = o.tolerance_grad(), tolerance_change = o.tolerance_change();
  const int64_t max_iter = o.max_iter(), history_size = o.history_size();
  const int64_t max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const std::vector<Tensor>& ps = params();
  EMBER_CHECK(!ps.empty(), "LBFGS::step: the optimizer has no parameters");

  // The state lives on the first parameter.
  auto& slot = state_[ps[0].unsafeGetTensorImpl()];
  if (!slot) slot = std::make_unique<LBFGSParamState>();
  auto& state = static_cast<LBFGSParamState&>(*slot);

  Tensor orig_loss = run_closure(closure);
  EMBER_CHECK(orig_loss.defined() && orig_loss.numel() == 1,
              "LBFGS::step: the closure must return the loss as a one-element tensor, got {}",
              orig_loss.defined() ? fmt::format("shape {}", orig_loss.sizes()) : std::string("an undefined tensor"));
  double loss = val(orig_loss);
  int64_t current_evals = 1;
  state.func_evals(state.func_evals() + 1);

  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
  if (opt_cond) return orig_loss;  // already optimal

  Tensor& d = state.d();
  double& t = state.t();
  auto& old_dirs = state.old_dirs();
  auto& old_stps = state.old_stps();
  auto& ro = state.ro();
  Tensor& H_diag = state.H_diag();
  Tensor& prev_flat_grad = state.prev_flat_grad();
  double& prev_loss = state.prev_loss();

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    state.n_iter(state.n_iter() + 1);

    // ---- the descent direction ----
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      old_dirs.clear();
      old_stps.clear();
      ro.clear();
      H_diag = full({}, 1.0, dtype(flat_grad.dtype()).device(flat_grad.device()));
    } else {
      // Update the history with y = g - g_prev and s = t d, when the curvature y.s is positive.
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      Tensor ys = dot(y, s);
      if (val(ys) > 1e-10) {
        if (static_cast<int64_t>(old_dirs.size()) == history_size) {  // drop the oldest
          old_dirs.pop_front();
          old_stps.pop_front();
          ro.pop_front();
        }
        old_dirs.push_back(y);
        old_stps.push_back(s);
        ro.push_back(1. / ys);
        H_diag = ys / dot(y, y);  // the initial inverse Hessian's scale, y.s / y.y
      }
      // The two-loop recursion: d = -H g, with H the L-BFGS inverse Hessian.
      const int64_t num_old = static_cast<int64_t>(old_dirs.size());
      if (!state.al()) state.al(std::vector<Tensor>(history_size));
      auto& al = *state.al();
      if (static_cast<int64_t>(al.size()) < num_old) al.resize(num_old);
      Tensor q = flat_grad.neg();
      for (int64_t i = num_old - 1; i >= 0; --i) {
        al[i] = dot(old_stps[i], q) * ro[i];
        q.add_(old_dirs[i], -val(al[i]));
      }
      Tensor r = q.mul(H_diag);
      d = r;
      for (int64_t i = 0; i < num_old; ++i) {
        Tensor be_i = dot(old_dirs[i], r) * ro[i];
        r.add_(old_stps[i], val(al[i] - be_i));
      }
    }
    if (!prev_flat_grad.defined())
      prev_flat_grad = flat_grad.clone();
    else
      prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    // ---- the step length ----
    t = state.n_iter() == 1 ? std::min(1., 1. / val(flat_grad.abs().sum())) * lr : lr;
    const double gtd = val(dot(flat_grad, d));  // the directional derivative
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      const std::vector<Tensor> x_init = clone_params();
      auto obj_func = [&](double step, const Tensor& dir) { return directional_evaluate(closure, x_init, step, dir); };
      LineSearchResult ls = strong_wolfe(obj_func, t, d, loss, flat_grad, gtd);
      loss = ls.loss;
      flat_grad = ls.flat_grad;
      t = ls.t;
      ls_func_evals = ls.func_evals;
      add_grad(t, d);
      opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
    } else {
      add_grad(t, d);  // a fixed step
      if (n_iter != max_iter) {
        // Re-evaluate, except after the last iteration (in a stochastic setting it would be wasted).
        loss = val(run_closure(closure));
        flat_grad = gather_flat_grad();
        opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals(state.func_evals() + ls_func_evals);

    // ---- stopping conditions ----
    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (val(d.mul(t).abs().max()) <= tolerance_change) break;  // no progress in the parameters
    if (std::abs(loss - prev_loss) < tolerance_change) break;  // nor in the loss
  }
  return orig_loss;
}

}  // namespace ember::optim
