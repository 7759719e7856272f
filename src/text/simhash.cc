#include "text/simhash.h"

#include <array>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "text/analyzer.h"

namespace attest {
namespace {

uint64_t Mix(uint64_t x) {  // SplitMix64 finalizer (Steele, Lea and Flood 2014)
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t Fingerprint(const std::unordered_map<uint64_t, double>& weights) {
  std::array<double, 64> sums{};
  for (const auto& [hash, weight] : weights) {
    for (int bit = 0; bit < 64; ++bit) sums[bit] += ((hash >> bit) & 1) ? weight : -weight;
  }
  uint64_t fp = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (sums[bit] > 0) fp |= uint64_t{1} << bit;
  }
  return fp;
}

}  // namespace

std::string_view SimHashFeaturesName(SimHashFeatures features) {
  switch (features) {
    case SimHashFeatures::kWeightedTerms: return "weighted-terms";
    case SimHashFeatures::kShingles2: return "shingles-2";
    case SimHashFeatures::kShingles3: return "shingles-3";
  }
  return "unknown";
}

uint64_t SimHashFeatureHash(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  return Mix(h);
}

uint64_t SimHashTerms(std::span<const std::string> terms, const SimHashOptions& options) {
  if (terms.empty()) return 0;
  std::vector<uint64_t> term_hashes;
  term_hashes.reserve(terms.size());
  for (const std::string& t : terms) term_hashes.push_back(SimHashFeatureHash(t));
  size_t n = 1;
  if (options.features == SimHashFeatures::kShingles2) n = 2;
  if (options.features == SimHashFeatures::kShingles3) n = 3;
  if (terms.size() < n) n = 1;
  std::unordered_map<uint64_t, double> weights;
  weights.reserve(term_hashes.size());
  if (n == 1) {
    for (uint64_t h : term_hashes) weights[h] += 1.0;
    if (options.features == SimHashFeatures::kWeightedTerms) {
      for (auto& [h, w] : weights) w = 1.0 + std::log(w);
    }
  } else {
    for (size_t i = 0; i + n <= term_hashes.size(); ++i) {
      // Order-sensitive combination: "a b c" and "c b a" are different shingles.
      uint64_t h = 0x9e3779b97f4a7c15ULL;
      for (size_t k = 0; k < n; ++k) h = Mix(h ^ (term_hashes[i + k] + 0x9e3779b97f4a7c15ULL * (k + 1)));
      weights[h] += 1.0;
    }
  }
  return Fingerprint(weights);
}

uint64_t SimHashText(const Analyzer& analyzer, std::string_view text, const SimHashOptions& options) {
  const std::vector<std::string> terms = analyzer.Terms(text);
  return SimHashTerms(terms, options);
}

}  // namespace attest
