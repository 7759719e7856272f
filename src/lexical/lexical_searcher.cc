#include "lexical/lexical_searcher.h"

#include <algorithm>

#include "lexical/exhaustive_scorer.h"
#include "lexical/query_plan.h"
#include "lexical/segment_search.h"
#include "lexical/topk_heap.h"

namespace attest {

struct LexicalSearcher::Stats {
  uint64_t num_docs = 0;
  double avg_len[3] = {0, 0, 0};
};

LexicalSearcher::LexicalSearcher(std::vector<SegmentView> segments)
    : segments_(std::move(segments)), stats_(std::make_unique<Stats>()) {
  // Drop views without a segment so that every later access can assume one.
  segments_.erase(std::remove_if(segments_.begin(), segments_.end(), [](const SegmentView& v) { return !v.segment; }),
                  segments_.end());
  uint64_t total[3] = {0, 0, 0};
  for (const SegmentView& v : segments_) {
    stats_->num_docs += v.segment->num_docs();
    for (int f = 0; f < 3; ++f) total[f] += v.segment->total_field_length(static_cast<Field>(f));
  }
  for (int f = 0; f < 3; ++f) {
    stats_->avg_len[f] = stats_->num_docs ? double(total[f]) / double(stats_->num_docs) : 0.0;
  }
}

LexicalSearcher::~LexicalSearcher() = default;

uint64_t LexicalSearcher::num_docs() const { return stats_->num_docs; }

std::vector<ScoredChunk> LexicalSearcher::TopK(const LexicalSearchArgs& args, LexicalSearchStats* stats) const {
  if (!args.query || args.query->empty() || args.k == 0) return {};
  const QueryPlan plan = BuildQueryPlan(*args.query, args.bm25, segments_, stats_->num_docs, stats_->avg_len);
  TopKHeap heap(args.k);
  for (const SegmentView& v : segments_) {
    SegmentSearch search(plan, v, args.filter, &heap, stats);
    search.Run();
  }
  return std::move(heap).Sorted();
}

std::vector<ScoredChunk> LexicalSearcher::Exhaustive(const LexicalSearchArgs& args) const {
  if (!args.query || args.query->empty() || args.k == 0) return {};
  const QueryPlan plan = BuildQueryPlan(*args.query, args.bm25, segments_, stats_->num_docs, stats_->avg_len);
  std::vector<ScoredChunk> all;
  for (const SegmentView& v : segments_) ExhaustiveScoreSegment(plan, v, args.filter, &all);
  std::sort(all.begin(), all.end(), RanksBefore);
  if (all.size() > args.k) all.resize(args.k);
  return all;
}

}  // namespace attest
