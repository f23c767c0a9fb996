// ATen's discrete draws and histogramdd as a libtorch program calls them: seeded torch::poisson and
// torch::binomial (libtorch 1.13's numbers for the seed), their out= forms, what autograd does with
// them, torch::histogramdd's three overloads, and which bad inputs throw.
#include <exception>
#include <iomanip>
#include <iostream>
#include <tuple>
#include <vector>

#include <torch/torch.h>

namespace {

void show(const char* name, const torch::Tensor& t) { std::cout << name << "\n" << t << "\n"; }

void show_histogram(const char* name, const std::tuple<torch::Tensor, std::vector<torch::Tensor>>& result) {
  show(name, std::get<0>(result));
  for (const torch::Tensor& edges : std::get<1>(result)) show("edges", edges);
}

template <typename F>
void expect_throw(const char* what, F f) {
  try {
    f();
    std::cout << what << ": no error\n";
  } catch (const std::exception&) {  // c10::Error; a refused backward is std::runtime_error in libtorch
    std::cout << what << ": throws\n";
  }
}

}  // namespace

int main() {
  std::cout << std::setprecision(6);
  // ---- poisson: below 10 a product of uniforms, from 10 transformed rejection ----
  torch::manual_seed(0);
  torch::Tensor rates = torch::tensor({0.0f, 1e-6f, 0.5f, 3.7f, 9.99f, 10.0f, 25.0f, 123.4f, 1000.0f});
  show("poisson float", torch::poisson(rates));
  show("poisson double", torch::poisson(rates.to(torch::kDouble).reshape({3, 3})));
  show("poisson transposed", torch::poisson(rates.reshape({3, 3}).t(), c10::nullopt));
  show("rand after", torch::rand({2}, torch::kDouble));

  // ---- binomial: inversion where count * p < 10, BTRS above; count and prob broadcast ----
  torch::manual_seed(7);
  torch::Tensor count = torch::tensor({0.0f, 1.0f, 9.0f, 40.0f, 1000.0f}).reshape({5, 1});
  torch::Tensor prob = torch::tensor({0.0f, 1e-6f, 0.3f, 0.5f, 0.8f, 1.0f});
  show("binomial float", torch::binomial(count, prob));
  show("binomial double", torch::binomial(count.to(torch::kDouble), prob.to(torch::kDouble), c10::nullopt));
  show("rand after", torch::rand({2}, torch::kDouble));

  // ---- out= forms: out takes the draws' shape and its own dtype ----
  torch::manual_seed(3);
  torch::Tensor out = torch::empty({0});
  torch::poisson_out(out, rates);
  show("poisson_out", out);
  torch::Tensor long_out = torch::empty({0}, torch::kLong);
  torch::poisson_outf(rates, c10::nullopt, long_out);
  show("poisson_outf long", long_out);
  torch::binomial_out(out, count, prob);
  show("binomial_out", out);
  torch::Tensor double_out = torch::empty({2}, torch::kDouble);
  torch::binomial_outf(torch::full({2}, 50.0f), torch::full({2}, 0.25f), c10::nullopt, double_out);
  show("binomial_outf double", double_out);

  // ---- autograd: poisson's rates get a zero gradient, binomial's backward refuses ----
  torch::Tensor leaf = torch::tensor({2.0f, 30.0f}, torch::requires_grad());
  torch::Tensor drawn = torch::poisson(leaf);
  std::cout << "poisson requires_grad " << drawn.requires_grad() << " " << drawn.grad_fn()->name() << "\n";
  drawn.sum().backward();
  show("poisson grad", leaf.grad());
  torch::Tensor trials = torch::binomial(torch::full({2}, 10.0f), leaf / 40);
  std::cout << "binomial requires_grad " << trials.requires_grad() << "\n";
  expect_throw("binomial backward", [&] { trials.sum().backward(); });

  // ---- histogramdd ----
  torch::Tensor points = torch::tensor(
      {{0.0f, 1.0f}, {1.0f, 2.0f}, {2.0f, 0.5f}, {3.0f, 3.0f}, {1.5f, 1.75f}, {0.25f, 2.5f}, {2.75f, 0.0f}});
  show_histogram("histogramdd int bins", torch::histogramdd(points, 2));
  show_histogram("histogramdd bin counts", torch::histogramdd(points, std::vector<int64_t>{3, 2}));
  const std::vector<double> range{0.0, 2.0, 0.0, 4.0};
  show_histogram("histogramdd range", torch::histogramdd(points, std::vector<int64_t>{2, 4}, range));
  torch::Tensor weight = torch::tensor({1.0f, 0.5f, 2.0f, 1.5f, 0.25f, 3.0f, 1.0f});
  show_histogram("histogramdd weight density",
                 torch::histogramdd(points, std::vector<int64_t>{2, 3}, c10::nullopt, weight, true));
  const std::vector<torch::Tensor> edges{torch::tensor({0.0f, 1.0f, 3.0f}), torch::tensor({0.0f, 0.5f, 2.0f, 3.0f})};
  show_histogram("histogramdd tensor bins", torch::histogramdd(points, edges));
  show_histogram("histogramdd tensor bins density", torch::histogramdd(points, edges, c10::nullopt, weight, true));
  show_histogram("histogramdd degenerate", torch::histogramdd(torch::tensor({{1.0, 2.0}, {1.0, 4.0}}), 2));
  show_histogram("histogramdd batched", torch::histogramdd(points.reshape({1, 7, 2}), 3));

  // ---- bad inputs ----
  expect_throw("poisson negative rate", [] { torch::poisson(torch::tensor({1.0f, -1.0f})); });
  expect_throw("poisson half", [] { torch::poisson(torch::ones({2}, torch::kHalf)); });
  expect_throw("binomial shapes", [] { torch::binomial(torch::ones({2}), torch::full({3}, 0.5)); });
  expect_throw("binomial dtypes", [] { torch::binomial(torch::ones({2}), torch::full({2}, 0.5, torch::kDouble)); });
  expect_throw("binomial prob above 1", [] { torch::binomial(torch::ones({2}), torch::full({2}, 1.5)); });
  expect_throw("histogramdd 1-d input", [] { torch::histogramdd(torch::ones({3}), 2); });
  expect_throw("histogramdd zero bins", [] { torch::histogramdd(torch::ones({3, 2}), std::vector<int64_t>{0, 2}); });
  expect_throw("histogramdd range size", [] {
    const std::vector<double> two{0.0, 1.0};
    torch::histogramdd(torch::ones({3, 2}), 2, two);
  });
  expect_throw("histogramdd inverted range", [] {
    const std::vector<double> inverted{1.0, 0.0, 0.0, 1.0};
    torch::histogramdd(torch::ones({3, 2}), 2, inverted);
  });
  expect_throw("histogramdd weight shape", [] {
    torch::histogramdd(torch::ones({3, 2}), 2, c10::nullopt, torch::ones({2}));
  });
  expect_throw("histogramdd edges dtype", [] {
    torch::histogramdd(torch::ones({3, 1}), std::vector<torch::Tensor>{torch::ones({2}, torch::kDouble)});
  });
  return 0;
}
