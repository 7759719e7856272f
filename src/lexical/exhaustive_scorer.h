// The exact oracle: scores every chunk that matches the query with plain, independent code (full
// postings decode, string attribute checks, set-based phrase matching) and sorts. TopK() must
// return exactly its first k results.
#pragma once

#include <vector>

#include "lexical/lexical_searcher.h"
#include "lexical/lexical_plan.h"

namespace attest {

// True when `a` passes `filter` (ChunkFilter semantics, evaluated on strings).
bool FilterAdmits(const ChunkFilter& filter, const ChunkAttributes& a);

// Collection statistics over the chunks `filter`'s visibility predicates admit, by brute force
// (every chunk's attributes, every postings list decoded): the oracle of ScopedStats.
CollectionStats ExhaustiveStats(const std::vector<SegmentView>& segments, const ChunkFilter& filter);

// Appends every matching chunk of `view` with its score to `out` (unsorted).
void ExhaustiveScoreSegment(const LexicalPlan& plan, const SegmentView& view, const ChunkFilter& filter,
                            std::vector<ScoredChunk>* out);

}  // namespace attest
