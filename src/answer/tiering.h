// Model tiering (docs/models.md, "Tiering and escalation"): which of two chat models writes an
// answer, and when a draft of the small one is written again by the large one.
//
// The route is a pure function of the plan and the evidence (ChooseTier): the large model for
// comparisons, multi-step (hop-chain) questions, research mode and questions the planner split into
// several sub-queries, and when the best evidence covers the question weakly; the small model
// otherwise (a single-hop question with strong evidence: the evidence does the work, the model
// summarises and cites). Escalation (ShouldEscalate): a small model's draft whose verified claims
// fail the grounding checks is written once more by the large model, and that result is kept.
//
// Thread-safety: pure functions over values; a TierPolicy is immutable once parsed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "attest/answer.h"
#include "attest/status.h"
#include "plan/query_plan.h"

namespace attest {

// The routing profile (JSON: TierPolicyFromJson; `attest --tier-profile FILE`).
struct TierPolicy {
  bool large_for_comparison = true;   // intent comparison, or a model planner's complexity "comparison"
  bool large_for_multi_hop = true;    // intent multi_hop, or a model planner's complexity "multi_step"
  bool large_for_research = true;     // AnswerMode::kResearch
  // A question split into more sub-queries than this goes to the large model (SplitCount()).
  size_t max_subqueries_small = 1;
  // Best evidence coverage (the share of the question's terms the best passage covers, 0..1)
  // below this goes to the large model: weak evidence needs more reasoning over it.
  double min_coverage_small = 0.75;
  // Escalation of a small model's draft after verification.
  bool escalate = true;
  // Escalate when the kept claims are fewer than this share of the drafted ones (0 = only when no
  // claim is kept, i.e. the answer would fall back with claims_unsupported).
  double min_kept_share = 0.5;
};

// What routing looks at.
struct TierInputs {
  Intent intent = Intent::kFact;
  std::string complexity;       // the model planner's classification ("" = none)
  size_t subqueries = 0;        // SplitCount(plan): 0 = the question was not split
  AnswerMode mode = AnswerMode::kStandard;
  double best_coverage = 1;     // PackedAnswer::best_coverage
};

struct TierChoice {
  bool large = false;
  std::string reason;  // why: "comparison", "multi_hop", "research", "subqueries=3", "coverage=0.40<0.75", "strong_evidence"
};

TierChoice ChooseTier(const TierInputs& in, const TierPolicy& policy);

// The sub-queries a plan split the question into: those other than the question itself (purpose
// "original") and its keyword rewrite ("rewrite"), e.g. the two sides of a comparison, the parts of
// a question about several things, a model planner's legs.
size_t SplitCount(const QueryPlan& plan);

// A small draft after verification: `drafted` claims, `kept` of them kept. Returns the reason to
// escalate ("claims_unsupported" when none is kept, "kept=1/4<0.50" under the share), or "" = keep it.
std::string ShouldEscalate(size_t drafted, size_t kept, const TierPolicy& policy);

// The profile as JSON: an object with any of the fields above by name (large_for_comparison,
// large_for_multi_hop, large_for_research, max_subqueries_small, min_coverage_small, escalate,
// min_kept_share); missing fields keep their defaults. kInvalidArgument naming the field for an
// unknown field, a wrong type or a value out of range (shares and coverage in [0, 1],
// max_subqueries_small >= 1). "" = the defaults.
Result<TierPolicy> TierPolicyFromJson(std::string_view json);

// Tier names as reported (AnswerResult::tier): "small", "large", "small->large".
inline constexpr const char* kTierSmall = "small";
inline constexpr const char* kTierLarge = "large";
inline constexpr const char* kTierEscalated = "small->large";

}  // namespace attest
