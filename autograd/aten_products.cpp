// ATen's product functions (autograd/aten_functions.h): einsum, addmv, addr, addbmm, baddbmm, inner,
// vdot, chain_matmul. All are permutes, reshapes, diagonals, sums and matrix products of Ember's own
// ops, so their gradients are those ops' and they run on every device.
#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "core/error.h"
#include "core/trace.h"

namespace ember {

namespace {

// ---- einsum ----

// Labels are 0..51 ('A'-'Z' then 'a'-'z': the implicit output's order, as PyTorch sorts it); the
// dims an ellipsis covers get labels from kEllipsisBase, right-aligned across operands.
constexpr int kLetters = 52;
constexpr int kEllipsisBase = kLetters;

int label_of(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char letter_of(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + label - 26); }

// One term of the equation: its labels in order, kEllipsis where "..." stands.
constexpr int kEllipsis = -1;
struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
};

struct Equation {
  std::vector<Term> inputs;
  bool explicit_output = false;
  Term output;
};

Equation parse_equation(std::string_view equation) {
  Equation eq;
  Term* term = &eq.inputs.emplace_back();
  auto where = [&] {
    return eq.explicit_output ? std::string("output") : fmt::format("operand {}", eq.inputs.size() - 1);
  };
  for (size_t i = 0; i < equation.size(); ++i) {
    const char c = equation[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!term->has_ellipsis && equation.substr(i, 3) == "...",
                  "einsum(): found '.' for {} that is not part of any ellipsis", where());
      term->labels.push_back(kEllipsis);
      term->has_ellipsis = true;
      i += 2;
    } else if (c == ',') {
      EMBER_CHECK(!eq.explicit_output, "einsum(): found ',' in the output at index {} of the equation", i);
      term = &eq.inputs.emplace_back();
    } else if (c == '-') {
      EMBER_CHECK(!eq.explicit_output && i + 1 < equation.size() && equation[i + 1] == '>',
                  "einsum(): found '-' at index {} of the equation that is not part of '->'", i);
      eq.explicit_output = true;
      term = &eq.output;
      ++i;
    } else {
      EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
                  "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in "
                  "[a-zA-Z]",
                  i);
      term->labels.push_back(label_of(c));
    }
  }
  return eq;
}

// An operand with one label per dim (no repeats), as the contraction goes.
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Sums out the dims whose labels `keep` rejects.
template <typename Keep>
Labeled sum_unkept(Labeled x, Keep keep) {
  std::vector<int64_t> dims;
  std::vector<int> kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep(x.labels[d]))
      kept.push_back(x.labels[d]);
    else
      dims.push_back(static_cast<int64_t>(d));
  }
  if (!dims.empty()) x.t = x.t.sum(dims);
  x.labels = kept;
  return x;
}

