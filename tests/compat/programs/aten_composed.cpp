// ATen functions composed of Ember's ops (include/compat/ember_compat/aten_composed.h) as a libtorch
// program calls them: at::index / index_put with optional-tensor lists, the functional copies,
// torch::gradient (spacing as a number, a list and coordinates; both edge orders), histogram,
// unique_dim, combinations, kaiser_window, norm_except_dim, index_reduce (values and gradients),
// result_type, empty_strided, for_blob, flatten/unflatten_dense_tensors, seeded randint_like /
// uniform / normal_functional draws, and out= forms.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

torch::Tensor wave(std::vector<int64_t> shape, double phase = 0.0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return torch::arange(n, torch::kDouble).mul(0.37).add(phase).sin().to(torch::kFloat).reshape(shape);
}

int main() {
  std::cout << std::fixed << std::setprecision(4);
  torch::Tensor x = wave({3, 4});
  c10::List<c10::optional<torch::Tensor>> rows;
  rows.push_back(torch::tensor({2, 0}, torch::kLong));
  std::cout << "index " << at::index(x, rows) << '\n';
  rows.push_back(torch::tensor({1, 3}, torch::kLong));
  std::cout << "index_put " << at::index_put(x, rows, torch::tensor({10.f, 20.f}), false) << '\n';
  torch::Tensor y = x.clone();
  at::index_put_(y, rows, torch::tensor({1.f, 1.f}), true);
  std::cout << "index_put_ accumulate " << y.sum().item<float>() << '\n';

  std::cout << "copy " << at::copy(torch::zeros({2, 3}), torch::tensor({1.f, 2.f, 3.f})) << '\n';
  torch::Tensor a = at::alias(x);
  a[0][0] = 5;
  std::cout << "alias shares " << x[0][0].item<float>() << '\n';
  std::cout << "expand_copy " << at::expand_copy(torch::tensor({1.f, 2.f}), {3, 2}).is_contiguous() << ' '
            << at::expand_copy(torch::tensor({1.f, 2.f}), {3, 2}).sum().item<float>() << '\n';
  std::cout << "view_copy " << at::view_copy(x, {2, 6}).sizes() << " unfold_copy "
            << at::unfold_copy(torch::arange(6), 0, 3, 2) << '\n';

  // ---- torch::gradient ----
  torch::Tensor f = wave({4, 5}, 0.3);
  auto g1 = torch::gradient(f);
  std::cout << "gradient " << g1.size() << ' ' << g1[0].reshape({-1}) << ' ' << g1[1].sum().item<float>() << '\n';
  auto g2 = torch::gradient(f, c10::Scalar(2.0), at::IntArrayRef{1}, 2);
  std::cout << "gradient spacing 2 edge 2 " << g2[0].reshape({-1}) << '\n';
  std::vector<c10::Scalar> spacing{0.5, 3.0};
  auto g3 = torch::gradient(f, spacing);
  std::cout << "gradient per-dim spacing " << g3[0].sum().item<float>() << ' ' << g3[1].sum().item<float>() << '\n';
  torch::Tensor coords = torch::tensor({0.0f, 0.5f, 2.0f, 2.5f, 4.0f});
  std::vector<torch::Tensor> axes{coords};
  auto g4 = torch::gradient(f, at::TensorList(axes), c10::optional<int64_t>(1), 1);
  auto g5 = torch::gradient(f, at::TensorList(axes), c10::optional<int64_t>(1), 2);
  std::cout << "gradient coordinates " << g4[0].reshape({-1}) << ' ' << g5[0].reshape({-1}) << '\n';
  std::cout << "gradient of ints " << torch::gradient(torch::tensor({1, 4, 9, 16}))[0] << '\n';

  // ---- histogram, unique_dim, combinations, windows, norms ----
  torch::Tensor samples = wave({20}, 0.1);
  auto [hist, edges] = torch::histogram(samples, 4);
  std::cout << "histogram " << hist << ' ' << edges << '\n';
  std::vector<double> range{-0.5, 0.5};
  auto [hist2, edges2] = torch::histogram(samples, 2, range, wave({20}, 1.0).abs(), true);
  std::cout << "histogram range weight density " << hist2 << ' ' << edges2 << '\n';
  auto [hist3, edges3] = torch::histogram(samples, torch::tensor({-1.0f, 0.0f, 0.25f, 1.0f}));
  std::cout << "histogram edges " << hist3 << '\n';
  torch::Tensor dup = torch::tensor({{1, 2, 1, 1}, {0, 5, 0, 2}, {1, 2, 1, 1}}, torch::kLong);
  auto [u, inv, counts] = torch::unique_dim(dup, 1, true, true, true);
  std::cout << "unique_dim " << u << ' ' << inv << ' ' << counts << '\n';
  auto [uc, invc, countsc] = torch::unique_dim_consecutive(dup, 0, true, true);
  std::cout << "unique_dim_consecutive " << uc << ' ' << invc << ' ' << countsc << '\n';
  std::cout << "combinations " << torch::combinations(torch::tensor({1.f, 2.f, 3.f, 4.f}), 3) << ' '
            << torch::combinations(torch::tensor({7, 8}), 2, true) << ' '
            << torch::combinations(torch::tensor({1.f, 2.f}), 3).sizes() << '\n';
  std::cout << "kaiser_window " << torch::kaiser_window(6) << ' ' << torch::kaiser_window(5, false, 4.0, torch::kDouble)
            << ' ' << torch::kaiser_window(1) << '\n';
  torch::Tensor v = wave({2, 3, 4}, 0.7);
  std::cout << "norm_except_dim " << torch::norm_except_dim(v, 2, 1).reshape({-1}) << ' '
            << torch::norm_except_dim(v, 3, -1).item<float>() << ' ' << torch::norm_except_dim(v, 2, 0).sizes() << '\n';

  // ---- index_reduce, with its gradients ----
  torch::Tensor base = wave({3, 2}, 0.4).add(2).requires_grad_();
  torch::Tensor src = wave({4, 2}, 0.9).add(2).requires_grad_();
  torch::Tensor where = torch::tensor({0, 2, 0, 1}, torch::kLong);
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      torch::Tensor r = torch::index_reduce(base, 0, where, src, reduce, include_self);
      auto grads = torch::autograd::grad({r.mul(wave({3, 2}, 1.3)).sum()}, {base, src});
      std::cout << "index_reduce " << reduce << ' ' << include_self << ' ' << r.reshape({-1}) << ' '
                << grads[0].reshape({-1}) << ' ' << grads[1].reshape({-1}) << '\n';
    }
  }

  // ---- promotion, strided memory, blobs ----
  // (compared, not printed: Ember prints a ScalarType as "int64" where libtorch prints "Long")
  std::cout << "result_type "
            << (torch::result_type(torch::ones({2}, torch::kInt), torch::ones({2}, torch::kLong)) == torch::kLong)
            << (torch::result_type(torch::ones({2}, torch::kInt), 2.5) == torch::kFloat)
            << (torch::result_type(true, torch::ones({2}, torch::kUInt8)) == torch::kByte)
            << (torch::result_type(1, 2.5) == torch::kFloat) << (torch::result_type(true, false) == torch::kBool)
            << (torch::result_type(torch::ones({}, torch::kDouble), torch::ones({2}, torch::kInt)) == torch::kDouble)
            << '\n';
  torch::Tensor strided = torch::empty_strided({2, 3}, {1, 2});
  std::cout << "empty_strided " << strided.strides() << ' ' << strided.is_contiguous() << '\n';
  float blob[6] = {1, 2, 3, 4, 5, 6};
  bool freed = false;
  {
    torch::Tensor wrapped =
        at::for_blob(blob, {2, 2}).strides({1, 2}).deleter([&](void*) { freed = true; }).make_tensor();
    std::cout << "for_blob " << wrapped << '\n';
  }
  std::cout << "for_blob deleter ran " << freed << '\n';
  std::vector<torch::Tensor> parts{wave({2, 2}), wave({3}, 0.5)};
  torch::Tensor flat = torch::flatten_dense_tensors(parts);
  auto back = torch::unflatten_dense_tensors(flat, parts);
  std::cout << "flatten_dense_tensors " << flat.sizes() << ' ' << back[1] << ' ' << torch::is_distributed(flat) << '\n';

  // ---- seeded draws ----
  torch::manual_seed(3);
  std::cout << "randint_like " << torch::randint_like(torch::zeros({2, 3}), 10) << '\n';
  std::cout << "randint_like low " << torch::randint_like(torch::zeros({4}, torch::kLong), 5, 9) << '\n';
  std::cout << "uniform " << at::uniform(torch::zeros({3}), -1, 1) << '\n';
  std::cout << "normal_functional " << at::normal_functional(torch::zeros({3}), 2, 0.5) << '\n';

  // ---- out= forms ----
  torch::Tensor hist_out = torch::empty({0}), edges_out = torch::empty({0});
  torch::histogram_out(hist_out, edges_out, samples, 3);
  std::cout << "histogram_out " << hist_out << '\n';
  torch::Tensor reduced = torch::empty({0});
  torch::index_reduce_out(reduced, base.detach(), 0, where, src.detach(), "amax");
  std::cout << "index_reduce_out " << reduced.reshape({-1}) << '\n';
  torch::Tensor mn = torch::empty({0}), mx = torch::empty({0});
  torch::aminmax_out(mn, mx, x, 1);
  std::cout << "aminmax_out " << mn << ' ' << mx << '\n';
  torch::Tensor padded = torch::empty({0});
  torch::reflection_pad1d_out(padded, wave({1, 1, 4}), {2, 1});
  std::cout << "reflection_pad1d_out " << padded << '\n';
  torch::Tensor swish = torch::empty({0});
  torch::hardswish_out(swish, torch::tensor({-4.f, -1.f, 0.5f, 3.5f}));
  std::cout << "hardswish_out " << swish << '\n';
  torch::Tensor scattered = torch::empty({0});
  torch::scatter_out(scattered, torch::zeros({2, 3}), 1, torch::tensor({{2}, {0}}, torch::kLong),
                     torch::tensor({{5.f}, {6.f}}));
  std::cout << "scatter_out " << scattered << '\n';

  // bad input: each throws in both libraries
  const auto throws = [](const char* what, auto&& fn) {
    try {
      fn();
      std::cout << what << " did not throw\n";
    } catch (const c10::Error&) {
      std::cout << what << " threw\n";
    }
  };
  throws("gradient edge_order 3", [&] { torch::gradient(f, c10::nullopt, c10::nullopt, 3); });
  throws("gradient of a dim too short", [&] { torch::gradient(torch::ones({2, 5}), c10::nullopt, 0, 2); });
  throws("histogram of ints", [] { torch::histogram(torch::tensor({1, 2}), 2); });
  throws("combinations of a matrix", [] { torch::combinations(torch::ones({2, 2})); });
  throws("index_reduce sum", [&] { torch::index_reduce(base.detach(), 0, where, src.detach(), "sum"); });
  throws("kaiser_window of ints", [] { torch::kaiser_window(4, torch::kLong); });
}
