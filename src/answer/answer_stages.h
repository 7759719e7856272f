// The stages of the answer path (docs/answer.md, "Pipeline"), each a function with its own input
// and output, composed by RunAnswer (answer_pipeline.cc):
//
//   PlanForAnswer      thread turns, planner configuration, source hierarchy, version resolution
//   RetrieveForAnswer  one search per sub-query, bridge hop or hop chain        (answer_retrieval.cc)
//   NoDocumentsReason  the access probe when nothing is visible                 (answer_retrieval.cc)
//   PackForAnswer      evidence query, BuildEvidence, cross-encoder fusion, hop sentences first,
//                      injection screening                                      (answer_pack.cc)
//   SourcesOf / Abstain / SelectWriterPack                                      (answer_pack.cc)
//   VerifyForAnswer    built-in checks, the optional judge, one repair round    (answer_verify.cc)
//   ClaimsForAnswer    kept claims, unsupported actions, conflicts and attribution, the text with
//                      [n] markers                                              (answer_claims.cc)
//   WriteForAnswer     the tier's writer, verification and claims, and the one escalation of a
//                      small model's failing draft to the large one             (answer_write.cc)
//
// The model-backed pieces are interfaces (AnswerModels) so tests substitute fakes; RunAnswer(ctx,
// options) adapts the engine's LlmWriter and LlmJudge to them.
//
// Thread-safety: every stage is reentrant; the models state their own contracts.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "answer/answer_pipeline.h"
#include "answer/answer_retrieval.h"
#include "answer/multi_hop.h"
#include "answer/research.h"
#include "answer/source_hierarchy.h"
#include "plan/query_plan.h"
#include "rerank/reranker.h"
#include "write/writer.h"

