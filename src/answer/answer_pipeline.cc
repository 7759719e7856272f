#include "answer/answer_pipeline.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "answer/analyzed_texts.h"
#include "answer/answer_stages.h"
#include "answer/answerability.h"
#include "answer/evidence_builder.h"
#include "answer/live_fetch.h"
#include "answer/output_sanitizer.h"
#include "answer/overview.h"
#include "verify/llm_judge.h"
#include "write/llm_writer.h"

namespace attest {
namespace {

using SteadyClock = std::chrono::steady_clock;

double MsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

void Fallback(AnswerResult* r, const char* reason) {
  r->outcome = AnswerOutcome::kFallback;
  r->fallback_reason = reason;
  r->text.clear();
}

// The engine's LLM writer and judge behind the stages' interfaces.
class LlmWriterModel final : public RepairingWriter {
 public:
  explicit LlmWriterModel(LlmWriter& writer) : writer_(writer) {}
  Result<Draft> Write(const WriteArgs& args) override { return writer_.Write(args); }
  Result<Draft> Repair(const WriteArgs& args, const Draft& draft, const std::vector<ClaimVerdict>& verdicts) override {
    return writer_.Repair(args, draft, verdicts);
  }

 private:
  LlmWriter& writer_;
};

class LlmJudgeModel final : public ClaimJudge {
 public:
  explicit LlmJudgeModel(const LlmJudge& judge) : judge_(judge) {}
  Result<std::vector<ClaimVerdict>> Judge(const std::vector<EvidencePassage>& pack,
                                          const std::vector<DraftClaim>& claims,
                                          const std::vector<ClaimVerdict>& mechanical,
                                          ModelUsage* usage) const override {
    return judge_.Judge(pack, claims, mechanical, usage);
  }

