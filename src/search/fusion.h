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
// The ranked unit is typed: DocNum when hits are whole documents, ChunkId when they are chunks, so
// the two kinds of key cannot be mixed in one fusion.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "attest/engine.h"
#include "common/strong_id.h"

namespace attest {

// Key: DocNum or ChunkId (instantiated for those two).
template <typename Key>
struct LegCandidate {
  Key key;  // the ranked unit
  float score = 0;
};

template <typename Key>
struct FusedCandidate {
  Key key;
  float fused = 0;
  uint32_t lexical_rank = 0;  // 1-based; 0 = not in the lexical leg's list
  float lexical_score = 0;
  uint32_t vector_rank = 0;   // 1-based; 0 = not in the vector leg's list
  float vector_score = 0;
};

// `lexical` and `vector` are each in rank order (best first) with distinct keys. Returns every
// candidate of either list, best first.
template <typename Key>
std::vector<FusedCandidate<Key>> Fuse(const std::vector<LegCandidate<Key>>& lexical,
                                      const std::vector<LegCandidate<Key>>& vector, const FusionOptions& options);

}  // namespace attest
