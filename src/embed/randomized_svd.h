// Truncated SVD of a sparse matrix by randomized subspace iteration (Halko, Martinsson, Tropp,
// "Finding structure with randomness", SIAM Review 53(2), 2011; Algorithms 4.4 and 5.1):
//   Omega (n x l) Gaussian, l = rank + oversampling;  Q = qr(A Omega);
//   repeat q times: Z = qr(A^T Q); Q = qr(A Z)          (power iterations, re-orthonormalized);
//   B^T = A^T Q = Q2 R (QR);  R = Ur S Vr^T (dgesdd);  A ~= (Q Vr) S (Q2 Ur)^T.
// Only the right singular vectors (column space of A^T, here the term space) and the singular
// values are returned.
//
// Determinism: Omega comes from std::mt19937_64 with our own Box-Muller transform (not
// std::normal_distribution, whose output differs between standard libraries). The sparse products
// are computed per output row, each row summed in a fixed order, in parallel over rows: the result
// does not depend on the thread count. Dense QR/SVD are LAPACK (dgeqrf/dorgqr/dgesdd) and the final
// product is BLAS dgemm; with a given BLAS build they are deterministic. Singular-vector signs are
// fixed (largest-magnitude component positive).
//
// Thread-safety: free function; uses `threads` worker threads internally.
#pragma once

#include <cstdint>
#include <vector>

#include "attest/status.h"

namespace attest {

// Compressed sparse rows.
struct SparseMatrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<uint64_t> offsets;  // rows + 1
  std::vector<uint32_t> indices;  // column of each entry, ascending within a row
  std::vector<float> values;

  SparseMatrix Transposed() const;
};

struct RandomizedSvdOptions {
  uint32_t rank = 256;
  uint32_t oversampling = 10;     // Halko et al. recommend p = 5..10
  uint32_t power_iterations = 4;  // q; each costs two sparse products and two QRs
  uint64_t seed = 42;
  unsigned threads = 1;
};

struct TruncatedSvd {
  uint32_t rank = 0;                  // min(options.rank, rows, cols)
  std::vector<double> singular_values;  // rank, descending
  std::vector<double> right_vectors;    // cols x rank, column-major (column j = j-th vector)
};

Result<TruncatedSvd> RandomizedSvd(const SparseMatrix& a, const RandomizedSvdOptions& options);

}  // namespace attest
