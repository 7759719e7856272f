// The write stage with tiering (answer_stages.h, WriteForAnswer; docs/models.md, "Tiering and
// escalation"): the writer of the tier ChooseTier picks, verification and the claims, and at most
// one escalation of a small model's failing draft to the large model.
#include <chrono>

#include "answer/answer_stages.h"
#include "answer/tiering.h"
#include "write/extractive_writer.h"

namespace attest {
namespace {

using SteadyClock = std::chrono::steady_clock;

double MsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

// One write -> verify -> claims round of one writer.
struct Round {
  AnswerClaims claims;
  std::vector<std::string> blocked_citations, degraded, warnings;
  StageCost write, verify;
  uint64_t prompt_tokens = 0, completion_tokens = 0;
  double write_ms = 0, verify_ms = 0;
  size_t kept = 0;
};

struct RoundArgs {
  AnswerWriter* writer = nullptr;
  RepairingWriter* repairer = nullptr;  // the same writer when it can repair; null = no repair round
  const WriteArgs* write_args = nullptr;
  TokenPrice price;                     // the writer's (a repair is the writer's)
  const std::function<void()>* after_write = nullptr;
};

Result<Round> RunRound(const WriteInput& in, const RoundArgs& a) {
  Round out;
  auto t = SteadyClock::now();
  ATTEST_ASSIGN_OR_RETURN(Draft draft, a.writer->Write(*a.write_args));
  if (a.after_write && *a.after_write) (*a.after_write)();
  out.write.model_calls = draft.model_calls;
  out.write.prompt_tokens = draft.prompt_tokens;
  out.write.completion_tokens = draft.completion_tokens;
  out.write.cost = a.price.Cost(draft.prompt_tokens, draft.completion_tokens);
  out.blocked_citations = draft.dropped_markers;
  out.write_ms = MsSince(t);

  t = SteadyClock::now();
  const AskOptions& options = *in.options;
  const ClaimJudge* judge = options.llm_judge ? in.models->judge : nullptr;
  VerifyInput vin{in.pack, judge, a.repairer, a.write_args, a.write_args->asks};
  VerifiedAnswer verified = VerifyForAnswer(vin, std::move(draft));
  const ModelUsage& j = verified.judge_usage;
  out.verify.model_calls = verified.repair_calls + j.calls;
  out.verify.prompt_tokens = verified.repair_prompt_tokens + j.prompt_tokens;
  out.verify.completion_tokens = verified.repair_completion_tokens + j.completion_tokens;
  // The judge is the small model's (the engine's judge); a repair is the writer's.
  out.verify.cost = a.price.Cost(verified.repair_prompt_tokens, verified.repair_completion_tokens) +
                    in.ctx->small_price.Cost(j.prompt_tokens, j.completion_tokens);
  out.prompt_tokens = out.write.prompt_tokens + verified.repair_prompt_tokens;
  out.completion_tokens = out.write.completion_tokens + verified.repair_completion_tokens;
  out.degraded = std::move(verified.degraded);
  out.warnings = std::move(verified.warnings);
  const PlannedAnswer& planned = *in.planned;
  out.claims = ClaimsForAnswer(ClaimsInput{in.pack, &verified.draft, &verified.verdicts, &planned.hierarchy,
                                           planned.plan.resolved_version});
  if (!out.claims.text.empty()) {
    for (const AnswerClaim& c : out.claims.claims) out.kept += c.kept ? 1 : 0;
  }
  out.verify_ms = MsSince(t);
  return out;
}

void Append(std::vector<std::string>* to, const std::vector<std::string>& from) {
  to->insert(to->end(), from.begin(), from.end());
}

WrittenAnswer FromRound(Round r) {
  WrittenAnswer w;
  w.claims = std::move(r.claims);
  w.blocked_citations = std::move(r.blocked_citations);
  w.degraded = std::move(r.degraded);
  w.warnings = std::move(r.warnings);
  w.write = r.write;
  w.verify = r.verify;
  w.prompt_tokens = r.prompt_tokens;
  w.completion_tokens = r.completion_tokens;
  w.write_ms = r.write_ms;
  w.verify_ms = r.verify_ms;
  return w;
}

// The large model writes the answer again after the small model's draft failed; its result is kept.
void Escalate(const WriteInput& in, const std::string& why, WrittenAnswer* w) {
  WriteArgs quiet = *in.write_args;  // not streamed: what was shown is replaced afterwards
  quiet.on_delta = nullptr;
  quiet.on_sentence = nullptr;
  RepairingWriter* large = in.models->llm_writer_large;
  auto again = RunRound(in, RoundArgs{large, large, &quiet, in.ctx->large_price, nullptr});
  if (!again.ok()) {
    w->degraded.push_back("escalation_failed: " + again.status().message());
    ++w->write.model_calls;  // the call that failed
    return;
  }
  Round r = std::move(again).value();
  w->claims = std::move(r.claims);
  w->blocked_citations = std::move(r.blocked_citations);
  Append(&w->degraded, r.degraded);
  Append(&w->warnings, r.warnings);
  w->warnings.push_back("the small model's draft failed the grounding checks (" + why +
                        "); the large model wrote the answer");
  w->write += r.write;
  w->verify += r.verify;
  w->prompt_tokens += r.prompt_tokens;
  w->completion_tokens += r.completion_tokens;
  w->write_ms += r.write_ms;
  w->verify_ms += r.verify_ms;
  w->tier = kTierEscalated;
  w->tier_reason += "; escalated: " + why;
}

}  // namespace

Result<WrittenAnswer> WriteForAnswer(const WriteInput& in) {
  const AskOptions& options = *in.options;
  const AnswerModels& models = *in.models;
  if (options.llm_judge && !models.judge) return Status::InvalidArgument("the LLM judge needs a chat model (--llm-url)");
  ExtractiveWriter extractive;
  if (options.writer != WriterKind::kLlm) {
    ATTEST_ASSIGN_OR_RETURN(Round r,
                            RunRound(in, RoundArgs{&extractive, nullptr, in.write_args, {}, &in.after_first_write}));
    return FromRound(std::move(r));  // no tier
  }
  if (!models.llm_writer) return Status::InvalidArgument("the LLM writer is not configured (set a chat model)");
  static const TierPolicy kDefaults;
  const TierPolicy& policy = in.ctx->tiers != nullptr ? *in.ctx->tiers : kDefaults;
  TierChoice choice{false, "one_model"};
  if (models.llm_writer_large != nullptr) {
    const QueryPlan& plan = in.planned->plan;
    choice = ChooseTier(TierInputs{plan.intent, plan.planner.complexity, SplitCount(plan), options.mode,
                                   in.best_coverage},
                        policy);
  }
  RepairingWriter* writer = choice.large ? models.llm_writer_large : models.llm_writer;
  const TokenPrice& price = choice.large ? in.ctx->large_price : in.ctx->small_price;
  ATTEST_ASSIGN_OR_RETURN(Round first, RunRound(in, RoundArgs{writer, writer, in.write_args, price,
                                                               &in.after_first_write}));
  const size_t drafted = first.claims.claims.size(), kept = first.kept;
  WrittenAnswer w = FromRound(std::move(first));
  w.tier = choice.large ? kTierLarge : kTierSmall;
  w.tier_reason = choice.reason;
  if (!choice.large && models.llm_writer_large != nullptr) {
    const std::string why = ShouldEscalate(drafted, kept, policy);
    if (!why.empty()) Escalate(in, why, &w);
  }
  return w;
}

}  // namespace attest
