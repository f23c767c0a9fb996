// libtorch's remaining small Tensor methods (core/tensor.h): the random fills log_normal_, cauchy_
// and geometric_ (the numbers PyTorch 1.13 draws for the same seed), bernoulli as a method, renorm
// (values and gradients from PyTorch 1.13, gradcheck), set_ / is_set_to / has_storage, the strided
// geometry (as_strided_, as_strided_scatter, resize_ with a memory format, is_view), and the
// one-line forms (isreal, unsafe_chunk, mH, numpy_T, nonzero_numpy, i0, lu_solve).
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "autograd/special.h"
#include "fixture_cases.h"
#include "test_util.h"

namespace ember {
namespace {

std::vector<double> values(const Tensor& t) { return t.to(kDouble).to_vector<double>(); }

// Expected values: torch.manual_seed(3); torch.empty(...).log_normal_(...) and so on, in PyTorch 1.13.
TEST(TensorSmallMethods, RandomFillsDrawPyTorchsNumbers) {
  manual_seed(3);
  EXPECT_EQ(values(empty({5}, kDouble).log_normal_(0.5, 0.75)),
            (std::vector<double>{3.0115565115404044, 1.879724164298284, 1.7625005561836162, 1.0405105375625212,
                                 1.7068282758201165}));
  manual_seed(3);
  EXPECT_EQ(values(empty({5}).cauchy_(1.0, 2.0)),
            (std::vector<double>{-17.593225479125977, -0.584428071975708, 3.3108747005462646, -2.26538348197937,
                                 3.0686442852020264}));
  manual_seed(3);
  EXPECT_EQ(empty({6}, kLong).geometric_(0.3).to_vector<int64_t>(), (std::vector<int64_t>{10, 4, 1, 5, 1, 2}));
  manual_seed(3);
  EXPECT_EQ(values(empty({4}).log_normal_()),
            (std::vector<double>{13.552244186401367, 3.856140375137329, 3.247729778289795, 0.7965734004974365}));
  EXPECT_THROWS_WITH(empty({2}).log_normal_(0, 0), "log_normal_ expects std > 0.0, but found std=0");
  EXPECT_THROWS_WITH(empty({2}).cauchy_(0, -1), "cauchy_ expects sigma > 0.0, but found sigma=-1");
  EXPECT_THROWS_WITH(empty({2}).geometric_(1.0), "geometric_ expects p to be in (0, 1), but got p=1");
  EXPECT_THROWS_WITH(empty({2}, kLong).cauchy_(), "cauchy_: expected a floating point tensor, got int64");

  // bernoulli as a method: the same draws as the function.
  const Tensor p = tensor({0.1, 0.9, 0.5, 0.0, 1.0});
  manual_seed(7);
  const Tensor a = p.bernoulli();
  manual_seed(7);
  EXPECT_TRUE(a.equal(bernoulli(p)));
  EXPECT_EQ(a[3].item<double>(), 0.0);
  EXPECT_EQ(a[4].item<double>(), 1.0);
  manual_seed(7);
  const Tensor b = p.bernoulli(0.5);
  manual_seed(7);
  EXPECT_TRUE(b.equal(bernoulli(p, 0.5)));
}

TEST(TensorSmallMethods, RenormMatchesPyTorch) {
  Tensor x = tensor({{1.0, 2.0, 2.0}, {0.5, 0.1, 0.2}, {3.0, -4.0, 0.0}}, kDouble).requires_grad_();
  Tensor y = x.renorm(2, 0, 1.5);
  EXPECT_TENSOR_CLOSE(y,
                      tensor({{0.4999999833333339, 0.9999999666666678, 0.9999999666666678},
                              {0.5, 0.1, 0.2},
                              {0.8999999820000003, -1.1999999760000004, 0.0}},
                             kDouble),
                      1e-15, 1e-15);
  (y * arange(9, kDouble).view({3, 3})).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(),
                      tensor({{-0.3333333111111123, -0.16666663888889063, 0.33333334444444335},
                              {3.0, 4.0, 5.0},
                              {2.1599999496000013, 1.6199999772000002, 2.399999952000001}},
                             kDouble),
                      1e-14, 1e-14);
  Tensor z = tensor({{1.0f, 2.0f, 2.0f}, {0.5f, 0.1f, 0.2f}}).renorm(1, 1, 1.0);
  EXPECT_TENSOR_CLOSE(z,
                      tensor({{0.6666666269302368f, 0.9523810148239136f, 0.9090908765792847f},
                              {0.3333333134651184f, 0.0476190522313118f, 0.09090908616781235f}}),
                      1e-7, 1e-7);
  Tensor w = tensor({{3.0, 4.0}, {0.3, 0.4}}, kDouble);
  w.renorm_(2, 0, 1.0);
  EXPECT_NEAR(w[0][0].item<double>(), 0.6, 1e-7);
  EXPECT_EQ(w[1][1].item<double>(), 0.4);
  ember::test::check_grad_cases(
      {{"renorm", [](const tensor_list& in) { return in[0].renorm(3, 1, 0.5); }, {ember::test::wave64({3, 4}, 0.2)}}});
  EXPECT_THROWS_WITH(tensor({1.0, 2.0}).renorm(2, 0, 1.0), "renorm: input needs at least 2 dimensions, got 1");
  EXPECT_THROWS_WITH(x.detach().renorm(0, 0, 1.0), "renorm: non-positive-norm not supported");
  EXPECT_THROWS_WITH(x.detach().renorm(2, 0, -1.0), "renorm: expected maxnorm to be >= 0 but got -1");
}

TEST(TensorSmallMethods, SetAndStorageQueries) {
  Tensor a = zeros({2, 3});
  Tensor alias = a;  // a second handle of the same tensor sees set_
  const Tensor source = arange(4, kFloat).reshape({2, 2});
  a.set_(source);
  EXPECT_EQ(alias.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(alias.is_set_to(source));
  EXPECT_FALSE(alias.is_set_to(source.t()));
  EXPECT_FALSE(source.is_set_to(source.clone()));
  source[1][1].fill_(-7);  // one storage
  EXPECT_EQ(a[1][1].item<float>(), -7.0f);
  EXPECT_TRUE(a.has_storage());
  EXPECT_FALSE(Tensor().has_storage());
  Tensor leaf = zeros({2}).requires_grad_();
  EXPECT_THROWS_WITH(leaf.set_(zeros({3})), "set_: a tensor that requires grad cannot take another's storage");
  {
    NoGradGuard no_grad;
    leaf.set_(zeros({3}));
  }
  EXPECT_EQ(leaf.numel(), 3);
  EXPECT_TRUE(leaf.requires_grad());
}

// as_strided_ / as_strided_scatter, resize_ with a memory format, is_view: values hand-computed
// (the same calls print the same numbers in libtorch 1.13: tests/compat/programs/tensor_geometry.cpp).
TEST(TensorSmallMethods, StridedGeometry) {
  const Tensor x = arange(12, kDouble);
  // Elements 0, 3, 1, 4 (sizes {2, 2}, strides {1, 3}) replaced by 10, 11, 12, 13; x unchanged.
  EXPECT_EQ(values(x.as_strided_scatter(tensor({10.0, 11.0, 12.0, 13.0}).reshape({2, 2}), {2, 2}, {1, 3})),
            (std::vector<double>{10, 12, 2, 11, 13, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(values(x.as_strided_scatter(full({2}, -1.0, kDouble), {2}, {4}, 3)),
            (std::vector<double>{0, 1, 2, -1, 4, 5, 6, -1, 8, 9, 10, 11}));
  EXPECT_EQ(values(x), values(arange(12, kDouble)));
  // d self = g with the view zeroed, d src = the view of g.
  Tensor base = arange(6, kDouble).requires_grad_(), src = full({2}, 10.0, kDouble).requires_grad_();
  (base.as_strided_scatter(src, {2}, {3}, 1) * arange(1, 7, kDouble)).sum().backward();
  EXPECT_EQ(values(base.grad()), (std::vector<double>{1, 0, 3, 4, 0, 6}));
  EXPECT_EQ(values(src.grad()), (std::vector<double>{2, 5}));
  // And by finite differences (libtorch 1.13 returns g on the view for self instead: its bug).
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) {
        return in[0].as_strided_scatter(in[1], {2, 2}, {1, 3}, 1);
      },
      {randn({12}, kDouble).requires_grad_(), randn({2, 2}, kDouble).requires_grad_()}));
  EXPECT_THROWS_WITH(x.as_strided_scatter(ones({3}, kDouble), {2}, {1}),
                     "as_strided_scatter: expected src to have a size equal to the as_strided view of self");

  // as_strided_: every handle takes the geometry.
  Tensor z = x.clone();
  const Tensor other = z;
  z.as_strided_({3, 2}, {2, 1}, 1);
  EXPECT_EQ(other.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(other.storage_offset(), 1);
  EXPECT_EQ(values(other), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROWS_WITH(z.as_strided_({4}, {5}), "as_strided: sizes [4] and strides [5] at offset 1 reach outside");

  // resize_ with memory formats; Preserve is refused, as libtorch's.
  Tensor c = empty({0});
  c.resize_({2, 3, 4, 5}, MemoryFormat::ChannelsLast);
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
  c.resize_({2, 3, 4, 5}, MemoryFormat::Contiguous);
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{60, 20, 5, 1}));
  c.resize_as_(zeros({1, 2, 3, 3}).contiguous(MemoryFormat::ChannelsLast), MemoryFormat::Preserve);
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{18, 1, 6, 2}));
  EXPECT_THROWS_WITH(c.resize_({2}, MemoryFormat::Preserve), "resize_: Unsupported memory format Preserve");
  EXPECT_THROWS_WITH(c.resize_({2}, MemoryFormat::ChannelsLast), "resize_: required rank 4 tensor");