namespace attest {

class AnalyzedTexts;

// A writer that can be asked once to repair the claims the verifier rejected (the LLM writer).
class RepairingWriter : public AnswerWriter {
 public:
  virtual Result<Draft> Repair(const WriteArgs& args, const Draft& draft,
                               const std::vector<ClaimVerdict>& verdicts) = 0;
};

// A second opinion on claims that can only confirm or downgrade the built-in verdicts (the LLM
// judge). `mechanical` holds one verdict per claim, in order.
class ClaimJudge {
 public:
  virtual ~ClaimJudge() = default;
  virtual Result<std::vector<ClaimVerdict>> Judge(const std::vector<EvidencePassage>& pack,
                                                  const std::vector<DraftClaim>& claims,
                                                  const std::vector<ClaimVerdict>& mechanical,
                                                  ModelUsage* usage) const = 0;  // usage: optional
};

struct AnswerModels {
  RepairingWriter* llm_writer = nullptr;  // for WriterKind::kLlm; null = not configured
  const ClaimJudge* judge = nullptr;      // for AskOptions::llm_judge; null = not configured
  const Reranker* reranker = nullptr;     // an external cross-encoder; null = built-in features only
  // The large tier's writer (docs/models.md, "Tiering and escalation"); null = one chat model, no routing.
  RepairingWriter* llm_writer_large = nullptr;
};

// RunAnswer with the models given (tests pass fakes); RunAnswer(ctx, options) calls it with the
// context's models.
Result<AnswerResult> RunAnswerWith(const AnswerContext& ctx, const AnswerModels& models, const AskOptions& options);

// --- plan ---
struct PlannedAnswer {
  QueryPlan plan;              // with resolved_version set
  SearchFilter filter;         // the caller's filter narrowed by the plan
  SourceHierarchy hierarchy;   // from AskOptions::source_hierarchy_json or the defaults
  std::vector<std::string> warnings;  // a stale-sources warning from version resolution
  std::string resolved_version_date;  // when version resolution found it ("" = unknown)
  std::vector<std::string> feed_docs;  // the version feeds version resolution read
  ModelUsage planner_usage;            // the model planner's call (none when not configured or not asked)
};

// Plans the question after the earlier turns of its thread (a follow-up inherits the previous
// plan; an earlier turn that does not plan is skipped) and resolves "latest".
Result<PlannedAnswer> PlanForAnswer(const AnswerContext& ctx, const AskOptions& options);

// The queries announced with the "retrieve" progress event: the sub-queries, or the standalone
// question.
std::vector<std::string> RetrieveQueries(const QueryPlan& plan);

// --- retrieve ---
struct RetrievedForAnswer {
  Retrieved got;              // candidates of every round (hops included), the result list, hits
  bool multi_hop = false;     // the plan is a hop chain and AskOptions::multi_hop is on
  MultiHopResult hops;        // the hop chain (multi_hop)
  MultiHopResult bridges;     // the bridge hop (questions the planner did not split)
  std::vector<AnswerHop> answer_hops;  // bridges then hops (then research queries), as reported
  std::optional<ResearchResult> research;  // research mode's rounds 2..
  StageCost round1;                    // the searches of round 1 (sub-queries, bridge hop, hop chain)
  size_t searches = 0;        // index searches run by round 1 (a repeat served from the answer is not)
};

// `analysis`: the answer's analysed texts (analyzed_texts.h, over ctx.analyzer); null = none kept.
// `research` (AskOptions::mode research): the loop's arguments; round 1 is then the plan's
// sub-queries and hop chain without the bridge hop (the loop finds bridges itself), and its time
// and searches are filled in here before the loop starts.
Result<RetrievedForAnswer> RetrieveForAnswer(const AnswerContext& ctx, const QueryPlan& plan,
                                             const SearchFilter& filter, const AskOptions& options,
                                             AnalyzedTexts* analysis = nullptr, ResearchArgs* research = nullptr);

// Nothing was visible: "filtered_by_access" when documents of the tenant matched that the
// caller's groups or labels do not admit (asked only with AskOptions::report_access_filtered; the
// tenant is never widened), else "no_documents".
const char* NoDocumentsReason(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                              const AskOptions& options);

// --- pack ---
// What the evidence builder scores passages against: the question's content terms (frame words,
// excluded words and entity names no readable text contains removed), per sub-query terms,
// phrases, scope, version and dates (not for hop chains), IDF over what the caller may read.
EvidenceQuery BuildEvidenceQuery(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                 bool multi_hop);

// What a batching reranker needs to know about the answer (src/rerank/rerank_batcher.h).
struct CrossEncoderCall {
  std::optional<std::chrono::steady_clock::time_point> deadline;  // the answer's; nullopt = none
  RerankPriority priority = RerankPriority::kInteractive;
};

struct PackInput {
  const AnswerContext* ctx = nullptr;
  const AnswerModels* models = nullptr;
  const PlannedAnswer* planned = nullptr;
  const RetrievedForAnswer* retrieved = nullptr;
  std::string question;
  std::function<bool()> past_deadline;  // asked before packing and before the cross-encoder; optional
  AnalyzedTexts* analysis = nullptr;     // the answer's analysed texts (over ctx->analyzer); optional
  CrossEncoderCall cross_encoder;        // the answer's deadline and priority, for a batching reranker
};

struct PackedAnswer {
  std::vector<EvidencePassage> pack;  // ids S1.. in order
  double best_coverage = 0;
  std::function<double(const std::string& term)> idf;  // the evidence query's IDF (caller-scoped)
  std::vector<std::string> degraded;  // rerank_skipped_deadline, rerank_failed: ...
  std::vector<std::string> warnings;  // flagged sources
  uint32_t rerank_pairs = 0;          // query-passage pairs sent to the cross-encoder
};

PackedAnswer PackForAnswer(const PackInput& in);

// The cross-encoder reorders `pack`: each passage's score is scaled by 0.5 + its min-max
// normalized cross-encoder score; ids are renumbered. On failure the pack is unchanged and a
// "rerank_failed: ..." string is returned.
std::optional<std::string> FuseCrossEncoder(const Reranker& reranker, const std::string& question,
                                            std::vector<EvidencePassage>* pack, const CrossEncoderCall& call = {});

// The hop chain's supported sentences lead the pack, in hop order (added from the candidates when
// packing left them out), scored at least as the top passage; ids are renumbered.
void PutHopsFirst(const MultiHopResult& hops, const std::vector<EvidenceCandidate>& candidates,
                  const SourceHierarchy& hierarchy, std::vector<EvidencePassage>* pack);

// Research mode: the passages of the chain's later links (ResearchResult::chain, in round order)
// follow the best passage, scored at least half of it; ids are renumbered.
void PutChainNext(const std::vector<std::string>& chain, std::vector<EvidencePassage>* pack);

// Flags passages with text addressed to the model or reader (links judged against every
// retrieved document); returns one warning per flagged passage.
std::vector<std::string> ScreenPack(const std::vector<EvidenceCandidate>& candidates,
                                    std::vector<EvidencePassage>* pack);

std::vector<AnswerSource> SourcesOf(const std::vector<EvidencePassage>& pack);

// Abstain when no unflagged passage is usable, the evidence covers less than `min_coverage` of the
// question (AskOptions::min_evidence_coverage), or only sources that cannot carry an answer alone
// speak to it (then `warning` says so).
bool ShouldAbstain(const std::vector<EvidencePassage>& pack, double best_coverage, const SourceHierarchy& hierarchy,
                   std::string* warning, double min_coverage = 0.5);

struct WriterPack {
  std::vector<EvidencePassage> pack;
  bool version_scoped = true;  // false: no passage of the resolved version; all passages are given
};

// The passages the writer sees: the resolved version's (or unversioned) first, narrowed to the
// question's scope when some passages speak to it, and to the hop chain's sentences for hop chains.
WriterPack SelectWriterPack(const Analyzer& analyzer, const QueryPlan& plan, const std::vector<EvidencePassage>& pack,
                            const MultiHopResult* hop_chain);

// --- write ---
// `asks` is what the question asks (the plan's focus and subject).
WriteArgs WriteArgsFor(const std::string& question, const RelevanceQuestion& asks,
                       const std::vector<EvidencePassage>& writer_pack, size_t max_sentences,
                       const AnswerEvents* events);

// --- verify ---
struct VerifyInput {
  const std::vector<EvidencePassage>* pack = nullptr;  // the whole pack (claims may cite any of it)
  const ClaimJudge* judge = nullptr;                   // null = built-in checks only
  RepairingWriter* repairer = nullptr;                 // null = no repair round
  const WriteArgs* write_args = nullptr;               // what the draft was written from (for repair)
  RelevanceQuestion asks;                              // the plan's focus and subject (relevance check)
};

struct VerifiedAnswer {
  Draft draft;                         // the repaired draft when a repair succeeded
  std::vector<ClaimVerdict> verdicts;  // one per draft claim
  uint64_t repair_prompt_tokens = 0;
  uint64_t repair_completion_tokens = 0;
  uint32_t repair_calls = 0;           // the repair round's chat calls (0 = no repair asked)
  ModelUsage judge_usage;              // the judge's calls (both rounds)
  std::vector<std::string> degraded;   // llm_judge_failed: ..., repair_failed: ...
  std::vector<std::string> warnings;   // the repair round ran
};

VerifiedAnswer VerifyForAnswer(const VerifyInput& in, Draft draft);

// --- claims ---
struct ClaimsInput {
  const std::vector<EvidencePassage>* pack = nullptr;
  const Draft* draft = nullptr;
  const std::vector<ClaimVerdict>* verdicts = nullptr;
  const SourceHierarchy* hierarchy = nullptr;
  std::string resolved_version;
};

struct AnswerClaims {
  std::vector<AnswerClaim> claims;
  std::string text;                   // kept claims with [n] markers by pack position
  size_t dropped = 0;
  std::set<std::string> cited;        // source ids the kept claims cite
  std::vector<std::string> warnings;  // disagreeing sources
};

AnswerClaims ClaimsForAnswer(const ClaimsInput& in);

// --- write, verify, claims; tiering and escalation (answer_write.cc) ---
struct WriteInput {
  const AnswerContext* ctx = nullptr;
  const AnswerModels* models = nullptr;
  const PlannedAnswer* planned = nullptr;
  const std::vector<EvidencePassage>* pack = nullptr;  // the whole pack
  const WriteArgs* write_args = nullptr;               // over the writer pack
  const AskOptions* options = nullptr;
  double best_coverage = 0;
  std::function<void()> after_first_write;             // flushes what was streamed; optional
};

struct WrittenAnswer {
  AnswerClaims claims;
  std::vector<std::string> blocked_citations;  // of the kept draft
  std::vector<std::string> degraded, warnings;
  std::string tier;               // "" (extractive), "small", "large", "small->large"
  std::string tier_reason;        // ChooseTier's reason; with escalation, "...; escalated: <why>"
  StageCost write, verify;        // counts and cost (by the writing tier's token prices)
  uint64_t prompt_tokens = 0, completion_tokens = 0;  // every call's, escalation included
  double write_ms = 0, verify_ms = 0;
};

// Picks the writer (the extractive one, or the LLM writer of the tier ChooseTier picks when a large
// model is configured), writes, verifies (judge, one repair) and keeps the claims; a small model's
// draft that ShouldEscalate() rejects is written once more by the large one, and that result is
// kept (escalation is not streamed). Errors: the first writer's; a failed escalation keeps the
// small draft and is reported in `degraded` ("escalation_failed: ...").
Result<WrittenAnswer> WriteForAnswer(const WriteInput& in);

}  // namespace attest
