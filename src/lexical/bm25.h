// BM25F scoring shared by TopK() and Exhaustive() so that both compute bit-identical floats.
// Formula and constants: lexical_query.h (Robertson & Zaragoza 2009; Lucene's IDF).
//   tf_w = sum_f w_f * tf_f,  dl_w = sum_f w_f * len_f,  avgdl_w = sum_f w_f * avg_len_f
//   norm = k1 * (1 - b + b * dl_w / avgdl_w)
//   score(t, d) = idf(t) * tf_w * (k1 + 1) / (tf_w + norm)
// k1 is clamped to [0, 1e4], b to [0, 1], field weights to [0, 1e4]; a NaN or infinite k1 or b
// takes its default and such a field weight becomes 0 (they would break the upper bounds and make no sense).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lexical/lexical_query.h"

namespace attest {

class Bm25Scorer {
 public:
  static constexpr int kFields = 4;  // title, section, body, term (indexed_chunk.h)

  Bm25Scorer() = default;
  Bm25Scorer(const Bm25Params& p, const double avg_len[kFields])
      : k1_(Sane(p.k1, 0.9f, 1e4f)), b_(Sane(p.b, 0.4f, 1.0f)), k1p1_(k1_ + 1.0f) {
    double avg = 0;
    for (int f = 0; f < kFields; ++f) {
      w_[f] = Sane(p.field_weights[f], 0.0f, 1e4f);
      avg += double(w_[f]) * avg_len[f];
    }
    inv_avgdl_ = avg > 0 ? static_cast<float>(1.0 / avg) : 0.0f;
  }

  // Lucene's IDF, log(1 + (N - df + 0.5) / (df + 0.5)).
  static float Idf(uint64_t n, uint64_t df) {
    const double x = (double(n) - double(df) + 0.5) / (double(df) + 0.5);
    return static_cast<float>(std::log(1.0 + std::max(0.0, x)));
  }

  float weight(int f) const { return w_[f]; }

  float DocNorm(const uint32_t len[kFields]) const {
    const float dl = w_[0] * float(len[0]) + w_[1] * float(len[1]) + w_[2] * float(len[2]) + w_[3] * float(len[3]);
    return NormOfWeightedLength(dl);
  }
  float NormOfWeightedLength(float dl) const { return k1_ * (1.0f - b_ + b_ * (dl * inv_avgdl_)); }

  float TermScore(float idf, const uint32_t tf[kFields], float norm) const {
    const float w = w_[0] * float(tf[0]) + w_[1] * float(tf[1]) + w_[2] * float(tf[2]) + w_[3] * float(tf[3]);
    if (!(w > 0.0f)) return 0.0f;
    return idf * (w * k1p1_) / (w + norm);
  }

  // An upper bound of TermScore over docs whose tfs are <= max_tf and lengths >= min_len.
  float UpperBound(float idf, const uint32_t max_tf[kFields], const uint32_t min_len[kFields]) const {
    const float s = TermScore(idf, max_tf, DocNorm(min_len));
    return s * kSlack + kTiny;
  }

  // Parameters come from callers: NaN/inf become `fallback`, others are clamped to [0, max].
  static float Sane(float v, float fallback, float max) {
    if (!std::isfinite(v)) return fallback;
    return std::clamp(v, 0.0f, max);
  }

  static constexpr float kSlack = 1.0f + 1e-5f;
  static constexpr float kTiny = 1e-12f;

 private:
  float k1_ = 0.9f, b_ = 0.4f, k1p1_ = 1.9f;
  float w_[kFields] = {1, 1, 1, 1};
  float inv_avgdl_ = 0;
};

}  // namespace attest
