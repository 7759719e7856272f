#include "search/fusion.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace attest {
namespace {

struct Normalizer {
  double offset = 0;  // norm(s) = (s - offset) * scale
  double scale = 0;
  double floor = 0;   // the value of a missing candidate

  double operator()(float s) const { return (s - offset) * scale; }
};

template <typename Key>
Normalizer MakeNormalizer(const std::vector<LegCandidate<Key>>& leg, ScoreNormalization method) {
  Normalizer n;
  if (leg.empty()) return n;
  if (method == ScoreNormalization::kMinMax) {
    double lo = leg.front().score, hi = leg.front().score;
    for (const auto& c : leg) lo = std::min<double>(lo, c.score), hi = std::max<double>(hi, c.score);
    n.offset = lo;
    // All scores equal: every candidate of the leg normalizes to 1 (it is in the list), a missing one to 0.
    n.scale = hi > lo ? 1.0 / (hi - lo) : 0.0;
    if (hi <= lo) n.offset = lo - 1.0, n.scale = 1.0;
    n.floor = 0;
    return n;
  }
  double sum = 0, sq = 0, lo = leg.front().score;
  for (const auto& c : leg) sum += c.score, sq += double(c.score) * c.score, lo = std::min<double>(lo, c.score);
  const double mean = sum / leg.size();
  const double var = std::max(0.0, sq / leg.size() - mean * mean);
  const double sd = std::sqrt(var);
  n.offset = mean;
  n.scale = sd > 1e-12 ? 1.0 / sd : 0.0;
  n.floor = (lo - mean) * n.scale;
  return n;
}

}  // namespace

template <typename Key>
std::vector<FusedCandidate<Key>> Fuse(const std::vector<LegCandidate<Key>>& lexical,
                                      const std::vector<LegCandidate<Key>>& vector, const FusionOptions& options) {
  std::vector<FusedCandidate<Key>> out;
  out.reserve(lexical.size() + vector.size());
  std::unordered_map<Key, size_t> at;
  at.reserve(out.capacity());
  auto slot = [&](Key key) -> FusedCandidate<Key>& {
    auto [it, inserted] = at.emplace(key, out.size());
    if (inserted) out.push_back(FusedCandidate<Key>{.key = key});
    return out[it->second];
  };
  for (size_t i = 0; i < lexical.size(); ++i) {
    FusedCandidate<Key>& c = slot(lexical[i].key);
    c.lexical_rank = static_cast<uint32_t>(i + 1);
    c.lexical_score = lexical[i].score;
  }
  for (size_t i = 0; i < vector.size(); ++i) {
    FusedCandidate<Key>& c = slot(vector[i].key);
    c.vector_rank = static_cast<uint32_t>(i + 1);
    c.vector_score = vector[i].score;
  }

  if (options.method == FusionMethod::kRrf) {
    const double k = options.rrf_k;
    for (FusedCandidate<Key>& c : out) {
      double f = 0;
      if (c.lexical_rank) f += 1.0 / (k + c.lexical_rank);
      if (c.vector_rank) f += 1.0 / (k + c.vector_rank);
      c.fused = static_cast<float>(f);
    }
  } else {
    const double w = std::clamp<double>(options.vector_weight, 0.0, 1.0);
    const Normalizer nl = MakeNormalizer(lexical, options.normalization);
    const Normalizer nv = MakeNormalizer(vector, options.normalization);
    for (FusedCandidate<Key>& c : out) {
      const double l = c.lexical_rank ? nl(c.lexical_score) : nl.floor;
      const double v = c.vector_rank ? nv(c.vector_score) : nv.floor;
      c.fused = static_cast<float>((1.0 - w) * l + w * v);
    }
  }
  std::sort(out.begin(), out.end(), [](const FusedCandidate<Key>& a, const FusedCandidate<Key>& b) {
    if (a.fused != b.fused) return a.fused > b.fused;
    return a.key < b.key;
  });
  return out;
}

template std::vector<FusedCandidate<DocNum>> Fuse(const std::vector<LegCandidate<DocNum>>&,
                                                  const std::vector<LegCandidate<DocNum>>&, const FusionOptions&);
template std::vector<FusedCandidate<ChunkId>> Fuse(const std::vector<LegCandidate<ChunkId>>&,
                                                   const std::vector<LegCandidate<ChunkId>>&, const FusionOptions&);

}  // namespace attest
