#include "lexical/lexical_plan.h"

#include <algorithm>
#include <map>

namespace attest {

LexicalPlan BuildLexicalPlan(const LexicalQuery& query, const Bm25Params& params, const CollectionStats& stats) {
  LexicalPlan plan;
  plan.scorer = Bm25Scorer(params, stats.avg_len);
  std::vector<std::string> scoring, other;
  for (const QueryClause& c : query.clauses) {
    if (c.terms.empty()) continue;
    for (const auto& t : c.terms) (c.occur == Occur::kMustNot ? other : scoring).push_back(t);
  }
  std::sort(scoring.begin(), scoring.end());
  scoring.erase(std::unique(scoring.begin(), scoring.end()), scoring.end());
  std::sort(other.begin(), other.end());
  other.erase(std::unique(other.begin(), other.end()), other.end());
  std::map<std::string, uint32_t> index;
  for (const auto& t : scoring) {
    index.emplace(t, static_cast<uint32_t>(plan.terms.size()));
    plan.terms.push_back({t, 0, 0});
  }
  plan.num_scoring = static_cast<uint32_t>(plan.terms.size());
  for (const auto& t : other) {
    if (index.emplace(t, static_cast<uint32_t>(plan.terms.size())).second) plan.terms.push_back({t, 0, 0});
  }
  for (const QueryClause& c : query.clauses) {
    if (c.occur == Occur::kMustNot) continue;
    for (const auto& t : c.terms) plan.terms[index.at(t)].query_count++;
  }
  for (PlanTerm& t : plan.terms) {
    t.df = stats.doc_freq(t.text);
    t.idf = Bm25Scorer::Idf(stats.num_docs, t.df) * static_cast<float>(std::max<uint32_t>(1, t.query_count));
  }
  bool any_positive = false;
  for (const QueryClause& c : query.clauses) {
    if (c.terms.empty()) continue;
    PlanClause pc;
    pc.occur = c.occur;
    pc.phrase = c.phrase && c.terms.size() > 1;
    for (size_t i = 0; i < c.terms.size(); ++i) {
      pc.terms.push_back(index.at(c.terms[i]));
      pc.rel.push_back(i < c.positions.size() ? int64_t(c.positions[i]) : int64_t(i));
    }
    if (c.occur == Occur::kMust) plan.has_must = true;
    if (c.occur != Occur::kMustNot) any_positive = true;
    plan.clauses.push_back(std::move(pc));
  }
  plan.matches_nothing = !any_positive;
  return plan;
}

void CorpusCounts::Add(const CorpusCounts& other) {
  num_docs += other.num_docs;
  for (size_t f = 0; f < total_len.size(); ++f) total_len[f] += other.total_len[f];
  for (const auto& [term, df] : other.doc_freq) doc_freq[term] += df;
}

CollectionStats CorpusCounts::AsCollectionStats() const {
  CollectionStats cs;
  cs.num_docs = num_docs;
  for (size_t f = 0; f < total_len.size(); ++f) {
    cs.avg_len[f] = num_docs ? double(total_len[f]) / double(num_docs) : 0.0;
  }
  // A term the counts do not name is in no counted chunk (the shards were asked for every term).
  cs.doc_freq = [this](std::string_view term) -> uint64_t {
    auto it = doc_freq.find(term);
    return it == doc_freq.end() ? 0 : it->second;
  };
  return cs;
}

}  // namespace attest
