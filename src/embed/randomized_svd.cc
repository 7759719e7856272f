#include "embed/randomized_svd.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "embed/corpus_training.h"

extern "C" {
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork,
             int* info);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc);
}

namespace attest {

SparseMatrix SparseMatrix::Transposed() const {
  SparseMatrix t;
  t.rows = cols;
  t.cols = rows;
  t.offsets.assign(cols + 1, 0);
  for (uint32_t c : indices) ++t.offsets[c + 1];
  for (size_t c = 0; c < cols; ++c) t.offsets[c + 1] += t.offsets[c];
  t.indices.resize(indices.size());
  t.values.resize(values.size());
  std::vector<uint64_t> next(t.offsets.begin(), t.offsets.end() - 1);
  for (size_t r = 0; r < rows; ++r) {  // rows ascending -> indices ascending in each output row
    for (uint64_t p = offsets[r]; p < offsets[r + 1]; ++p) {
      uint64_t q = next[indices[p]]++;
      t.indices[q] = static_cast<uint32_t>(r);
      t.values[q] = values[p];
    }
  }
  return t;
}

namespace {

// out (a.rows x l, column-major) = a * x (a.cols x l, column-major). Parallel over rows of `a`.
void Multiply(const SparseMatrix& a, const std::vector<double>& x, size_t l, unsigned threads,
              std::vector<double>* out) {
  out->assign(a.rows * l, 0.0);
  const size_t n = a.cols, m = a.rows;
  // Row-major copy of x so the inner loop reads contiguous memory.
  std::vector<double> xr(n * l);
  ParallelFor(n, threads, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      for (size_t j = 0; j < l; ++j) xr[i * l + j] = x[i + j * n];
  });
  ParallelFor(m, threads, [&](size_t b, size_t e) {
    std::vector<double> acc(l);
    for (size_t r = b; r < e; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (uint64_t p = a.offsets[r]; p < a.offsets[r + 1]; ++p) {
        const double v = a.values[p];
        const double* row = xr.data() + size_t(a.indices[p]) * l;
        for (size_t j = 0; j < l; ++j) acc[j] += v * row[j];
      }
      for (size_t j = 0; j < l; ++j) (*out)[r + j * m] = acc[j];
    }
  });
}

// Replaces the m x l column-major `y` by an orthonormal basis of its column space (m >= l).
Status Orthonormalize(std::vector<double>* y, int m, int l) {
  std::vector<double> tau(l);
  int info = 0, lwork = -1;
  double wq = 0;
  dgeqrf_(&m, &l, y->data(), &m, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, static_cast<int>(wq));
  std::vector<double> work(lwork);
  dgeqrf_(&m, &l, y->data(), &m, tau.data(), work.data(), &lwork, &info);
  if (info != 0) return Status::Internal("dgeqrf failed: info " + std::to_string(info));
  lwork = -1;
  dorgqr_(&m, &l, &l, y->data(), &m, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, static_cast<int>(wq));
  work.assign(lwork, 0);
  dorgqr_(&m, &l, &l, y->data(), &m, tau.data(), work.data(), &lwork, &info);
  if (info != 0) return Status::Internal("dorgqr failed: info " + std::to_string(info));
  return Status::Ok();
}

// Standard normal deviates by the Box-Muller transform over 53-bit uniforms.
class Gaussian {
 public:
  explicit Gaussian(uint64_t seed) : rng_(seed) {}
  double Next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = Uniform(), u2 = Uniform();
    double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2 * M_PI * u2);
    has_spare_ = true;
    return r * std::cos(2 * M_PI * u2);
  }

 private:
  double Uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  std::mt19937_64 rng_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace

