// Top-k BM25 retrieval over the segments of one snapshot.
//
// TopK() uses MaxScore dynamic pruning with block-max upper bounds and evaluates filters and
// deletions inside the traversal, before the top-k cut. Exhaustive() scores every matching chunk
// and is the oracle TopK() is tested against: for any query and filter both return the same
// chunks in the same order (score descending, then ChunkId ascending).
// Collection statistics (N, df, average field lengths) are summed over all segments of the view.
//
// Thread-safety: immutable after construction; concurrent searches are safe.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "lexical/lexical_query.h"
#include "lexical/segment.h"

namespace attest {

struct LexicalSearchArgs {
  const LexicalQuery* query = nullptr;
  LexicalFilter filter;
  size_t k = 10;
  Bm25Params bm25;
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

 private:
  std::vector<SegmentView> segments_;
  struct Stats;
  std::unique_ptr<Stats> stats_;
};

}  // namespace attest
