// matmul with torch.matmul's rules, mm and bmm, and their backward.
//
// Every case becomes one batched (B, M, K) @ (B, K, N) call of the backend: 1-D operands gain
// and then lose a unit dim, batch dims broadcast (stride-0 views, never copies), and
// transposed operands stay transposed views that the backend hands to BLAS as flags.
// d(A @ B) = (G @ B^T, A^T @ G), summed back over broadcast batch dims.
#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::SavedVariable;

namespace {

// (..., M, K) @ (..., K, N) with batch dims already broadcast-compatible; both at least 2-D.
// With an addend (2-D, broadcastable to (M, N)), a 2-D product is made as addend + a @ b in one
// kernel when the backend has one; otherwise the caller adds it (the result says which).
Tensor batched_matmul(const Tensor& a, const Tensor& b, const char* op, const Tensor& addend = {},
                      bool* added = nullptr) {
  const int64_t M = a.size(-2), K = a.size(-1), K2 = b.size(-2), N = b.size(-1);
  EMBER_CHECK(K == K2, "{}: shapes {} and {} cannot be multiplied ({} != {})", op, a.sizes(), b.sizes(), K, K2);
  EMBER_CHECK(a.dtype() == b.dtype(), "{}: expected both operands to have the same dtype, but got {} and {}", op,
              dtype_name(a.dtype()), dtype_name(b.dtype()));
  EMBER_CHECK(a.device() == b.device(), "{}: expected both operands on the same device, got {} and {}", op,
              a.device().str(), b.device().str());
  std::vector<int64_t> batch =
      broadcast_shapes(IntArrayRef(a.sizes().data(), a.dim() - 2), IntArrayRef(b.sizes().data(), b.dim() - 2), op);
  const int64_t B = numel_of(batch);
  auto as3 = [&](const Tensor& t, int64_t rows, int64_t cols) {
    std::vector<int64_t> full = batch;
    full.push_back(rows);
    full.push_back(cols);
    Tensor e = kernel::broadcast_to(t, full);
    // Flatten the batch dims into one; they are mergeable unless a batch dim is both strided
    // and broadcast, in which case a contiguous copy is made.
    auto st = view_strides(e.sizes(), e.strides(), {B, rows, cols});
    if (!st) {
      e = kernel::contiguous(e);
      st = contiguous_strides({B, rows, cols});
    }
    return raw_view(e, {B, rows, cols}, *st, e.storage_offset());
  };
  Tensor out = raw_empty({B, M, N}, a.dtype(), a.device());
  bool fused = false;
  if (addend.defined()) fused = backend_for(a).matmul_add(out, as3(addend, M, N), as3(a, M, K), as3(b, K, N));
  if (!fused) backend_for(a).matmul(out, as3(a, M, K), as3(b, K, N));
  if (added) *added = fused;
  std::vector<int64_t> out_sz = batch;
  out_sz.push_back(M);
  out_sz.push_back(N);
  return raw_view(out, out_sz, contiguous_strides(out_sz), 0);
}

// A 2-D matrix stored column by column: the transpose of a contiguous one, as W.t() in a Linear.
bool is_transposed_matrix(const Tensor& m) {
  return m.dim() == 2 && m.size(0) > 1 && m.size(1) > 1 && m.stride(0) == 1 && m.stride(1) == m.size(0);
}

// The gradient of mat2 in mat1 @ mat2, m1^T g, made in mat2's own layout (as PyTorch does): for a
// transposed mat2 it is computed as (g^T m1)^T, so the weight behind W.t() gets a contiguous
// gradient that AccumulateGrad can keep without copying it.
Tensor mat2_grad(const Tensor& m1, const Tensor& g, bool transposed) {
  return transposed ? g.t().mm(m1).t() : m1.t().mm(g);
}

}  // namespace

