// Top-k BM25 retrieval over the segments of one snapshot.
//
// TopK() uses MaxScore dynamic pruning with block-max upper bounds and evaluates filters and
// deletions inside the traversal, before the top-k cut. Exhaustive() scores every matching chunk
// and is the oracle TopK() is tested against: for any query and filter both return the same
// chunks in the same order (score descending, then ChunkId ascending).
// Collection statistics (N, df, average field lengths) are computed per query over the chunks the
// filter's visibility predicates (tenant, groups, labels) admit, so what a caller cannot read never
// moves its scores (lexical/visibility.h). Metadata filters (source type, site, version, dates) do
// not change them.
//
// Thread-safety: immutable after construction; concurrent searches are safe.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "lexical/lexical_plan.h"
#include "lexical/lexical_query.h"
#include "lexical/segment.h"

namespace attest {

struct LexicalSearchArgs {
  const LexicalQuery* query = nullptr;
  ChunkFilter filter;
  size_t k = 10;
  Bm25Params bm25;
  // Statistics to score with instead of this searcher's own over `filter`'s visibility: a
  // cluster's global statistics (docs/cluster.md). Null = this searcher's. They must count every
  // chunk this searcher would count (a shard's are part of the sum) or scores lose their meaning.
  const CorpusCounts* global = nullptr;
};

struct LexicalSearchStats {
  uint64_t postings_scored = 0;   // candidates fully scored
  uint64_t docs_filtered = 0;     // candidates rejected by filter or deletion
};

class LexicalSearcher {
 public:
  explicit LexicalSearcher(std::vector<SegmentView> segments);
  ~LexicalSearcher();

  std::vector<ScoredChunk> TopK(const LexicalSearchArgs& args, LexicalSearchStats* stats = nullptr) const;
  std::vector<ScoredChunk> Exhaustive(const LexicalSearchArgs& args) const;

  const std::vector<SegmentView>& segments() const { return segments_; }
  uint64_t num_docs() const;  // live + deleted chunks across segments
  // Chunks (live and deleted) visible under `filter` that contain the analyzed term, and how many
  // chunks are visible: what BM25's IDF reads for a caller with this filter.
  uint64_t DocFreq(std::string_view term, const ChunkFilter& filter) const;
  uint64_t NumDocs(const ChunkFilter& filter) const;
  // The statistics of `query`'s terms (every clause's, excluded ones too) under `filter`'s
  // visibility, as integers: a shard's part of a cluster's global statistics.
  CorpusCounts Counts(const LexicalQuery& query, const ChunkFilter& filter) const;

 private:
  std::vector<SegmentView> segments_;
  uint64_t num_docs_ = 0;
};

}  // namespace attest