  // is_view: views (as_strided and alias included), not copies or fresh tensors.
  EXPECT_FALSE(x.is_view());
  EXPECT_TRUE(x.narrow(0, 1, 2).is_view());
  EXPECT_TRUE(x.view({3, 4}).t().is_view());
  EXPECT_TRUE(x.as_strided({2}, {2}).is_view());
  EXPECT_TRUE(x.alias().is_view());
  EXPECT_FALSE(x.narrow(0, 1, 2).clone().is_view());
  // An in-place write into an as_strided view reaches its base's gradient, as through any view.
  Tensor w = full({2}, 3.0, kDouble).requires_grad_();
  Tensor y = zeros({5}, kDouble);
  y.as_strided({2}, {2}, 1).add_(w);
  (y * arange(1, 6, kDouble)).sum().backward();
  EXPECT_EQ(values(y.detach()), (std::vector<double>{0, 3, 0, 3, 0}));
  EXPECT_EQ(values(w.grad()), (std::vector<double>{2, 4}));
}

TEST(TensorSmallMethods, OneLineForms) {
  const Tensor x = arange(24, kDouble).reshape({2, 3, 4});
  EXPECT_TRUE(x.isreal().all().item<bool>());
  EXPECT_EQ(x.isreal().dtype(), kBool);
  EXPECT_EQ(x.unsafe_chunk(2, 2).size(), 2u);
  EXPECT_EQ(x.unsafe_split(2, 1).size(), 2u);
  EXPECT_EQ(x.unsafe_split_with_sizes({1, 3}, 2)[1].sizes(), (std::vector<int64_t>{2, 3, 3}));
  EXPECT_TRUE(x.mH().equal(x.transpose(-2, -1)));
  EXPECT_TRUE(x.matrix_H().equal(x.transpose(1, 2)));
  EXPECT_EQ(x.numpy_T().sizes(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(x.numpy_T()[3][2][1].item<double>(), 23.0);
  const tensor_list nz = tensor({{0, 3}, {5, 0}}).nonzero_numpy();
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(nz[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(nz[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  const Tensor k = tensor({0.0, 1.0, 2.5}, kDouble);
  EXPECT_TRUE(k.i0().equal(special::i0(k)));
  Tensor k2 = k.clone();
  k2.i0_();
  EXPECT_TRUE(k2.equal(special::i0(k)));
  const Tensor A = tensor({{4.0, 1.0}, {2.0, 3.0}}, kDouble);
  const Tensor B = tensor({{1.0}, {2.0}}, kDouble);
  auto [LU, pivots] = linalg::lu_factor(A);
  EXPECT_TENSOR_CLOSE(A.matmul(B.lu_solve(LU, pivots)), B, 1e-12, 1e-12);
}

}  // namespace
}  // namespace ember
