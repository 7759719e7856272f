// The TopK traversal of one segment: block-max MaxScore for disjunctions, block-max AND for
// queries with required clauses, and a filter-driven mode that walks the admitted docs when a
// filter is selective. Filters and deletions are evaluated before a candidate reaches the heap.
// Not thread-safe; one per query and segment.
#pragma once

#include <memory>
#include <vector>

#include "lexical/lexical_searcher.h"
#include "lexical/postings_cursor.h"
#include "lexical/lexical_plan.h"
#include "lexical/segment_filter.h"
#include "lexical/topk_heap.h"

namespace attest {

// A filter admitting fewer docs than (postings to traverse) / kDriveRatio drives the traversal.
// Measured with bench/lexical_bench (300k chunks, ACL filters admitting 1..40%): walking an
// admitted doc costs about 4x a posting of the union, so driving wins below ~1/4 (at 1% it
// halves p50 and cuts p95 3.5x; at 10% the postings-driven traversal is faster).
inline constexpr uint64_t kDriveRatio = 4;

class SegmentSearch {
 public:
  SegmentSearch(const LexicalPlan& plan, const SegmentView& view, const ChunkFilter& filter,
                TopKHeap* heap, LexicalSearchStats* stats);
  void Run();

 private:
  struct Term {
    std::unique_ptr<PostingsCursor> cur;  // null when absent from the segment
    float idf = 0;
    float ub = 0;                         // term-level upper bound in this segment
    uint32_t ub_block = UINT32_MAX;       // block whose bound ub_block_value caches
    float ub_block_value = 0;
  };
  float BlockUb(uint32_t t, uint32_t d);  // 0 when the term cannot contain d
  bool Present(uint32_t t, uint32_t d) {
    return terms_[t].cur && terms_[t].cur->NextGEQ(d) == d;
  }
  bool Excluded(uint32_t d);              // a kMustNot clause matches
  bool PhraseMatches(const PlanClause& c, uint32_t d);
  // Evaluates candidate d and offers it to the heap: deletion, score bound, filter, kMustNot,
  // exact score, kMust phrases / kShould matching. `known` terms' cursors are already positioned;
  // `rest` are advanced in order with bound `rest_bound[j]` = sum of the bounds of rest[j..].
  void Score(uint32_t d, const std::vector<uint32_t>& known, const std::vector<uint32_t>& rest,
             const std::vector<float>& rest_bound);
  void RunConjunctive(const std::vector<uint32_t>* admitted);
  void RunDisjunctive();
  void RunDriven(const std::vector<uint32_t>& admitted);

  const LexicalPlan& plan_;
  const SegmentImpl& seg_;
  const DeletedDocs* deleted_;
  SegmentFilter filter_;
  bool filter_in_lists_ = false;  // docs come from the materialized admitted list
  TopKHeap* heap_;
  LexicalSearchStats* stats_;
  std::vector<Term> terms_;
  std::vector<float> contrib_;
  float wlen_[segfmt::kMaxFields][256];  // weight * lower-bound length of each length code
  std::vector<uint32_t> required_;  // scoring terms of kMust clauses
  std::vector<uint32_t> optional_;  // other scoring terms present in the segment
  std::vector<std::vector<uint32_t>> phrase_pos_;  // [term in clause * kMaxFields + field]
};

}  // namespace attest
