// 64-bit SimHash fingerprints of a text (Charikar 2002, "Similarity estimation techniques from
// rounding algorithms"), as used for near-duplicate web pages by Manku, Jain and Das Sarma 2007
// ("Detecting near-duplicates for web crawling", WWW'07): 64 bits, near duplicates within Hamming
// distance 3.
//
// Features come from the lexical analyzer's terms (text/analyzer.h: folded, stemmed, stopwords
// removed), so markup, case and inflection do not move a fingerprint. Each feature is hashed to 64
// bits; every bit position sums +weight when the feature's bit is 1 and -weight when it is 0; the
// fingerprint has a 1 where the sum is positive.
// Feature choices (docs/crawling.md, "Near duplicates (SimHash)", has the measurements):
//   kWeightedTerms  each distinct term, weight 1 + ln(tf)
//   kShingles2      each distinct run of 2 consecutive terms, weight = occurrences (the default:
//                   on the PostgreSQL pages it put the most copies with one changed sentence or
//                   with a mirror's header and footer within distance 3, and no different pages)
//   kShingles3      each distinct run of 3 consecutive terms, weight = occurrences
// A text with fewer terms than a shingle falls back to its terms, so short texts still differ.
//
// Thread-safety: pure functions; safe from any thread (the Analyzer is itself thread-safe).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace attest {

class Analyzer;

enum class SimHashFeatures { kWeightedTerms, kShingles2, kShingles3 };
std::string_view SimHashFeaturesName(SimHashFeatures features);

struct SimHashOptions {
  SimHashFeatures features = SimHashFeatures::kShingles2;
};

// Fingerprint of a term sequence. An empty sequence gives 0.
uint64_t SimHashTerms(std::span<const std::string> terms, const SimHashOptions& options = {});
// Fingerprint of text analyzed by `analyzer` (Analyzer::Terms).
uint64_t SimHashText(const Analyzer& analyzer, std::string_view text, const SimHashOptions& options = {});

// Number of differing bits.
inline int HammingDistance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }

// Stable 64-bit hash of a feature (FNV-1a folded through the SplitMix64 finalizer so that every
// input bit reaches every output bit). Stable across builds and platforms: fingerprints may be stored.
uint64_t SimHashFeatureHash(std::string_view bytes);

}  // namespace attest
