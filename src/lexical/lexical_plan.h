// A LexicalQuery resolved against the collection statistics of a searcher: distinct terms with
// their IDF in one canonical order, and clauses referring to them by index. Shared by TopK() and
// Exhaustive(), so both sum the same per-term floats in the same order.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "lexical/bm25.h"
#include "lexical/lexical_query.h"
#include "lexical/segment.h"

namespace attest {

struct PlanTerm {
  std::string text;
  uint64_t df = 0;   // over all segments of the searcher
  // BM25 IDF times the term's query frequency (how often it occurs in kShould/kMust clauses), as
  // in BM25 with k3 = infinity and as Anserini's bag-of-words queries weight repeated terms.
  // Meaningful for scoring terms only. Measured on SciFact test: +0.003 Recall@100.
  float idf = 0;
  uint32_t query_count = 0;
};

struct PlanClause {
  Occur occur = Occur::kShould;
  bool phrase = false;                  // true only for phrases of 2+ terms
  std::vector<uint32_t> terms;          // indices into LexicalPlan::terms
  std::vector<int64_t> rel;             // relative position of each term (phrases)
};

struct LexicalPlan {
  // Scoring terms (distinct terms of kShould and kMust clauses) first, in byte order; then the
  // terms only kMustNot clauses use.
  std::vector<PlanTerm> terms;
  uint32_t num_scoring = 0;
  std::vector<PlanClause> clauses;
  bool has_must = false;
  bool matches_nothing = false;  // no clause can ever be satisfied (e.g. only excluded clauses)
  Bm25Scorer scorer;
};

// The collection statistics BM25 reads: chunk count, average field lengths and each term's
// document frequency, all over the same set of chunks (what the caller may read).
struct CollectionStats {
  uint64_t num_docs = 0;
  double avg_len[4] = {0, 0, 0, 0};  // title, section, body, term
  std::function<uint64_t(std::string_view term)> doc_freq;
};

// The same statistics as integers, for the terms of one query: what a shard of a cluster reports,
// so the statistics of several shards add up to exactly those of one store holding all their
// chunks (docs/cluster.md, "Global statistics"). AsCollectionStats turns them into what a plan reads
// by the same arithmetic as ScopedStats (average = total / count in double), so a chunk scored
// with the sum of its shards' counts gets the float it gets in one store.
struct CorpusCounts {
  uint64_t num_docs = 0;
  std::array<uint64_t, 4> total_len{};         // field lengths summed over the counted chunks
  std::map<std::string, uint64_t, std::less<>> doc_freq;  // analyzed term -> counted chunks containing it

  void Add(const CorpusCounts& other);
  CollectionStats AsCollectionStats() const;   // borrows *this: keep it alive while the result is used
};

LexicalPlan BuildLexicalPlan(const LexicalQuery& query, const Bm25Params& params, const CollectionStats& stats);

}  // namespace attest
