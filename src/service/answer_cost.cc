#include "service/answer_cost.h"

#include <string>

namespace attest::service {

void AuditCostOf(const AnswerResult& r, AuditRecord* record) {
  record->mode = AnswerModeName(r.mode);
  record->tier = r.tier;
  record->cost = r.cost;
  record->stages.clear();
  for (const auto& [stage, c] : r.stage_costs) {
    record->stages.push_back(AuditStage{stage, c.searches, c.fetches, c.rerank_pairs, c.model_calls, c.prompt_tokens,
                                        c.completion_tokens, c.cost});
  }
}

const char* TierLabel(const AnswerResult& r) { return r.tier.empty() ? "none" : r.tier.c_str(); }

std::vector<double> CostBuckets() {
  return {0, 0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};
}

void ObserveAnswerCost(const AnswerResult& r, Registry* metrics) {
  const std::map<std::string, std::string> by_tier = {{"mode", AnswerModeName(r.mode)}, {"tier", TierLabel(r)}};
  metrics->GetHistogram("attest_answer_cost", "Cost of an answer from the configured prices, by mode and tier",
                        by_tier, CostBuckets())
      ->Observe(r.cost);
  auto total = r.timings_ms.find("total");
  const double ms = (total != r.timings_ms.end() ? total->second : 0) + r.live_fetch.ms;
  metrics->GetHistogram("attest_answer_seconds", "Latency of an answer (live fetch included), by mode and tier",
                        by_tier)
      ->Observe(ms / 1000.0);
  auto count = [&](const char* name, const char* help, const std::string& stage, double n) {
    if (n > 0) metrics->GetCounter(name, help, {{"stage", stage}})->Add(n);
  };
  for (const auto& [stage, c] : r.stage_costs) {
    count("attest_stage_searches_total", "Index searches run by answers, by stage", stage, c.searches);
    count("attest_stage_fetches_total", "Live fetches started by answers, by stage", stage, c.fetches);
    count("attest_stage_rerank_pairs_total", "Query-passage pairs sent to the cross-encoder, by stage", stage,
          c.rerank_pairs);
    count("attest_stage_model_calls_total", "Chat-model calls of answers, by stage", stage, c.model_calls);
    for (const auto& [kind, n] : {std::pair<const char*, uint64_t>{"prompt", c.prompt_tokens},
                                  std::pair<const char*, uint64_t>{"completion", c.completion_tokens}}) {
      if (n == 0) continue;
      metrics->GetCounter("attest_stage_tokens_total", "Chat-model tokens of answers, by stage and kind",
                          {{"stage", stage}, {"kind", kind}})
          ->Add(double(n));
    }
  }
  if (r.tier == "small->large") {
    metrics->GetCounter("attest_tier_escalations_total", "Small-model drafts written again by the large model")->Add();
  }
}

}  // namespace attest::service
