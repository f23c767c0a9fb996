// torch::linalg as a libtorch program calls it: det, slogdet, inv, solve (matrix and vector
// right-hand sides), cholesky, qr, eigh, eigvalsh, svd, svdvals, matrix_norm, vector_norm, norm,
// matrix_power, matrix_exp, pinv, matrix_rank, cond, multi_dot, solve_triangular, and the ATen and
// Tensor-method spellings (at::linalg_*, torch::det, A.inverse(), A.logdet()); gradients of det, inv,
// solve, cholesky and eigvalsh; PyTorch's errors for singular, indefinite and integer input. Only
// sign-stable quantities are printed (reconstructions, |Q|, eigenvalues, singular values).
#include <iomanip>
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

void print(const std::string& name, const torch::Tensor& t) {
  auto flat = t.detach().to(torch::kFloat64).contiguous().reshape({-1});
  std::cout << name << " [";
  for (int64_t i = 0; i < t.dim(); ++i) std::cout << (i ? "," : "") << t.size(i);
  std::cout << "]:";
  for (int64_t i = 0; i < flat.numel(); ++i) std::cout << ' ' << flat[i].item<double>();
  std::cout << '\n';
}

}  // namespace

int main() {
  std::cout << std::setprecision(8);
  auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  auto A = torch::tensor({{4.0, 1.0, 0.5}, {1.0, 3.0, -0.2}, {0.5, -0.2, 2.0}}, opts);
  auto B = torch::tensor({{1.0, 2.0}, {0.0, -1.0}, {3.0, 0.5}}, opts);
  auto N = torch::tensor({{1.0, 2.0, 0.0}, {-1.0, 0.5, 3.0}, {2.0, 1.0, 1.0}, {0.0, -2.0, 1.0}}, opts);

  print("det", torch::linalg::det(A));
  print("linalg_det", torch::linalg::linalg_det(A));
  auto [sign, logabsdet] = torch::linalg::slogdet(N.narrow(0, 0, 3));
  print("slogdet sign", sign);
  print("slogdet logabsdet", logabsdet);
  print("torch::det", torch::det(N.narrow(0, 1, 3)));
  print("logdet", A.logdet());
  print("inv", torch::linalg::inv(A));
  print("inverse", A.inverse());
  print("solve", torch::linalg::solve(A, B, true));
  print("solve vector", torch::linalg::solve(A, torch::tensor({1.0, -1.0, 2.0}, opts), true));
  print("solve left=false", torch::linalg::solve(A, B.t(), false));
  auto L = torch::linalg::cholesky(A);
  print("cholesky", L);
  print("cholesky_ex info", std::get<1>(at::linalg_cholesky_ex(A)));
  print("cholesky upper", torch::cholesky(A, true));

  auto [Q, R] = torch::linalg::qr(N, "reduced");
  std::cout << "qr Q R == A: " << torch::allclose(Q.matmul(R), N) << '\n';
  print("qr |Q|", Q.abs());
  print("qr |R|", R.abs());
  auto [Qc, Rc] = torch::linalg::qr(N, "complete");
  print("qr complete shapes", torch::tensor({Qc.size(0), Qc.size(1), Rc.size(0), Rc.size(1)}));
  auto [evals, evecs] = torch::linalg::eigh(A, "L");
  print("eigh values", evals);
  print("eigh |vectors|", evecs.abs());
  print("eigvalsh U", torch::linalg::eigvalsh(A, "U"));
  auto [U, S, Vh] = torch::linalg::svd(N, false, c10::nullopt);
  print("svd S", S);
  std::cout << "svd U S Vh == A: " << torch::allclose(U.matmul(torch::diag(S)).matmul(Vh), N) << '\n';
  print("svdvals", torch::linalg::svdvals(N, c10::nullopt));
  auto [Uo, So, Vo] = torch::svd(N);
  std::cout << "torch::svd U S V^T == A: " << torch::allclose(Uo.matmul(torch::diag(So)).matmul(Vo.t()), N) << '\n';

  print("matrix_norm fro", torch::linalg::matrix_norm(N, "fro", {-2, -1}, false, c10::nullopt));
  print("matrix_norm nuc", torch::linalg::matrix_norm(N, "nuc", {-2, -1}, false, c10::nullopt));
  print("matrix_norm 2", torch::linalg::matrix_norm(N, 2, {-2, -1}, false, c10::nullopt));
  print("matrix_norm -inf", at::linalg_matrix_norm(N, -INFINITY));
  print("vector_norm 3", torch::linalg::vector_norm(N, 3, c10::nullopt, false, c10::nullopt));
  print("vector_norm dim 0", torch::linalg::vector_norm(N, 1, {0}, false, c10::nullopt));
  print("norm", torch::linalg::norm(N, c10::nullopt, c10::nullopt, false, c10::nullopt));
  print("linalg_norm inf", torch::linalg::linalg_norm(N, INFINITY, c10::nullopt, false, c10::nullopt));
  print("matrix_power 3", torch::linalg::matrix_power(A, 3));
  print("matrix_power -1", torch::linalg::matrix_power(A, -1));
  print("matrix_exp", torch::linalg::matrix_exp(A / 4));
  print("A.matrix_exp", (A / 4).matrix_exp());
  print("pinv", torch::linalg::pinv(N));
  print("pinverse", N.pinverse());
  print("matrix_rank", torch::linalg::matrix_rank(torch::tensor({{1.0, 2.0}, {2.0, 4.0}}, opts), 1e-8, false));
  print("cond", at::linalg_cond(A));
  print("multi_dot", torch::linalg::multi_dot({N.t(), N, A}));
  print("solve_triangular", torch::linalg::solve_triangular(A.triu(), B, true, true, false));
  print("cholesky_solve", torch::cholesky_solve(B, L));

  auto X = A.clone().requires_grad_();
  torch::linalg::det(X).backward();
  print("grad det", X.grad());
  X.mutable_grad().zero_();
  (torch::linalg::inv(X) * B.sum(1, true)).sum().backward();
  print("grad inv", X.grad());
  auto Bg = B.clone().requires_grad_();
  X.mutable_grad().zero_();
  (torch::linalg::solve(X, Bg, true) * torch::arange(6, opts).reshape({3, 2})).sum().backward();
  print("grad solve A", X.grad());
  print("grad solve B", Bg.grad());
  X.mutable_grad().zero_();
  (torch::linalg::cholesky(X) * torch::arange(9, opts).reshape({3, 3})).sum().backward();
  print("grad cholesky", X.grad());
  X.mutable_grad().zero_();
  (torch::linalg::eigvalsh(X, "L") * torch::tensor({1.0, -2.0, 0.5}, opts)).sum().backward();
  print("grad eigvalsh", X.grad());

  auto singular = torch::tensor({{1.0, 2.0}, {2.0, 4.0}}, opts);
  try {
    torch::linalg::inv(singular);
  } catch (const c10::Error& e) {
    std::cout << "inv: " << first_line(e.what()) << '\n';
  }
  try {
    torch::linalg::cholesky(torch::tensor({{1.0, 2.0}, {2.0, 1.0}}, opts));
  } catch (const c10::Error& e) {
    std::cout << "cholesky: " << first_line(e.what()) << '\n';
  }
  try {
    torch::linalg::det(torch::ones({2, 2}, torch::kLong));
  } catch (const c10::Error& e) {
    std::cout << "det: " << first_line(e.what()) << '\n';
  }
  try {
    torch::linalg::det(torch::ones({2, 3}));
  } catch (const c10::Error& e) {
    std::cout << "det: " << first_line(e.what()) << '\n';
  }
  // The out= forms write into (and resize) the tensor given.
  torch::Tensor M = torch::tensor({{4.0, 1.0}, {1.0, 3.0}}, torch::kDouble);
  torch::Tensor out = torch::empty({0}, torch::kDouble);
  torch::Tensor& same = at::linalg_inv_out(out, M);
  std::cout << out << '\n' << (&same == &out) << '\n';
  at::linalg_matrix_norm_out(out, M, "fro");
  std::cout << out << '\n';
  at::cholesky_out(out, M);
  std::cout << out << '\n';
  return 0;
}
