// The model planner (docs/planner.md, "The model planner"): one call to a small chat model with a
// JSON-schema `response_format` that rewrites the question, classifies it (intent, freshness,
// complexity, needs_search) and decomposes it into sub-queries. Its reply is untrusted input:
// validated strictly, then merged into the deterministic planner's plan under rules that keep q0
// (the question's own leg), pass every model leg through ValidateRewrite's checks, and adopt a
// classification only where nothing downstream can be misled by it.
//
// A planner failure costs quality, never availability: on a timeout, a transport or HTTP error, a
// refusal, a truncated or malformed reply or a schema violation, PlanWithModel returns the
// deterministic plan unchanged except for QueryPlan::planner, which names the model and the reason.
//
// Thread-safety: the functions are pure apart from the one call to the ChatModel, whose contract
// allows concurrent calls; PlanWithModel may be called from any number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attest/clock.h"
#include "attest/status.h"
#include "llm/chat_model.h"
#include "plan/query_plan.h"

namespace attest {

struct ModelPlannerLimits {
  // The planner's budget. The HTTP client asking the model should be built with the same transfer
  // timeout and no retries (the engine does); a reply that still arrives later (an injected model
  // without a timeout of its own) counts as a timeout and is not used.
  int64_t timeout_ms = 2000;
  size_t max_subqueries = 4;    // more in a reply is a schema violation; 1..16
  size_t max_text_chars = 300;  // code points per string of the reply; 1..kMaxQuestionChars
  uint32_t max_tokens = 512;    // asked of the model for its reply
};

struct ModelPlanArgs {
  std::string question;                // the user's words, as the deterministic planner got them
  std::vector<std::string> earlier;    // earlier questions of the thread, oldest first (the last 3 are sent)
  const QueryPlan* deterministic = nullptr;  // the deterministic planner's plan of `question` (required)
  ModelPlannerLimits limits;
  const Clock* clock = nullptr;        // measures the call; null = RealClock()
};

// A reply that passed validation.
struct ModelPlanReply {
  std::string standalone;
  std::string intent;      // one of IntentName's values
  std::string freshness;   // "timeless", "recent", "latest"
  std::string complexity;  // "simple", "multi_step", "comparison"
  bool needs_search = true;
  std::vector<std::string> subqueries;  // at most limits.max_subqueries
};

// The `response_format` sent: {"type": "json_schema", "json_schema": {"name": "query_plan",
// "strict": true, "schema": {...}}} with every field required and no other allowed.
std::string ModelPlanResponseFormat(const ModelPlannerLimits& limits);

// The messages sent: a fixed system prompt and a user message with the earlier questions and the
// question (data, never instructions).
std::vector<ChatMessage> ModelPlanMessages(const ModelPlanArgs& args);

// Validates the model's reply text. kInvalidArgument naming the field for: text that is not one
// JSON object, a missing or unknown field, a wrong type, an empty (or whitespace-only) string, a
// string over limits.max_text_chars code points or with control characters, an intent, freshness or
// complexity outside its values, more than limits.max_subqueries sub-queries.
Result<ModelPlanReply> ParseModelPlanReply(std::string_view content, const ModelPlannerLimits& limits);

// Merges a valid reply into `deterministic` (docs/planner.md, "Merge rules"); never fails. Sets
// planner.kind = "model" and the classification; each decision is a note starting "model planner:".
QueryPlan MergeModelPlan(const QueryPlan& deterministic, const ModelPlanReply& reply, const ModelPlannerLimits& limits);

// Shared with other model-directed searches (research mode):
// Code points of UTF-8 text (continuation bytes not counted).
size_t ModelTextCodePoints(std::string_view text);
// Text that the lexical query syntax would read as operators ("phrase", +required, -excluded) or
// the hop chain as a placeholder ({q1}) made plain words: what a model's search query may contain.
std::string SanitizeModelLeg(std::string_view text);
// The reason of a failed chat call, "<kind>: <message>" with kind timeout, http_error,
// malformed_response, transport_error or model_error.
std::string ChatFailureReason(const Status& status, const ChatCallInfo& info);

// The one call: the merged plan, or the deterministic plan with planner.fallback set. `model` is
// asked only when the deterministic plan needs search (a greeting or a calculation is answered
// without the model). Never fails.
QueryPlan PlanWithModel(const ChatModel& model, const ModelPlanArgs& args);

}  // namespace attest
