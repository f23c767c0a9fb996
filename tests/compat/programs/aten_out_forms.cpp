// ATen's out= forms beyond the elementwise ones, as libtorch programs call them: several outputs
// (torch::sort_out(values, indices, x)), factories (torch::arange_out(out, 5)), list inputs
// (torch::cat_out(out, {a, b})), where, seeded random draws, and the rules every form follows: the
// returned reference is out, a wrong-shape out is resized (with a warning unless a factory resizes
// it), a dtype that cannot hold the result and inputs that require grad are refused.
#include <cmath>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include <torch/torch.h>

namespace {

struct CaptureWarnings : public c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override { messages.push_back(msg); }
};

void show(const char* name, const torch::Tensor& t) { std::cout << name << "\n" << t << "\n"; }

// The out= form returned the very tensor it was given.
void same(const char* name, const torch::Tensor& returned, const torch::Tensor& out) {
  std::cout << name << " returns out: " << (&returned == &out) << " "
            << (returned.unsafeGetTensorImpl() == out.unsafeGetTensorImpl()) << "\n";
}

torch::Tensor empty_float() { return torch::empty({0}); }
torch::Tensor empty_long() { return torch::empty({0}, torch::kLong); }

}  // namespace

int main() {
  torch::Tensor x = torch::tensor({{0.5f, -1.5f, 2.0f, 0.25f}, {3.0f, 1.0f, -0.75f, 2.0f}, {-2.0f, 0.0f, 1.25f, 4.0f}});
  torch::Tensor out = empty_float();

  // ---- one output, self first ----
  same("cumsum_out", torch::cumsum_out(out, x, 1), out);
  show("cumsum_out", out);
  show("logcumsumexp_outf", torch::logcumsumexp_outf(x, 0, out));
  show("flip_out", torch::flip_out(out, x, {0}));
  show("flip_outf", torch::flip_outf(x, {1}, out));
  show("roll_out", torch::roll_out(out, x, {1}, {1}));
  show("rot90_out", torch::rot90_out(out, x, 1, {0, 1}));
  show("repeat_out", torch::repeat_out(out, x[0], {2}));
  show("lgamma_out", torch::lgamma_out(out, x.abs() + 0.5));
  show("polygamma_out", torch::polygamma_out(out, 1, x.abs() + 0.5));
  show("fmax_out", torch::fmax_out(out, x, x.flip({1})));
  show("copysign_outf", torch::copysign_outf(x, -1, out));
  show("rsub_out", torch::rsub_out(out, x, 1.0));
  show("addmm_out", torch::addmm_out(out, torch::ones({3, 3}), x, x.t(), 0.5));
  show("kron_out", torch::kron_out(out, torch::eye(2), x[0].reshape({1, 4})));
  show("tensordot_out", torch::tensordot_out(out, x, x, {1}, {1}));
  show("dist_out", torch::dist_out(out, x[0], x[1]));
  show("diff_out", torch::diff_out(out, x, 1, 0));
  show("histc_out", torch::histc_out(out, x, 4, -2, 4));
  show("gelu_out tanh", torch::gelu_out(out, x, "tanh"));
  show("silu_outf", torch::silu_outf(x, out));
  show("leaky_relu_out", torch::leaky_relu_out(out, x, 0.1));
  show("mse_loss_out", torch::mse_loss_out(out, x, torch::zeros_like(x)));
  show("linear_out", torch::linear_out(out, x, torch::ones({2, 4}), torch::tensor({1.0f, -1.0f})));
  show("avg_pool2d_out", torch::avg_pool2d_out(out, x.reshape({1, 1, 3, 4}), {2, 2}));
  show("constant_pad_nd_out", torch::constant_pad_nd_out(out, x[0], {1, 2}, 9));
  torch::Tensor bits = empty_long();
  show("bitwise_and_out", torch::bitwise_and_out(bits, torch::tensor({12, 10, 7}), torch::tensor({10, 6, 5})));
  torch::Tensor mask = torch::empty({0}, torch::kBool);
  show("isnan_outf", torch::isnan_outf(torch::tensor({1.0, std::nan(""), 0.0}), mask));
  torch::Tensor positions = empty_long();
  show("argsort_out", torch::argsort_out(positions, x, /*stable=*/true, 1));
  c10::List<c10::optional<torch::Tensor>> rows;
  rows.push_back(torch::tensor({2, 0}, torch::kLong));
  show("index_out", torch::index_out(out, x, rows));
  show("index_put_outf", torch::index_put_outf(x, rows, torch::ones({4}), true, out));
  show("where_out", torch::where_out(out, x > 0, x, torch::zeros_like(x)));

  // ---- several outputs: std::tuple<Tensor&, Tensor&> of the outs ----
  torch::Tensor values = empty_float(), indices = empty_long();
  auto sorted = torch::sort_out(values, indices, x, 1, /*descending=*/true);
  std::cout << "sort_out returns outs: " << (&std::get<0>(sorted) == &values) << " "
            << (&std::get<1>(sorted) == &indices) << "\n";
  show("sort_out values", values);
  show("sort_out indices", indices);
  torch::sort_outf(x, 0, false, values, indices);
  show("sort_outf indices", indices);
  torch::topk_out(values, indices, x, 2);
  show("topk_out values", values);
  show("topk_out indices", indices);
  torch::max_out(values, indices, x, 1, /*keepdim=*/true);
  show("max_out dim values", values);
  show("max_out dim indices", indices);
  torch::min_outf(x, 0, false, values, indices);
  show("min_outf dim indices", indices);
  show("max_out other", torch::max_out(out, x, x.flip({0})));
  torch::kthvalue_out(values, indices, x, 2, 1);
  show("kthvalue_out values", values);
  torch::median_out(values, indices, x, 0);
  show("median_out dim indices", indices);
  show("median_out", torch::median_out(out, x));
  torch::cummax_out(values, indices, x, 1);
  show("cummax_out indices", indices);
  torch::cummin_outf(x, 0, values, indices);
  show("cummin_outf values", values);
  torch::Tensor mantissa = torch::empty({0}, torch::kDouble), exponent = torch::empty({0}, torch::kInt);
  torch::frexp_out(mantissa, exponent, torch::tensor({-2.5, 0.75, 8.0}, torch::kDouble));
  show("frexp_out mantissa", mantissa);
  show("frexp_out exponent", exponent);
  torch::Tensor var = empty_float(), mean = empty_float();
  torch::var_mean_out(var, mean, x, {1}, 1);
  show("var_mean_out var", var);
  show("var_mean_out mean", mean);
  torch::std_mean_out(var, mean, x, c10::nullopt, 2, /*keepdim=*/true);
  show("std_mean_out correction 2", var);
  torch::Tensor pooled = empty_float(), where = empty_long();
  torch::max_pool2d_with_indices_out(pooled, where, x.reshape({1, 1, 3, 4}), {2, 2});
  show("max_pool2d_with_indices_out indices", where);

  // ---- factories: the values in out's dtype ----
  torch::Tensor longs = empty_long();
  show("zeros_out", torch::zeros_out(out, {2, 3}));
  show("ones_outf long", torch::ones_outf({2}, longs));
  show("full_out long", torch::full_out(longs, {3}, 7));
  show("eye_out", torch::eye_out(out, 2, 3));
  show("arange_out long", torch::arange_out(longs, 5));
  show("arange_out float", torch::arange_out(out, 1, 2.5, 0.5));
  show("arange_outf double", torch::arange_outf(0, 1, 0.25, mantissa));
  torch::Tensor grid = torch::zeros({2, 3});
  show("arange_out into 2x3", torch::arange_out(grid, 6));
  show("range_out", torch::range_out(out, 0, 2, 0.5));
  show("linspace_out", torch::linspace_out(out, -1, 1, 5));
  show("logspace_out", torch::logspace_out(out, 0, 2, 3, 2.0));
  show("hann_window_out", torch::hann_window_out(out, 5));
  show("hamming_window_outf", torch::hamming_window_outf(4, false, out));
  show("tril_indices_out", torch::tril_indices_out(longs, 3, 3));
  std::cout << "empty_out " << torch::empty_out(out, {4, 2}).sizes() << "\n";

  // ---- list inputs ----
  torch::Tensor a = torch::tensor({{1.0f, 2.0f}}), b = torch::tensor({{3.0f, 4.0f}});
  show("cat_out", torch::cat_out(out, {a, b}));
  show("cat_outf dim 1", torch::cat_outf({a, b}, 1, out));
  show("concat_out", torch::concat_out(out, {a, b}, 1));
  show("stack_out", torch::stack_out(out, {a, b}, 2));
  show("hstack_out", torch::hstack_out(out, {a, b}));
  show("vstack_outf", torch::vstack_outf({a, b}, out));
  show("dstack_out", torch::dstack_out(out, {a, b}));
  show("column_stack_out", torch::column_stack_out(out, {a[0], b[0]}));
  show("row_stack_out", torch::row_stack_out(out, std::vector<torch::Tensor>{a, b}));
  show("block_diag_out", torch::block_diag_out(out, {a, b.t()}));

  // ---- random draws, seeded ----
  torch::manual_seed(11);
  show("rand_out", torch::rand_out(out, {2, 3}));
  show("randn_out", torch::randn_out(out, {5}));
  show("randint_out", torch::randint_out(longs, 3, 9, {6}));
  show("randperm_out", torch::randperm_out(longs, 6));
  show("normal_out size", torch::normal_out(out, 1.0, 0.5, {4}));
  torch::Tensor drawn = torch::zeros({3});
  show("normal_out mean tensor", torch::normal_out(drawn, torch::tensor({0.0f, 10.0f, 100.0f}), 2.0, c10::nullopt));
  show("bernoulli_out", torch::bernoulli_out(out, torch::full({8}, 0.4), c10::nullopt));
  show("multinomial_out", torch::multinomial_out(longs, torch::tensor({0.1, 0.2, 0.3, 0.4}), 5, true));

  // ---- the rules ----
  CaptureWarnings warnings;
  {
    c10::Warning::WarningHandlerGuard guard(&warnings);
    torch::Tensor small = torch::zeros({2});
    torch::cumsum_out(small, x, 0);
    std::cout << "resized: " << small.sizes() << "\n";
    torch::Tensor factory = torch::zeros({2});
    torch::ones_out(factory, {2, 2});
    std::cout << "factory resized: " << factory.sizes() << "\n";
    torch::Tensor pair = torch::zeros({5}), pair_indices = torch::zeros({5}, torch::kLong);
    torch::sort_out(pair, pair_indices, x, 1);
    std::cout << "sort resized: " << pair.sizes() << " " << pair_indices.sizes() << "\n";
    torch::Tensor count = torch::zeros({3});
    torch::arange_out(count, 5);
    std::cout << "arange resized: " << count.sizes() << "\n";
  }
  std::cout << "warnings: " << warnings.messages.size() << "\n";
  for (const auto& message : warnings.messages) std::cout << message << "\n";

  // cumsum accumulates in out's dtype; an elementwise op refuses a dtype that cannot hold its result.
  torch::Tensor integer = torch::zeros({3, 4}, torch::kLong);
  show("cumsum_out into long", torch::cumsum_out(integer, x * 2, 1));
  try {
    torch::fmax_out(integer, x, x);
    std::cout << "float into long: no error\n";
  } catch (const c10::Error&) {
    std::cout << "float into long: error\n";
  }
  try {
    torch::cat_out(integer, {a, b});
    std::cout << "cat float into long: no error\n";
  } catch (const c10::Error&) {
    std::cout << "cat float into long: error\n";
  }
  torch::Tensor w = torch::ones({4}, torch::requires_grad());
  try {
    torch::fmax_out(out, x, w);
    std::cout << "requires grad: no error\n";
  } catch (const c10::Error&) {
    std::cout << "requires grad: error\n";
  }
  try {
    torch::stack_out(out, {w, w});
    std::cout << "list requires grad: no error\n";
  } catch (const c10::Error&) {
    std::cout << "list requires grad: error\n";
  }
  {
    torch::NoGradGuard no_grad;
    torch::fmax_out(out, x, w);
    std::cout << "no_grad: " << out.requires_grad() << " " << out.sum().item<float>() << "\n";
  }
  return 0;
}
