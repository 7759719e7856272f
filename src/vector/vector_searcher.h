// The vector leg over one snapshot: exact top-k by inner product over the segments that have vectors
// for the active embedder, with the caller's filter (tenant, ACL groups, metadata) and the
// snapshot's deletions applied inside each segment's index search, before the top-k cut.
//
// Thread-safety: stateless functions over immutable indexes; concurrent calls are safe.
#pragma once

#include <cstddef>
#include <vector>

#include "filter/chunk_filter.h"
#include "lexical/lexical_query.h"  // ScoredChunk
#include "vector/segment_vectors.h"

namespace attest {

struct VectorLegArgs {
  const float* query = nullptr;        // dim floats, unit norm
  size_t k = 10;
  const ChunkFilter* filter = nullptr;  // null = no filter (deletions still apply)
  bool exact = false;                  // use each index's exact oracle instead of its fast path
};

// Chunks by score descending, then ChunkId ascending; at most k.
std::vector<ScoredChunk> SearchVectors(const std::vector<SegmentVectors>& segments, const VectorLegArgs& args);

// The exact score of each of `ids` (chunks of `segments`; ids in no segment or deleted are left
// out), by score descending, then ChunkId ascending. Used to re-rank a given candidate set.
std::vector<ScoredChunk> ScoreChunks(const std::vector<SegmentVectors>& segments, const float* query,
                                     const std::vector<ChunkId>& ids);

}  // namespace attest
