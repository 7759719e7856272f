// Multi-hop retrieval: a bounded hop loop for questions no single document answers ("Will the
// framework behind orders-api still receive security fixes on 2026-09-01?").
//
// The planner gives the hops as sub-queries: hop 1 ("framework orders-api"), then hop 2 with a
// placeholder for the value hop 1 finds ("{q1} security fixes"). Each hop retrieves with the
// caller's filter; its value (the bridge) is read from the best sentence of the best source: a
// name (with its version, "Foo 3.2") that the question does not contain. The next hop's query
// binds it. A hop's value is supported when a retrieved sentence contains it verbatim. When the
// question carries a date and the last hop's sentence dates the relation ("until 2026-06-30"), the
// yes/no comparison is computed in code, never by a model. At most `max_hops` hops run, within
// `budget_ms`.
//
// Thread-safety: reentrant.
#pragma once

#include <string>
#include <vector>

#include "answer/evidence_builder.h"
#include "answer/answer_pipeline.h"
#include "plan/query_plan.h"

namespace attest {

class AnswerRounds;
class AnalyzedTexts;

struct HopStep {
  std::string id;          // the sub-query id ("q1", "q2")
  std::string query;       // as run, with earlier values bound
  std::string value;       // the bridge found ("" when none)
  std::string doc_id;      // where it was found
  ChunkId chunk_id;
  std::string sentence;    // the sentence that states it (verbatim)
  bool supported = false;
};

struct MultiHopResult {
  std::vector<HopStep> hops;
  std::vector<EvidenceCandidate> candidates;  // everything the hops retrieved
  std::string verdict;       // "yes" / "no" when computed from dates, else ""
  std::string verdict_text;  // e.g. "No: 2026-09-01 is after 2026-06-30."
};

struct MultiHopOptions {
  size_t max_hops = 3;
  size_t max_bridges = 3;      // RunBridgeHop: names searched
  size_t bridge_sources = 2;   // RunBridgeHop: first-round sources read for names
  double budget_ms = 500;
  size_t k = 10;
};

bool IsMultiHopPlan(const QueryPlan& plan);

// The bridge hop for questions the planner did not split: names that the best first-round sources
// mention but the question does not ("the woman who portrayed Corliss Archer" -> a page naming
// "Shirley Temple") are each searched with the question's words; what they retrieve joins the
// candidates under sub-query "bridge:<name>". `first_round` is the original question's retrieval.
Result<MultiHopResult> RunBridgeHop(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                    const std::vector<EvidenceCandidate>& first_round, const MultiHopOptions& options);

Result<MultiHopResult> RunMultiHop(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                   const MultiHopOptions& options);

// The same as rounds of one answer (answer_rounds.h: its filter, searches and chunk records shared
// with the answer's other rounds).
// `analysis` (over ctx.analyzer; null = analyse here): the first-round sentences the bridge hop
// reads are analysed there, where the evidence builder finds them again.
Result<MultiHopResult> RunBridgeHop(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                    const std::vector<EvidenceCandidate>& first_round, const MultiHopOptions& options,
                                    AnalyzedTexts* analysis = nullptr);
Result<MultiHopResult> RunMultiHop(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                   const MultiHopOptions& options);

}  // namespace attest