// a and b contracted over the labels they share and `keep` rejects, as one batched matrix product:
// a as (batch, left, summed), b as (batch, summed, right). Shared dims of size 1 broadcast.
template <typename Keep>
Labeled contract(const Labeled& a, const Labeled& b, Keep keep) {
  std::vector<int> batch, left, summed, right;
  for (int l : a.labels) {
    if (contains(b.labels, l))
      (keep(l) ? batch : summed).push_back(l);
    else
      left.push_back(l);
  }
  for (int l : b.labels)
    if (!contains(a.labels, l)) right.push_back(l);
  auto size_in = [](const Labeled& x, int l) {
    return x.t.size(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
  };
  // Permutes x to the label order `order` and expands the shared dims to their broadcast sizes.
  auto arrange = [&](const Labeled& x, const std::vector<int>& order) {
    std::vector<int64_t> perm, sizes;
    for (int l : order) {
      perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
      const bool shared = contains(a.labels, l) && contains(b.labels, l);
      sizes.push_back(shared ? std::max(size_in(a, l), size_in(b, l)) : size_in(x, l));
    }
    return x.t.permute(perm).expand(sizes);
  };
  auto cat3 = [](std::vector<int> x, const std::vector<int>& y, const std::vector<int>& z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  const Tensor ta = arrange(a, cat3(batch, left, summed));
  const Tensor tb = arrange(b, cat3(batch, summed, right));
  auto product = [](const Tensor& t, size_t from, size_t count) {
    int64_t n = 1;
    for (size_t d = from; d < from + count; ++d) n *= t.size(static_cast<int64_t>(d));
    return n;
  };
  const size_t nb = batch.size(), nl = left.size(), ns = summed.size(), nr = right.size();
  const int64_t B = product(ta, 0, nb), L = product(ta, nb, nl), S = product(ta, nb + nl, ns),
                R = product(tb, nb + ns, nr);
  Tensor out = ta.reshape({B, L, S}).bmm(tb.reshape({B, S, R}));
  std::vector<int64_t> sizes;
  for (size_t d = 0; d < nb + nl; ++d) sizes.push_back(ta.size(static_cast<int64_t>(d)));
  for (size_t d = nb + ns; d < nb + ns + nr; ++d) sizes.push_back(tb.size(static_cast<int64_t>(d)));
  return {out.reshape(sizes), cat3(batch, left, right)};
}

}  // namespace

Tensor einsum(std::string_view equation, const tensor_list& tensors, std::optional<IntArrayRef> path) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::einsum, tensors}) return einsum(equation, cast.tensors(), path);
  (void)path;  // the order of contraction is always left to right
  EMBER_CHECK(!tensors.empty(),
              "einsum(): must specify the equation string and at least one operand, or at least one operand and "
              "its subscripts list");
  Equation eq = parse_equation(equation);
  EMBER_CHECK(eq.inputs.size() <= tensors.size(),
              "einsum(): fewer operands were provided than specified in the equation");
  EMBER_CHECK(eq.inputs.size() >= tensors.size(),
              "einsum(): more operands were provided than specified in the equation");

  // The ellipsis covers the same number of trailing dims in every operand, broadcast from the right.
  int64_t ellipsis_dims = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Term& term = eq.inputs[i];
    const int64_t named = static_cast<int64_t>(term.labels.size()) - (term.has_ellipsis ? 1 : 0);
    if (term.has_ellipsis) {
      EMBER_CHECK(named <= tensors[i].dim(),
                  "einsum(): the number of subscripts in the equation ({}) is more than the number of dimensions ({}) "
                  "for operand {}",
                  named, tensors[i].dim(), i);
      ellipsis_dims = std::max(ellipsis_dims, tensors[i].dim() - named);
      EMBER_CHECK(ellipsis_dims <= 64, "einsum(): an ellipsis covers at most 64 dims, got {} for operand {}",
                  ellipsis_dims, i);
    } else {
      EMBER_CHECK(named == tensors[i].dim(),
                  "einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions "
                  "({}) for operand {} and no ellipsis was given",
                  named, tensors[i].dim(), i);
    }
  }

  // The output's labels, checked before the operands' sizes as PyTorch does: as written, else the
  // ellipsis then every label seen once in the equation, in label order.
  std::vector<int> in_equation(kLetters, 0);  // how often each label is written on the left
  for (const Term& term : eq.inputs)
    for (int l : term.labels)
      if (l != kEllipsis) ++in_equation[l];
  std::vector<int> out_labels;
  for (int64_t e = 0; !eq.explicit_output && e < ellipsis_dims; ++e)
    out_labels.push_back(kEllipsisBase + static_cast<int>(e));
  for (int l : eq.explicit_output ? eq.output.labels : std::vector<int>{}) {
    if (l == kEllipsis) {
      for (int64_t e = 0; e < ellipsis_dims; ++e) out_labels.push_back(kEllipsisBase + static_cast<int>(e));
      continue;
    }
    EMBER_CHECK(!contains(out_labels, l), "einsum(): output subscript {} appears more than once in the output",
                letter_of(l));
    EMBER_CHECK(in_equation[l] > 0,
                "einsum(): output subscript {} does not appear in the equation for any input operand", letter_of(l));
    out_labels.push_back(l);
  }
  for (int l = 0; !eq.explicit_output && l < kLetters; ++l)
    if (in_equation[l] == 1) out_labels.push_back(l);

  // Each operand with one label per dim: the ellipsis expanded, then, dim by dim, a repeated label's
  // size checked against its first dim and every size against the label's size in earlier operands
  // (equal, or 1 on either side: broadcast); then repeated labels reduced to their diagonal.
  std::array<int64_t, kEllipsisBase + 64> seen_size;
  seen_size.fill(-1);
  std::vector<Labeled> operands;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Term& term = eq.inputs[i];
    Labeled x{tensors[i], {}};
    const int64_t covered = tensors[i].dim() - (static_cast<int64_t>(term.labels.size()) - (term.has_ellipsis ? 1 : 0));
    for (int l : term.labels) {
      if (l != kEllipsis) {
        x.labels.push_back(l);
        continue;
      }
      for (int64_t e = ellipsis_dims - covered; e < ellipsis_dims; ++e)
        x.labels.push_back(kEllipsisBase + static_cast<int>(e));
    }
    for (size_t d = 0; d < x.labels.size(); ++d) {
      const int l = x.labels[d];
      const int64_t n = x.t.size(static_cast<int64_t>(d));
      const auto first = std::find(x.labels.begin(), x.labels.begin() + static_cast<int64_t>(d), l);
      if (first != x.labels.begin() + static_cast<int64_t>(d)) {
        const int64_t before = x.t.size(first - x.labels.begin());
        EMBER_CHECK(n == before,
                    "einsum(): subscript {} is repeated for operand {} but the sizes don't match, {} != {}",
                    letter_of(l), i, n, before);  // an ellipsis dim is never repeated
        continue;
      }
      if (n == 1) continue;
      if (seen_size[l] > 1 && seen_size[l] != n) {
        if (l >= kEllipsisBase)
          EMBER_FAIL(
              "einsum(): dimension {} covered by ellipsis in operand {} has size {} which does not broadcast with "
              "previously seen ellipsis with size {} for the respective dimension",
              d, i, n, seen_size[l]);
        EMBER_FAIL(
            "einsum(): subscript {} has size {} for operand {} which does not broadcast with previously seen "
            "size {}",
            letter_of(l), n, i, seen_size[l]);
      }
      seen_size[l] = n;
    }
    for (size_t d = 0; d < x.labels.size();) {  // a repeated label: the diagonal of its two dims
      const auto again = std::find(x.labels.begin() + static_cast<int64_t>(d) + 1, x.labels.end(), x.labels[d]);
      if (again == x.labels.end()) {
        ++d;
        continue;
      }
      const int64_t d2 = again - x.labels.begin();
      const int l = x.labels[d];
      x.t = x.t.diagonal(0, static_cast<int64_t>(d), d2);
      x.labels.erase(x.labels.begin() + d2);
      x.labels.erase(x.labels.begin() + static_cast<int64_t>(d));
      x.labels.push_back(l);
    }
    operands.push_back(std::move(x));
  }

  // Left to right: a label stays while the output or a later operand has it.
  auto kept_after = [&](size_t k) {
    return [&, k](int l) {
      if (contains(out_labels, l)) return true;
      for (size_t j = k + 1; j < operands.size(); ++j)
        if (contains(operands[j].labels, l)) return true;
      return false;
    };
  };
  // Dims that nothing later needs are summed before each product, so no product carries them.
  Labeled result = operands[0];
  for (size_t k = 1; k < operands.size(); ++k) {
    auto keep = kept_after(k);
    Labeled next = operands[k];
    result = sum_unkept(result, [&](int l) { return keep(l) || contains(next.labels, l); });
    next = sum_unkept(next, [&](int l) { return keep(l) || contains(result.labels, l); });
    result = contract(result, next, keep);
  }
  result = sum_unkept(result, [&](int l) { return contains(out_labels, l); });
  std::vector<int64_t> perm;
  for (int l : out_labels)
    perm.push_back(std::find(result.labels.begin(), result.labels.end(), l) - result.labels.begin());
  return result.t.permute(perm);
}

