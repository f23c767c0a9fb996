// The Fortran LAPACK routines that Debian's OpenBLAS exports (there is no lapacke.h there), declared
// for autograd/linalg.cpp and autograd/linalg_lapack.cpp. Fortran conventions: column-major matrices, every argument by
// pointer, `info` 0 on success, -i for a bad i-th argument, +i for a numerical failure at step i. A row-major (r, c)
// buffer is the column-major (c, r) matrix, its transpose. Workspace sizes are asked for with lwork = -1 first. One
// prototype per routine and type; nothing here allocates or checks.
#pragma once

extern "C" {

// LU with partial pivoting: A = P L U.
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
// The inverse from getrf's LU.
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
// Solves A X = B (trans 'N') or A^T X = B (trans 'T') from getrf's LU.
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
// Cholesky: A = L L^T (uplo 'L'), the other triangle untouched.
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
// Householder QR: R in the upper triangle, the reflectors below it and in tau.
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
// The first n columns of Q from geqrf's k reflectors.
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
// Symmetric eigendecomposition (divide and conquer): ascending eigenvalues w, vectors in a's columns.
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
// SVD (divide and conquer): A = U diag(s) VT, descending s.
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
// Triangular solve A X = B / A^T X = B; info > 0: a zero on the diagonal.
void strtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs, const float* a,
             const int* lda, float* b, const int* ldb, int* info);
void dtrtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs, const double* a,
             const int* lda, double* b, const int* ldb, int* info);

// Least squares min ||A X - B||: QR (gels), complete orthogonal factorization (gelsy), SVD by
// divide and conquer (gelsd) or plain SVD (gelss); rank and singular values where they compute them.
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
            const int* ldb, float* work, const int* lwork, int* info);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, double* work, const int* lwork, int* info);
void sgelsy_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, int* jpvt,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelsy_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             int* jpvt, const double* rcond, int* rank, double* work, const int* lwork, int* info);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info);
void sgelss_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb, float* s,
             const float* rcond, int* rank, float* work, const int* lwork, int* info);
void dgelss_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* info);
// Q C, Q^T C, C Q or C Q^T with Q from geqrf's reflectors, without forming Q.
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork, int* info);
// Symmetric indefinite A = L D L^T with Bunch-Kaufman pivoting, and the solve from it.
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
}  // extern "C"

namespace ember::lapack {

// The routines above, overloaded on float and double so templates can call one name.
inline void getrf(int m, int n, float* a, int lda, int* ipiv, int* info) { sgetrf_(&m, &n, a, &lda, ipiv, info); }
inline void getrf(int m, int n, double* a, int lda, int* ipiv, int* info) { dgetrf_(&m, &n, a, &lda, ipiv, info); }
inline void getri(int n, float* a, int lda, const int* ipiv, float* work, int lwork, int* info) {
  sgetri_(&n, a, &lda, ipiv, work, &lwork, info);
}
inline void getri(int n, double* a, int lda, const int* ipiv, double* work, int lwork, int* info) {
  dgetri_(&n, a, &lda, ipiv, work, &lwork, info);
}
inline void getrs(char trans, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb, int* info) {
  sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}
inline void getrs(char trans, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb,
                  int* info) {
  dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}
inline void potrf(char uplo, int n, float* a, int lda, int* info) { spotrf_(&uplo, &n, a, &lda, info); }
inline void potrf(char uplo, int n, double* a, int lda, int* info) { dpotrf_(&uplo, &n, a, &lda, info); }
inline void geqrf(int m, int n, float* a, int lda, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
inline void geqrf(int m, int n, double* a, int lda, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
inline void orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
inline void syevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork, int* iwork,
                  int liwork, int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);
}
inline void syevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work, int lwork, int* iwork,
                  int liwork, int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info);
}
inline void gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt,
                  float* work, int lwork, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}
inline void gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt,
                  double* work, int lwork, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}
inline void trtrs(char uplo, char trans, char diag, int n, int nrhs, const float* a, int lda, float* b, int ldb,
                  int* info) {
  strtrs_(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, info);
}
inline void trtrs(char uplo, char trans, char diag, int n, int nrhs, const double* a, int lda, double* b, int ldb,
                  int* info) {
  dtrtrs_(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, info);
}

}  // namespace ember::lapack
