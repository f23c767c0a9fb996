// ATen's geometry functions: as_strided_ / as_strided_scatter, the functional resize / resize_as /
// set, resize_ with a memory format, and the out= forms of these and of the strided factories,
// kaiser_window and unsafe_split.
#include <iomanip>
#include <iostream>
#include <vector>

#include <torch/torch.h>

template <typename F>
void expect_error(const char* what, F&& f) {
  try {
    f();
    std::cout << what << ": no error\n";
  } catch (const c10::Error&) {
    std::cout << what << ": error\n";
  }
}

void show(const char* name, const torch::Tensor& t) {
  std::cout << name << " sizes " << t.sizes() << " strides " << t.strides() << " offset " << t.storage_offset() << "\n"
            << t << "\n";
}

int main() {
  std::cout << std::fixed << std::setprecision(4);
  torch::Tensor x = torch::arange(12, torch::kFloat);

  // as_strided_scatter: a copy of x with the strided view replaced; x unchanged.
  show("scatter", at::as_strided_scatter(x, torch::ones({2, 2}), {2, 2}, {1, 3}));
  show("scatter offset", x.as_strided_scatter(torch::full({3}, -1.0), {3}, {2}, 5));
  show("x after scatters", x);

  // The gradient of src: the view of g. (libtorch 1.13's gradient of self is g on the view and 0
  // off it, the reverse of what the function's derivative is: Ember gives g with the view zeroed,
  // checked by finite differences in tests/core/test_tensor_small_methods.cpp; not printed here.)
  torch::Tensor base = torch::arange(6, torch::kDouble).requires_grad_();
  torch::Tensor src = torch::full({2}, 10.0, torch::kDouble).requires_grad_();
  torch::Tensor out = at::as_strided_scatter(base, src, {2}, {3}, 1);
  (out * torch::arange(1, 7, torch::kDouble)).sum().backward();
  show("d src", src.grad());

  // as_strided_: every handle of the tensor takes the new geometry.
  torch::Tensor z = x.clone();
  torch::Tensor other_handle = z;
  at::as_strided_(z, {3, 2}, {2, 1}, 1);
  show("as_strided_", other_handle);
  z.as_strided_({2, 2}, {1, 2});
  show("as_strided_ method", z);

  // Functional resize / resize_as: new tensors, the input untouched; the kept elements first.
  show("resize", at::resize(x, {2, 3}));
  show("resize_as", at::resize_as(x, torch::zeros({3, 2})));
  show("x after resize", x);

  // resize_ / resize_as_ with memory formats.
  torch::Tensor c = torch::empty({0});
  c.resize_({2, 3, 4, 5}, torch::MemoryFormat::ChannelsLast);
  std::cout << "channels_last " << c.sizes() << " " << c.strides() << " "
            << c.is_contiguous(torch::MemoryFormat::ChannelsLast) << "\n";
  c.resize_({2, 3, 4, 5}, torch::MemoryFormat::Contiguous);
  std::cout << "restrided " << c.strides() << "\n";
  torch::Tensor cl = torch::zeros({1, 2, 3, 3}).contiguous(torch::MemoryFormat::ChannelsLast);
  torch::Tensor d = torch::empty({0});
  at::resize_as_(d, cl, torch::MemoryFormat::Preserve);
  std::cout << "resize_as_ preserve " << d.strides() << "\n";
  d.resize_as_(torch::zeros({2, 2}));
  std::cout << "resize_as_ method " << d.sizes() << " " << d.strides() << "\n";
  torch::Tensor v = torch::empty({2, 3, 4, 5, 6});
  v.resize_({2, 3, 4, 5, 6}, torch::MemoryFormat::ChannelsLast3d);
  std::cout << "channels_last_3d " << v.strides() << "\n";

  // set: a new tensor viewing source's storage; set(self): an empty tensor of self's dtype.
  torch::Tensor part = x.narrow(0, 2, 3);
  torch::Tensor s = at::set(x, part);
  show("set", s);
  std::cout << "set is_set_to " << s.is_set_to(part) << "\n";
  torch::Tensor e = at::set(torch::ones({2}, torch::kDouble));
  std::cout << "set() " << e.sizes() << " double " << (e.scalar_type() == torch::kDouble) << "\n";

  // out= forms.
  torch::Tensor o = torch::empty({0});
  at::as_strided_scatter_out(o, x, torch::zeros({2}), {2}, {5});
  show("as_strided_scatter_out", o);
  at::as_strided_scatter_outf(x, torch::full({1}, 7.0), {1}, {1}, 11, o);
  show("as_strided_scatter_outf", o);
  torch::Tensor r = torch::empty({0});
  at::resize_out(r, x, {3});
  show("resize_out", r);
  at::resize_as_outf(x, torch::zeros({2, 2}), c10::nullopt, r);
  show("resize_as_outf", r);
  torch::Tensor so = torch::empty({0});
  at::set_out(so, x, part);
  show("set_out", so);
  torch::Tensor es = torch::empty({0}, torch::kDouble);
  at::empty_strided_out(es, {2, 3}, {3, 1});
  std::cout << "empty_strided_out " << es.sizes() << " double " << (es.scalar_type() == torch::kDouble) << "\n";
  at::new_empty_strided_outf(x, {4}, {1}, es);
  std::cout << "new_empty_strided_outf " << es.sizes() << " double " << (es.scalar_type() == torch::kDouble) << "\n";
  torch::Tensor k = torch::empty({0}, torch::kDouble);
  at::kaiser_window_out(k, 5);
  show("kaiser_window_out", k);
  at::kaiser_window_outf(4, false, 6.0, k);
  show("kaiser_window_outf", k);
  std::vector<torch::Tensor> pieces{torch::empty({0}), torch::empty({0}), torch::empty({0})};
  at::unsafe_split_out(pieces, x, 5);
  for (const auto& p : pieces) show("unsafe_split_out", p);
  std::vector<torch::Tensor> two{torch::empty({0}), torch::empty({0})};
  at::unsafe_split_with_sizes_outf(x, {4, 8}, 0, two);
  show("unsafe_split_with_sizes_outf", two[1]);

  // What is refused.
  expect_error("as_strided_ outside the storage", [&] { at::as_strided_(x.clone(), {4}, {5}); });
  expect_error("as_strided_scatter src shape", [&] { at::as_strided_scatter(x, torch::ones({3}), {2}, {1}); });
  expect_error("as_strided_scatter outside", [&] { at::as_strided_scatter(x, torch::ones({2}), {2}, {20}); });
  expect_error("resize_ preserve", [&] { x.clone().resize_({2}, torch::MemoryFormat::Preserve); });
  expect_error("resize_ channels_last rank", [&] { x.clone().resize_({12}, torch::MemoryFormat::ChannelsLast); });
  expect_error("resize_ negative", [&] { at::resize(x, {-1}); });
  expect_error("unsafe_split_out count", [&] {
    std::vector<torch::Tensor> one{torch::empty({0})};
    at::unsafe_split_out(one, x, 5);
  });
  torch::Tensor w = torch::ones({10}, torch::requires_grad());
  expect_error("as_strided_scatter_out with grad", [&] {
    torch::Tensor sink = torch::empty({0});
    at::as_strided_scatter_out(sink, w, torch::zeros({1}), {1}, {1});
  });
  expect_error("set_out with grad", [&] {
    torch::Tensor sink = torch::empty({0});
    at::set_out(sink, w, x);
  });
  expect_error("unsafe_split_out with grad", [&] {
    std::vector<torch::Tensor> sinks{torch::empty({0}), torch::empty({0})};
    at::unsafe_split_out(sinks, w, 5);
  });
  expect_error("unsafe_split_with_sizes_out with grad", [&] {
    std::vector<torch::Tensor> sinks{torch::empty({0}), torch::empty({0})};
    at::unsafe_split_with_sizes_out(sinks, w, {5, 5});
  });
  return 0;
}