Result<TruncatedSvd> RandomizedSvd(const SparseMatrix& a, const RandomizedSvdOptions& options) {
  const size_t m = a.rows, n = a.cols;
  if (m == 0 || n == 0) return Status::InvalidArgument("cannot factor an empty matrix");
  if (m > INT32_MAX / 1024 || n > INT32_MAX / 1024) {
    return Status::ResourceExhausted("matrix too large for the randomized SVD");
  }
  const size_t min_dim = std::min(m, n);
  const size_t k = std::min<size_t>(options.rank, min_dim);
  const size_t l = std::min<size_t>(k + options.oversampling, min_dim);
  const unsigned threads = ResolveThreads(options.threads);
  const SparseMatrix at = a.Transposed();

  std::vector<double> omega(n * l);
  Gaussian g(options.seed);
  for (double& v : omega) v = g.Next();

  std::vector<double> y, z;
  Multiply(a, omega, l, threads, &y);
  omega.clear();
  omega.shrink_to_fit();
  ATTEST_RETURN_IF_ERROR(Orthonormalize(&y, int(m), int(l)));
  for (uint32_t it = 0; it < options.power_iterations; ++it) {
    Multiply(at, y, l, threads, &z);
    ATTEST_RETURN_IF_ERROR(Orthonormalize(&z, int(n), int(l)));
    Multiply(a, z, l, threads, &y);
    ATTEST_RETURN_IF_ERROR(Orthonormalize(&y, int(m), int(l)));
  }
  // B^T = A^T Q (n x l) = Q2 R.
  Multiply(at, y, l, threads, &z);
  y.clear();
  y.shrink_to_fit();
  const int ni = int(n), li = int(l);
  std::vector<double> tau(l);
  int info = 0, lwork = -1;
  double wq = 0;
  dgeqrf_(&ni, &li, z.data(), &ni, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, int(wq));
  std::vector<double> work(lwork);
  dgeqrf_(&ni, &li, z.data(), &ni, tau.data(), work.data(), &lwork, &info);
  if (info != 0) return Status::Internal("dgeqrf failed: info " + std::to_string(info));
  std::vector<double> r(l * l, 0.0);
  for (size_t j = 0; j < l; ++j)
    for (size_t i = 0; i <= j; ++i) r[i + j * l] = z[i + j * n];
  lwork = -1;
  dorgqr_(&ni, &li, &li, z.data(), &ni, tau.data(), &wq, &lwork, &info);
  lwork = std::max(1, int(wq));
  work.assign(lwork, 0);
  dorgqr_(&ni, &li, &li, z.data(), &ni, tau.data(), work.data(), &lwork, &info);
  if (info != 0) return Status::Internal("dorgqr failed: info " + std::to_string(info));

  // R = Ur S Vr^T.
  std::vector<double> s(l), ur(l * l), vrt(l * l);
  std::vector<int> iwork(8 * l);
  const char jobz = 'A';
  lwork = -1;
  dgesdd_(&jobz, &li, &li, r.data(), &li, s.data(), ur.data(), &li, vrt.data(), &li, &wq, &lwork,
          iwork.data(), &info);
  lwork = std::max(1, int(wq));
  work.assign(lwork, 0);
  dgesdd_(&jobz, &li, &li, r.data(), &li, s.data(), ur.data(), &li, vrt.data(), &li, work.data(), &lwork,
          iwork.data(), &info);
  if (info != 0) return Status::Internal("dgesdd failed: info " + std::to_string(info));

  // Right singular vectors of A = Q2 Ur (n x l); keep the first k.
  TruncatedSvd out;
  out.rank = static_cast<uint32_t>(k);
  out.singular_values.assign(s.begin(), s.begin() + k);
  out.right_vectors.assign(n * k, 0.0);
  const int ki = int(k);
  const double one = 1.0, zero = 0.0;
  const char no = 'N';
  dgemm_(&no, &no, &ni, &ki, &li, &one, z.data(), &ni, ur.data(), &li, &zero, out.right_vectors.data(), &ni);
  for (size_t j = 0; j < k; ++j) {
    double* col = out.right_vectors.data() + j * n;
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
      if (std::fabs(col[i]) > std::fabs(col[best])) best = i;
    if (col[best] < 0)
      for (size_t i = 0; i < n; ++i) col[i] = -col[i];
  }
  return out;
}

}  // namespace attest
