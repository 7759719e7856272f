// The inner product of two float vectors, shared by every vector search path and the HNSW builder.
// Debian's libfaiss is built for baseline x86-64 (SSE only), so an AVX2/FMA kernel is chosen once at
// run time when the CPU has it. The summation order is fixed for a machine, so the exact oracle and
// the fast paths agree bit for bit.
#pragma once

#include <cstddef>

namespace attest {

using InnerProductFn = float (*)(const float* a, const float* b, size_t d);
extern const InnerProductFn kInnerProductKernel;

inline float InnerProduct(const float* a, const float* b, size_t d) { return kInnerProductKernel(a, b, d); }

}  // namespace attest