// ---- matrix products with an added term ----

namespace {
// beta * self + alpha * product, as PyTorch's addmm family: with beta == 0, self is ignored (NaN in it
// does not propagate); with alpha == 1 and beta == 1, no multiplications.
Tensor scaled_sum(const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  const Tensor scaled = alpha.to<double>() == 1.0 ? product : product * alpha;
  if (beta.to<double>() == 0.0) return scaled + zeros_like(self).expand_as(scaled);
  return (beta.to<double>() == 1.0 ? self : self * beta) + scaled;
}
}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addmv, {self, mat, vec}})
    return addmv(cast[0], cast[1], cast[2], beta, alpha);
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got {}, {}, {}", self.dim(),
              mat.dim(), vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (self.dim() == 0 || self.size(-1) == mat.size(0) || self.size(-1) == 1),
              "size mismatch, got {}, {}x{},{}", self.dim() == 0 ? 1 : self.size(0), mat.size(0), mat.size(1),
              vec.size(0));
  return scaled_sum(self, mat.mv(vec), beta, alpha);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addr, {self, vec1, vec2}})
    return addr(cast[0], cast[1], cast[2], beta, alpha);
  EMBER_CHECK(vec1.dim() == 1 && vec2.dim() == 1, "addr: Expected 1-D argument vec1 and vec2, but got {}-D and {}-D",
              vec1.dim(), vec2.dim());
  return scaled_sum(self.expand({vec1.size(0), vec2.size(0)}), vec1.outer(vec2), beta, alpha);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::baddbmm, {self, batch1, batch2}})
    return baddbmm(cast[0], cast[1], cast[2], beta, alpha);
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "batch1 must be a 3D tensor; batch2 must be a 3D tensor");
  EMBER_CHECK(batch2.size(0) == batch1.size(0) && batch2.size(1) == batch1.size(2),
              "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
              batch1.size(0), batch1.size(2), batch2.size(0), batch2.size(1));
  return scaled_sum(self.expand({batch1.size(0), batch1.size(1), batch2.size(2)}), batch1.bmm(batch2), beta, alpha);
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addbmm, {self, batch1, batch2}})
    return addbmm(cast[0], cast[1], cast[2], beta, alpha);
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "batch1 must be a 3D tensor; batch2 must be a 3D tensor");
  EMBER_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got {} and {}",
              batch1.size(0), batch2.size(0));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm ({}x{} and {}x{})", batch1.size(1),
              batch1.size(2), batch2.size(1), batch2.size(2));
  return scaled_sum(self.expand({batch1.size(1), batch2.size(2)}), batch1.bmm(batch2).sum({0}), beta, alpha);
}