Tensor matmul(const Tensor& a_arg, const Tensor& b_arg) {
  EMBER_TRACE_OP();
  // Under autocast (autograd/autocast.h) the product runs in its low-precision dtype.
  if (autograd::AutocastCall cast{autograd::AutocastOp::matmul, {a_arg, b_arg}}) return matmul(cast[0], cast[1]);
  const Tensor& a_in = a_arg;
  const Tensor& b_in = b_arg;
  kernel::check_same_device("matmul", {a_in, b_in});
  EMBER_CHECK(a_in.dim() > 0 && b_in.dim() > 0,
              "matmul: both arguments need to be at least 1D, but they are {}D and {}D", a_in.dim(), b_in.dim());
  // 1-D operands: a vector on the left is a row, on the right a column; the unit dim is removed after.
  const bool a_vec = a_in.dim() == 1, b_vec = b_in.dim() == 1;
  if (a_vec && b_vec)
    EMBER_CHECK(a_in.size(0) == b_in.size(0),
                "matmul: inconsistent tensor size, expected tensor [{}] and src [{}] to "
                "have the same number of elements, but got {} and {} elements respectively",
                a_in.size(0), b_in.size(0), a_in.size(0), b_in.size(0));
  if (!a_vec && !b_vec)
    EMBER_CHECK(a_in.size(-1) == b_in.size(-2), "matmul: shapes {} and {} cannot be multiplied ({} != {})",
                a_in.sizes(), b_in.sizes(), a_in.size(-1), b_in.size(-2));
  Tensor a = a_vec ? a_in.unsqueeze(0) : a_in;
  Tensor b = b_vec ? b_in.unsqueeze(-1) : b_in;
  if (a.size(-1) != b.size(-2))
    EMBER_FAIL("matmul: shapes {} and {} cannot be multiplied ({} != {})", a_in.sizes(), b_in.sizes(), a.size(-1),
               b.size(-2));
  Tensor y = batched_matmul(a, b, "matmul");
  if (any_requires_grad({&a, &b})) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad();
    record(a.dim() == 2 && b.dim() == 2 ? "MmBackward0" : "BmmBackward0", y, {a, b},
           [sa = SavedVariable(need_b ? a : Tensor(), false), sb = SavedVariable(need_a ? b : Tensor(), false),
            as = a.sizes().vec(), bs = b.sizes().vec(), need_a, need_b,
            b_transposed = a.dim() == 2 && is_transposed_matrix(b)](const Tensor& g) -> tensor_list {
             Tensor da, db;
             if (need_a) da = autograd::sum_to(matmul(g, sb.unpack("MmBackward0").mT()), as);
             if (need_b && b_transposed)
               db = mat2_grad(sa.unpack("MmBackward0"), g, true);
             else if (need_b)
               db = autograd::sum_to(matmul(sa.unpack("MmBackward0").mT(), g), bs);
             return {da, db};
           });
  }
  if (a_vec) y = y.squeeze(-2);
  if (b_vec) y = y.squeeze(-1);
  return y;
}

Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::mm, {a, b}}) return mm(cast[0], cast[1]);
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, "mm: expected 2-D tensors, got {}-D and {}-D (shapes {} and {})", a.dim(),
              b.dim(), a.sizes(), b.sizes());
  EMBER_CHECK(a.size(1) == b.size(0), "mm: shapes {} and {} cannot be multiplied ({} != {})", a.sizes(), b.sizes(),
              a.size(1), b.size(0));
  return matmul(a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::bmm, {a, b}}) return bmm(cast[0], cast[1]);
  EMBER_CHECK(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D tensors, got {}-D and {}-D (shapes {} and {})", a.dim(),
              b.dim(), a.sizes(), b.sizes());
  EMBER_CHECK(a.size(0) == b.size(0), "bmm: batch sizes differ: shapes {} and {} ({} != {})", a.sizes(), b.sizes(),
              a.size(0), b.size(0));
  EMBER_CHECK(a.size(2) == b.size(1), "bmm: shapes {} and {} cannot be multiplied ({} != {})", a.sizes(), b.sizes(),
              a.size(2), b.size(1));
  return matmul(a, b);
}

