#include "vector/inner_product.h"

#include <faiss/utils/distances.h>
#include <immintrin.h>

namespace attest {
namespace {

__attribute__((target("avx2,fma"))) float InnerProductAvx2(const float* a, const float* b, size_t d) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= d; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= d; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  s0 = _mm256_add_ps(s0, s1);
  const __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
  const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
  float r = _mm_cvtss_f32(_mm_add_ss(h2, _mm_shuffle_ps(h2, h2, 1)));
  for (; i < d; ++i) r += a[i] * b[i];
  return r;
}

float InnerProductGeneric(const float* a, const float* b, size_t d) { return faiss::fvec_inner_product(a, b, d); }

}  // namespace

const InnerProductFn kInnerProductKernel =
    __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? InnerProductAvx2 : InnerProductGeneric;

}  // namespace attest
