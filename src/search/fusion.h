// Fusion of the lexical and vector legs' rankings into one.
//
// Methods (docs/design.md, "Hybrid retrieval"):
//   - kLinear: fused = (1 - w) * norm(lexical) + w * norm(vector), with norm min-max (scores mapped
//     to [0, 1] over the leg's candidates) or z-score ((s - mean) / stddev). A candidate missing from
//     one leg gets that leg's floor there: 0 for min-max, the leg's minimum z-score for z-score.
//   - kRrf: reciprocal rank fusion, fused = sum over legs of 1 / (rrf_k + rank), rank 1-based
//     (Cormack, Clarke and Büttcher, SIGIR 2009); the vector weight does not apply.
// Ties are broken by key ascending, so fusion is deterministic.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "attest/engine.h"

namespace attest {

struct LegCandidate {
  uint64_t key = 0;  // the ranked unit: a document number or a chunk id
  float score = 0;
};

struct FusedCandidate {
  uint64_t key = 0;
  float fused = 0;
  uint32_t lexical_rank = 0;  // 1-based; 0 = not in the lexical leg's list
  float lexical_score = 0;
  uint32_t vector_rank = 0;   // 1-based; 0 = not in the vector leg's list
  float vector_score = 0;
};

// `lexical` and `vector` are each in rank order (best first) with distinct keys. Returns every
// candidate of either list, best first.
std::vector<FusedCandidate> Fuse(const std::vector<LegCandidate>& lexical, const std::vector<LegCandidate>& vector,
                                 const FusionOptions& options);

}  // namespace attest