// addmm(self, m1, m2) = beta self + alpha (m1 @ m2), self broadcast to (n, p); the sum is made in the
// product's buffer. d = (beta g summed back to self's shape, alpha g @ m2^T, alpha m1^T @ g)
Tensor addmm(const Tensor& self_arg, const Tensor& mat1_arg, const Tensor& mat2_arg, const Scalar& beta,
             const Scalar& alpha) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addmm, {self_arg, mat1_arg, mat2_arg}})
    return addmm(cast[0], cast[1], cast[2], beta, alpha);
  const Tensor& self = self_arg;
  const Tensor& mat1 = mat1_arg;
  const Tensor& mat2 = mat2_arg;
  kernel::check_same_device("addmm", {self, mat1, mat2});
  EMBER_CHECK(mat1.dim() == 2 && mat2.dim() == 2, "addmm: expected 2-D matrices, got shapes {} and {}", mat1.sizes(),
              mat2.sizes());
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "addmm: shapes {} and {} cannot be multiplied ({} != {})", mat1.sizes(),
              mat2.sizes(), mat1.size(1), mat2.size(0));
  EMBER_CHECK(self.dtype() == mat1.dtype(), "addmm: self has dtype {} but the matrices have {}",
              dtype_name(self.dtype()), dtype_name(mat1.dtype()));
  EMBER_CHECK(self.device() == mat1.device(), "addmm: self is on {} but the matrices are on {}", self.device().str(),
              mat1.device().str());
  const std::vector<int64_t> out_sizes{mat1.size(0), mat2.size(1)};
  bool broadcasts = self.dim() <= 2;
  for (int64_t i = 1; broadcasts && i <= self.dim(); ++i)
    broadcasts = self.size(-i) == 1 || self.size(-i) == out_sizes[2 - i];
  EMBER_CHECK(broadcasts, "addmm: self of shape {} does not broadcast to the product's shape {}", self.sizes(),
              IntArrayRef(out_sizes));
  const double a = alpha.toDouble(), b = beta.toDouble();
  const bool need_m1 = mat1.requires_grad(), need_m2 = mat2.requires_grad();
  return autograd::apply_fused(
      {.name = "AddmmBackward0",
       .inputs = {self, mat1, mat2},
       .saved = {need_m2 ? mat1 : Tensor(), need_m1 ? mat2 : Tensor()},
       // the sum in the product's buffer where the backend can (BLAS's beta = 1), else a second pass
       .forward = {.fused = [&]() -> std::optional<tensor_list> {
         bool added = false;
         Tensor out = batched_matmul(mat1, mat2, "addmm", a == 1.0 && b == 1.0 ? self : Tensor(), &added);
         if (a != 1.0) kernel::binary_(BinaryOp::Mul, out, kernel::scalar(alpha, out.dtype(), out.device()));
         if (b != 0.0 && !added)
           kernel::binary_(
               BinaryOp::Add, out,
               b == 1.0 ? self
                        : kernel::binary(BinaryOp::Mul, self, kernel::scalar(beta, self.dtype(), self.device())));
         return tensor_list{out};
       }},
       .backward = {.composed = [self_sizes = self.sizes().vec(), need_m1, need_m2,
                                 m2_transposed = is_transposed_matrix(mat2), a,
                                 b](const Tensor& g, const tensor_list& saved) -> tensor_list {
         Tensor dself = autograd::sum_to(b == 1.0 ? g : g * b, self_sizes);
         Tensor ga = a == 1.0 ? g : g * a;
         Tensor dm1 = need_m1 ? ga.mm(saved[1].t()) : Tensor();
         Tensor dm2 = need_m2 ? mat2_grad(saved[0], ga, m2_transposed) : Tensor();
         return {dself, dm1, dm2};
       }}});
}

Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }

// ---- vector products: composed from matmul and mul, so their gradients come with them ----

namespace {
void check_vector(const char* op, const char* which, const Tensor& t) {
  EMBER_CHECK(t.dim() == 1, "{}: Expected 1-D argument {}, but got {}-D (shape {})", op, which, t.dim(), t.sizes());
}
}  // namespace

// outer(u, v)[i, j] = u[i] v[j]
Tensor Tensor::outer(const Tensor& vec2) const {
  EMBER_TRACE_OP();
  check_vector("outer", "self", *this);
  check_vector("outer", "vec2", vec2);
  return reshape({-1, 1}) * vec2;
}
Tensor Tensor::dot(const Tensor& other) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() == 1 && other.dim() == 1, "dot: 1D tensors expected, but got {}D and {}D tensors", dim(),
              other.dim());
  EMBER_CHECK(numel() == other.numel(),
              "dot: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, "
              "but got {} and {} elements respectively",
              numel(), other.numel(), numel(), other.numel());
  EMBER_CHECK(dtype() == other.dtype(), "dot : expected both vectors to have same dtype, but found {} and {}",
              scalar_type_name(dtype()), scalar_type_name(other.dtype()));
  return ember::matmul(*this, other);
}
// mat (n, m) @ vec (m) -> (n)
Tensor Tensor::mv(const Tensor& vec) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::mv, {*this, vec}}) return cast[0].mv(cast[1]);
  EMBER_CHECK(dim() == 2 && vec.dim() == 1,
              "mv: vector + matrix @ vector expected, got {}-D and {}-D (shapes {} and {})", dim(), vec.dim(), sizes(),
              vec.sizes());
  EMBER_CHECK(size(1) == vec.size(0), "mv: size mismatch, got input ({}), mat ({}x{}), vec ({})", size(0), size(0),
              size(1), vec.size(0));
  const autograd::AutocastExcluded off;  // off the CPU's list, so not cast there as matmul would be
  return ember::matmul(*this, vec);
}

}  // namespace ember