 private:
  const LlmJudge& judge_;
};

}  // namespace

const char* AnswerOutcomeName(AnswerOutcome o) {
  switch (o) {
    case AnswerOutcome::kAnswer: return "answer";
    case AnswerOutcome::kFallback: return "fallback";
    case AnswerOutcome::kCalculation: return "calculation";
    case AnswerOutcome::kGreeting: return "greeting";
  }
  return "fallback";
}

const char* AnswerModeName(AnswerMode m) { return m == AnswerMode::kResearch ? "research" : "standard"; }

double TotalCost(const std::map<std::string, StageCost>& stages) {
  double total = 0;
  for (const auto& [stage, c] : stages) total += c.cost;
  return total;
}

namespace {

bool Cancelled(const AskOptions& options) {
  return options.events && options.events->cancelled && options.events->cancelled();
}

void Progress(const AskOptions& options, std::string_view stage, const std::vector<std::string>& queries = {}) {
  if (options.events && options.events->on_progress) options.events->on_progress(stage, queries);
}

}  // namespace

namespace {

void Append(std::vector<std::string>* to, std::vector<std::string> from) {
  for (auto& x : from) to->push_back(std::move(x));
}

// When version resolution did not date the resolved version, a release-notes source of that
// version among the evidence or the results does (its published date, else its updated one).
void DateResolvedVersion(AnswerResult* r) {
  if (r->resolved_version.empty() || !r->resolved_version_date.empty()) return;
  for (const AnswerSource& s : r->sources) {
    if (s.source_type == "release_notes" && !s.date.empty() && CompareVersions(s.version, r->resolved_version) == 0) {
      r->resolved_version_date = s.date;
      return;
    }
  }
  for (const SearchHit& h : r->results) {
    if (h.source_type == "release_notes" && !h.date.empty() && CompareVersions(h.version, r->resolved_version) == 0) {
      r->resolved_version_date = h.date;
      return;
    }
  }
}

// Research mode's arguments from the answer's context and options (research.h).
// `spent`: what the answer spent before retrieval (the planner's call).
ResearchArgs ResearchArgsFor(const AnswerContext& ctx, const AskOptions& options, SteadyClock::time_point t_start,
                             const StageCost& spent) {
  ResearchArgs args;
  args.limits = options.research;
  args.spent_before = spent;
  // The answer's own deadline bounds the loop too.
  if (options.deadline_ms > 0 && (args.limits.max_ms == 0 || options.deadline_ms < args.limits.max_ms)) {
    args.limits.max_ms = options.deadline_ms;
  }
  args.prices = ctx.prices;
  args.model = ctx.planner;
  args.model_prompt_price_per_mtok = ctx.planner_price.prompt_per_mtok;
  args.model_completion_price_per_mtok = ctx.planner_price.completion_per_mtok;
  args.model_limits.timeout_ms = ctx.planner_limits.timeout_ms;
  args.clock = ctx.clock;
  args.start = t_start;
  args.k = options.candidates_per_subquery;
  if (const AnswerEvents* events = options.events) {
    args.on_round = [events](const ResearchRound& round) {
      if (events->on_progress) events->on_progress("research", round.queries);
      if (events->on_research) events->on_research(round);
    };
  }
  if (options.events && options.events->cancelled) args.cancelled = options.events->cancelled;
  return args;
}

// An exploratory question in research mode is answered by topic: one claim per viewpoint.
void ApplyOverview(const Analyzer& analyzer, const QueryPlan& plan, const std::vector<EvidencePassage>& pack,
                   WriterPack* writer_pack, size_t* max_sentences, AnswerResult* result) {
  OverviewArgs args;
  args.analyzer = &analyzer;
  args.plan = &plan;
  args.pack = &pack;
  result->overview = BuildOverview(args);
  if (result->overview.viewpoints >= 2) {
    writer_pack->pack = OverviewWriterPack(result->overview, pack);
    *max_sentences = std::max(*max_sentences, std::min<size_t>(result->overview.viewpoints, args.max_topics));
  } else {
    result->warnings.push_back("overview: " + result->overview.coverage);
  }
}

// What the retrieve stage reports: research mode's rounds, the hops, the results.
void RecordRetrieval(const RetrievedForAnswer& got, AnswerResult* result) {
  if (got.research) {
    result->research = got.research->report;
    result->stage_costs["research"] += got.research->cost;
  }
  result->hops = got.answer_hops;
  if (got.multi_hop) result->verdict = got.hops.verdict;
  result->results = got.got.results;
}

// A chat model's stage: its calls and tokens, priced by its prices.
StageCost ModelStage(const ModelUsage& u, const TokenPrice& price) {
  StageCost s;
  s.model_calls = u.calls;
  s.prompt_tokens = u.prompt_tokens;
  s.completion_tokens = u.completion_tokens;
  s.cost = price.Cost(u.prompt_tokens, u.completion_tokens);
  return s;
}

// Ends an answer: the total time and cost, and the sealed manifest.
AnswerResult Finish(AnswerResult result, SteadyClock::time_point t_start, const AskOptions& options) {
  DateResolvedVersion(&result);
  result.cost = TotalCost(result.stage_costs);
  result.timings_ms["total"] = MsSince(t_start);
  SealManifest(options, &result);
  return result;
}

}  // namespace

Result<AnswerResult> RunAnswer(const AnswerContext& ctx, const AskOptions& options) {
  std::optional<LlmWriterModel> writer, large;
  std::optional<LlmJudgeModel> judge;
  if (ctx.llm_writer) writer.emplace(*ctx.llm_writer);
  if (ctx.llm_writer_large) large.emplace(*ctx.llm_writer_large);
  if (ctx.judge) judge.emplace(*ctx.judge);
  AnswerModels models{writer ? &*writer : nullptr, judge ? &*judge : nullptr, ctx.reranker,
                      large ? &*large : nullptr};
  return RunAnswerWith(ctx, models, options);
}

Result<AnswerResult> RunAnswerWith(const AnswerContext& ctx, const AnswerModels& models, const AskOptions& options) {
  const auto t_start = SteadyClock::now();
  const auto t_clock_start = (ctx.clock != nullptr ? ctx.clock : RealClock())->Now();  // research mode's limits
  AnswerResult result;
  result.mode = options.mode;
  result.snapshot_version = ctx.corpus->version();
  ATTEST_ASSIGN_OR_RETURN(int64_t committed, ctx.corpus->CommittedAtUnixMs());
  result.as_of = FormatUtcTimestamp(committed);

  // --- plan ---
  auto t = SteadyClock::now();
  ATTEST_ASSIGN_OR_RETURN(PlannedAnswer planned, PlanForAnswer(ctx, options));
  const QueryPlan& plan = planned.plan;
  Append(&result.warnings, std::move(planned.warnings));
  result.resolved_version = plan.resolved_version;
  result.resolved_version_date = planned.resolved_version_date;
  result.standalone = plan.standalone;
  result.timings_ms["plan"] = MsSince(t);
  if (planned.planner_usage.calls > 0) result.stage_costs["plan"] = ModelStage(planned.planner_usage, ctx.planner_price);
  Progress(options, "plan");
  if (!plan.needs_search) {
    result.plan_json = plan.ToJson().dump();
    if (plan.calculation) {
      result.outcome = AnswerOutcome::kCalculation;
      result.text = plan.calculation->text;
    } else {
      result.outcome = AnswerOutcome::kGreeting;
      result.text = "Hello. Ask a question about the indexed documents and I will answer from them, with sources.";
    }
    return Finish(std::move(result), t_start, options);
  }

  // --- retrieve (+ bridge or hop chain) ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  Progress(options, "retrieve", RetrieveQueries(plan));
  t = SteadyClock::now();
  // Every text this answer analyses is analysed once (bridge hop, evidence, answerability).
  AnalyzedTexts analysis(*ctx.analyzer);
  std::optional<ResearchArgs> research;
  if (options.mode == AnswerMode::kResearch) {
    research = ResearchArgsFor(ctx, options, t_clock_start,
                               result.stage_costs.count("plan") ? result.stage_costs.at("plan") : StageCost{});
  }
  ATTEST_ASSIGN_OR_RETURN(RetrievedForAnswer got, RetrieveForAnswer(ctx, plan, planned.filter, options, &analysis,
                                                                    research ? &*research : nullptr));
  RecordRetrieval(got, &result);
  result.timings_ms["retrieve"] = MsSince(t);
  result.stage_costs["retrieve"].searches = static_cast<uint32_t>(got.searches);
  result.stage_costs["retrieve"].cost = double(got.searches) * (ctx.prices ? ctx.prices->per_search : 0);
  result.plan_json = plan.ToJson().dump();
  if (got.got.hits == 0) {
    // Nothing visible to this caller.
    Fallback(&result, NoDocumentsReason(ctx, plan, planned.filter, options));
    return Finish(std::move(result), t_start, options);
  }

  // --- rerank, extract, pack ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  Progress(options, "rerank");
  t = SteadyClock::now();
  PackInput pin{&ctx, &models, &planned, &got, options.question,
                [&] { return options.deadline_ms && MsSince(t_start) > options.deadline_ms; }, &analysis,
                CrossEncoderCall{}};
  if (options.deadline_ms) pin.cross_encoder.deadline = t_start + std::chrono::milliseconds(options.deadline_ms);
  if (options.bulk) pin.cross_encoder.priority = RerankPriority::kBulk;
  PackedAnswer packed = PackForAnswer(pin);
  const std::vector<EvidencePassage>& pack = packed.pack;
  Append(&result.degraded, std::move(packed.degraded));
  Append(&result.warnings, std::move(packed.warnings));
  result.timings_ms["rerank"] = MsSince(t);
  if (packed.rerank_pairs > 0) {
    result.stage_costs["rerank"].rerank_pairs = packed.rerank_pairs;
    result.stage_costs["rerank"].cost = double(packed.rerank_pairs) * (ctx.prices ? ctx.prices->per_rerank_pair : 0);
  }
  result.sources = SourcesOf(pack);
  StampFetchedAt(*ctx.corpus, options.filter, ctx.live, &result.sources);
  std::string abstain_warning;
  if (ShouldAbstain(pack, packed.best_coverage, planned.hierarchy, &abstain_warning, options.min_evidence_coverage)) {
    Fallback(&result, "no_confident_answer");
    if (!abstain_warning.empty()) result.warnings.push_back(abstain_warning);
    return Finish(std::move(result), t_start, options);
  }

  // --- write: passages of the resolved version (or unversioned) go first; others are labelled ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  // Everything streamed passes the output link policy, as the final result does (SealManifest).
  SanitizingEvents sanitizing(options.events);
  const AnswerEvents* events = sanitizing.events();
  // A described subject no passage is about is left out of the relevance check (relevance.h).
  const RelevanceQuestion asks = RelevanceFor(plan.focus, plan.subject, pack);
  if (events && events->on_question) events->on_question(FocusName(plan.focus), asks.subject);
  if (events && events->on_sources) events->on_sources(result.sources);
  Progress(options, "write");
  WriterPack writer_pack = SelectWriterPack(*ctx.analyzer, plan, pack, got.multi_hop ? &got.hops : nullptr);
  size_t max_sentences =
      std::max(options.max_sentences, plan.subqueries.size() > 1 ? plan.subqueries.size() : size_t{0});
  if (options.mode == AnswerMode::kResearch && IsExploratory(plan)) {
    ApplyOverview(*ctx.analyzer, plan, pack, &writer_pack, &max_sentences, &result);
  }
  const WriteArgs wa = WriteArgsFor(options.question, asks, writer_pack.pack, max_sentences, events);
  // --- write (the tier's model), verify (+ judge, + one repair round), the claims; escalation ---
  WriteInput win{&ctx, &models, &planned, &pack, &wa, &options, packed.best_coverage, [&] {
                   sanitizing.Flush();
                   Progress(options, "verify");
                 }};
  ATTEST_ASSIGN_OR_RETURN(WrittenAnswer written, WriteForAnswer(win));
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  result.prompt_tokens = written.prompt_tokens;
  result.completion_tokens = written.completion_tokens;
  result.timings_ms["write"] = written.write_ms;
  result.timings_ms["verify"] = written.verify_ms;
  result.blocked_citations = std::move(written.blocked_citations);
  result.tier = std::move(written.tier);
  result.tier_reason = std::move(written.tier_reason);
  result.stage_costs["write"] = written.write;
  result.stage_costs["verify"] = written.verify;
  Append(&result.degraded, std::move(written.degraded));
  Append(&result.warnings, std::move(written.warnings));
  AnswerClaims& claims = written.claims;
  Append(&result.warnings, std::move(claims.warnings));
  for (AnswerSource& s : result.sources) s.cited = claims.cited.count(s.id) > 0;
  result.claims = std::move(claims.claims);
  result.dropped_claims += claims.dropped;
  result.text = std::move(claims.text);
  if (!writer_pack.version_scoped) result.warnings.push_back("no source of version " + plan.resolved_version +
                                                             " was found; claims are labelled with their version");
  if (!result.text.empty() && !got.hops.verdict_text.empty()) {
    // Computed in code from the cited dates; it carries no quote of its own.
    result.text = got.hops.verdict_text + " " + result.text;
  }
  result.outcome = result.text.empty() ? AnswerOutcome::kFallback : AnswerOutcome::kAnswer;
  if (result.text.empty()) Fallback(&result, "claims_unsupported");

  // --- answerability: do the kept claims answer what was asked? ---
  result.answerability = AnswerabilityOfClaims({ctx.analyzer, &plan, &pack, &got.got.candidates, &result.claims,
                                                packed.idf, got.multi_hop, options.min_answerability,
                                                packed.best_coverage, &analysis});
  // A verdict computed in code from a supported hop chain answers by itself (the question's dates
  // are its operands).
  if (result.outcome == AnswerOutcome::kAnswer && result.answerability.computed && got.hops.verdict_text.empty() &&
      result.answerability.score < options.min_answerability) {
    Fallback(&result, "no_confident_answer");
    result.warnings.push_back("no confident answer: " + (result.answerability.reason.empty()
                                                             ? std::string("the kept claims answer little of the question")
                                                             : result.answerability.reason));
  }
  return Finish(std::move(result), t_start, options);
}

}  // namespace attest