Tensor inner(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  EMBER_CHECK(self.size(-1) == other.size(-1),
              "inner() the last dimension must match on both input tensors but got shapes {} and {}", self.sizes(),
              other.sizes());
  return tensordot(self, other, {-1}, {-1});
}

Tensor vdot(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got {}D and {}D tensors", self.dim(),
              other.dim());
  EMBER_CHECK(self.size(0) == other.size(0),
              "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but "
              "got {} and {} elements respectively",
              self.size(0), other.size(0), self.size(0), other.size(0));
  return self.dot(other);
}

Tensor chain_matmul(const tensor_list& matrices) {
  EMBER_TRACE_OP();
  static std::atomic<bool> warned{false};  // once per process, as libtorch's TORCH_WARN_ONCE
  if (!warned.exchange(true) || get_warn_always()) {
    EMBER_WARN(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
        "instead, which accepts a list of two or more tensors rather than multiple parameters.");
  }
  if (autograd::AutocastCall cast{autograd::AutocastOp::chain_matmul, matrices}) return chain_matmul(cast.tensors());
  EMBER_CHECK(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : matrices) EMBER_CHECK(m.dim() == 2, "Tensor dimension is {}, expected 2 instead.", m.dim());
  if (matrices.size() == 1) return matrices[0].clone();
  Tensor out = matrices[0];
  for (size_t i = 1; i < matrices.size(); ++i) out = out.mm(matrices[i]);
  return out;
}

}  // namespace ember
