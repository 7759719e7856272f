#include "lexical/lexical_searcher.h"

#include <algorithm>

#include "lexical/exhaustive_scorer.h"
#include "lexical/lexical_plan.h"
#include "lexical/segment_search.h"
#include "lexical/topk_heap.h"
#include "lexical/visibility.h"

namespace attest {

LexicalSearcher::LexicalSearcher(std::vector<SegmentView> segments) : segments_(std::move(segments)) {
  // Drop views without a segment so that every later access can assume one.
  segments_.erase(std::remove_if(segments_.begin(), segments_.end(), [](const SegmentView& v) { return !v.segment; }),
                  segments_.end());
  for (const SegmentView& v : segments_) num_docs_ += v.segment->num_docs();
}

LexicalSearcher::~LexicalSearcher() = default;

uint64_t LexicalSearcher::num_docs() const { return num_docs_; }

uint64_t LexicalSearcher::DocFreq(std::string_view term, const ChunkFilter& filter) const {
  return ScopedStats(segments_, filter).DocFreq(term);
}

uint64_t LexicalSearcher::NumDocs(const ChunkFilter& filter) const { return ScopedStats(segments_, filter).num_docs(); }

CorpusCounts LexicalSearcher::Counts(const LexicalQuery& query, const ChunkFilter& filter) const {
  const ScopedStats scoped(segments_, filter);
  CorpusCounts counts;
  counts.num_docs = scoped.num_docs();
  for (int f = 0; f < kNumFields; ++f) counts.total_len[f] = scoped.total_len(f);
  for (const QueryClause& c : query.clauses) {
    for (const std::string& t : c.terms) {
      if (!counts.doc_freq.count(t)) counts.doc_freq.emplace(t, scoped.DocFreq(t));
    }
  }
  return counts;
}

namespace {

CollectionStats FastStats(const ScopedStats& scoped) {
  CollectionStats cs;
  cs.num_docs = scoped.num_docs();
  for (int f = 0; f < segfmt::kMaxFields; ++f) cs.avg_len[f] = scoped.avg_len()[f];
  cs.doc_freq = [&scoped](std::string_view term) { return scoped.DocFreq(term); };
  return cs;
}

}  // namespace

std::vector<ScoredChunk> LexicalSearcher::TopK(const LexicalSearchArgs& args, LexicalSearchStats* stats) const {
  if (!args.query || args.query->empty() || args.k == 0) return {};
  const ScopedStats scoped(segments_, args.filter);
  const LexicalPlan plan = BuildLexicalPlan(*args.query, args.bm25,
                                            args.global ? args.global->AsCollectionStats() : FastStats(scoped));
  TopKHeap heap(args.k);
  for (const SegmentView& v : segments_) {
    SegmentSearch search(plan, v, args.filter, &heap, stats);
    search.Run();
  }
  return std::move(heap).Sorted();
}

std::vector<ScoredChunk> LexicalSearcher::Exhaustive(const LexicalSearchArgs& args) const {
  if (!args.query || args.query->empty() || args.k == 0) return {};
  // The oracle computes its statistics by brute force from the stored attributes and postings.
  const LexicalPlan plan =
      BuildLexicalPlan(*args.query, args.bm25,
                       args.global ? args.global->AsCollectionStats() : ExhaustiveStats(segments_, args.filter));
  std::vector<ScoredChunk> all;
  for (const SegmentView& v : segments_) ExhaustiveScoreSegment(plan, v, args.filter, &all);
  std::sort(all.begin(), all.end(), RanksBefore);
  if (all.size() > args.k) all.resize(args.k);
  return all;
}

}  // namespace attest
