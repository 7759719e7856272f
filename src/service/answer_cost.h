// What an answer spent, for the audit log and /metrics (docs/cost.md, "Where it appears"): the
// answer's mode, writer tier, cost and per-stage counts. Numbers and ids only, never text.
//
// Thread-safety: stateless functions; the registry is thread-safe.
#pragma once

#include "attest/answer.h"
#include "service/audit_log.h"
#include "service/metrics.h"

namespace attest::service {

// Fills record->mode, tier, cost and stages from `r`.
void AuditCostOf(const AnswerResult& r, AuditRecord* record);

// The tier label of metrics: r.tier, or "none" for an answer without a model writer.
const char* TierLabel(const AnswerResult& r);

// Observes one fresh answer:
//   attest_answer_cost{mode,tier}              histogram of AnswerResult::cost (CostBuckets())
//   attest_answer_seconds{mode,tier}           histogram of the answer's latency (live fetch included)
//   attest_stage_searches_total{stage}         index searches run
//   attest_stage_fetches_total{stage}          live fetches started
//   attest_stage_rerank_pairs_total{stage}     pairs sent to the cross-encoder
//   attest_stage_model_calls_total{stage}      chat-model calls
//   attest_stage_tokens_total{stage,kind}      kind = prompt | completion
//   attest_tier_escalations_total              small drafts written again by the large model
void ObserveAnswerCost(const AnswerResult& r, Registry* metrics);

// Bucket bounds of attest_answer_cost, in the operator's currency: 0 (nothing priced) .. 5.
std::vector<double> CostBuckets();

}  // namespace attest::service
