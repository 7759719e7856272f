// The answer pipeline over one corpus (a pinned snapshot, or a cluster's shards): plan -> resolve versions -> retrieve per sub-query
// -> dedupe and rerank -> extract and pack evidence -> screen for injected instructions -> write ->
// verify -> present (docs/answer.md).
//
// Every retrieval round reads `corpus` (answer/answer_corpus.h), so the whole answer sees one
// version of the index; the caller's filter (tenant, groups) is passed to every round unchanged.
//
// Thread-safety: RunAnswer is reentrant; concurrent calls on one snapshot are safe.
#pragma once

#include "answer/answer_corpus.h"
#include "attest/answer.h"
#include "plan/model_planner.h"
#include "search/search_runner.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {

class LlmWriter;
class LlmJudge;
class Reranker;
class LiveFetcher;
struct AnswerConfig;
struct TierPolicy;

// A chat model's prices per million tokens (LlmOptions, PlannerModelOptions).
struct TokenPrice {
  double prompt_per_mtok = 0, completion_per_mtok = 0;
  double Cost(uint64_t prompt_tokens, uint64_t completion_tokens) const {
    return (double(prompt_tokens) * prompt_per_mtok + double(completion_tokens) * completion_per_mtok) / 1e6;
  }
};

struct AnswerContext {
  const AnswerCorpus* corpus = nullptr;  // what every round reads
  const Analyzer* analyzer = nullptr;
  VectorLegInput vector;               // the vector leg of `corpus` (may be unavailable)
  LlmWriter* llm_writer = nullptr;     // for WriterKind::kLlm; null = not configured
  const Reranker* reranker = nullptr;  // an external cross-encoder; null = built-in features only
  const LlmJudge* judge = nullptr;     // for AskOptions::llm_judge; null = not configured
  const LiveFetcher* live = nullptr;   // its confirmations move sources' fetched_at; null = none
  // The engine's planner configuration and source hierarchy, parsed when it opened
  // (answer_config.h); null = the defaults. AskOptions' JSON fields replace them for one answer.
  const AnswerConfig* config = nullptr;
  // The model planner (plan/model_planner.h): asked once per answer after the deterministic
  // planner; on any failure its plan is the deterministic one. null = the deterministic planner only.
  const ChatModel* planner = nullptr;
  ModelPlannerLimits planner_limits;
  const Clock* clock = nullptr;        // measures the planner call; null = RealClock()
  const CostPrices* prices = nullptr;  // cost accounting (docs/cost.md); null = counts only
  // Tiering (docs/models.md, "Tiering and escalation"): the large tier's writer (null = one chat
  // model: no routing), the routing profile (null = the defaults) and each model's token prices.
  LlmWriter* llm_writer_large = nullptr;
  const TierPolicy* tiers = nullptr;
  TokenPrice planner_price, small_price, large_price;
};

// Sums the stages' costs (AnswerResult::cost is this over AnswerResult::stage_costs).
double TotalCost(const std::map<std::string, StageCost>& stages);

Result<AnswerResult> RunAnswer(const AnswerContext& context, const AskOptions& options);

// Serializes `result` as the JSON `attest ask --json` prints (docs/answer.md, "Output").
std::string AnswerToJson(const AnswerResult& result, int indent = 2);

// The evidence manifest: canonical JSON of question, plan, sources (ids, chunk ids, ranks), claims,
// verdicts, snapshot and component versions; its SHA-256; and HMAC-SHA256 over it when `key` is
// non-empty. Fills result->manifest_*.
void SealManifest(const AskOptions& options, AnswerResult* result);

// Checks a manifest file's content: the SHA-256 matches, and the HMAC when `key` is given.
// kCorruption naming what differs.
Status VerifyManifest(const std::string& manifest_json, const std::string& sha256, const std::string& hmac,
                      const std::string& key);

}  // namespace attest
