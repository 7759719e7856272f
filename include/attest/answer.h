// The answer pipeline's public face: ask a question, get an answer whose every claim cites a
// source id and a verbatim quote that a mechanical check found in that source, beside the sources
// and the "as of" time of the index snapshot it read; or, when evidence is weak, a result list with
// the reason (docs/answer.md).
//
// Plain C++ types only; no third-party type leaks through this header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "attest/engine.h"

namespace attest {

enum class AnswerOutcome {
  kAnswer,       // claims with citations
  kFallback,     // a ranked result list instead of an answer; see fallback_reason
  kCalculation,  // answered in code (arithmetic, unit conversion): no retrieval
  kGreeting,     // nothing to search for
};
const char* AnswerOutcomeName(AnswerOutcome o);  // "answer", "fallback", "calculation", "greeting"

enum class WriterKind { kExtractive, kLlm };

// The answer path's mode (docs/research.md): standard = one planned round (plus at most one
// gap-filling bridge hop); research = the bounded loop, opted into per question.
enum class AnswerMode { kStandard, kResearch };
const char* AnswerModeName(AnswerMode m);  // "standard", "research"

// Research mode's hard limits (docs/research.md): never exceeded, whatever the planner says.
struct ResearchLimits {
  uint32_t max_hops = 4;  // retrieval rounds of the loop, the first included (1..16)
  double max_cost = 0;    // in the configured currency (CostPrices, model prices); 0 = no limit
  uint32_t max_ms = 0;    // wall-clock of the whole answer; 0 = none (AskOptions::deadline_ms still applies)
};

// What one stage of an answer spent (docs/cost.md): counts always, cost by the configured prices.
struct StageCost {
  uint32_t searches = 0;       // index searches run (a repeat served within the answer is not counted)
  uint32_t fetches = 0;        // live fetches started
  uint32_t rerank_pairs = 0;   // query-passage pairs sent to the cross-encoder
  uint32_t model_calls = 0;    // chat-model calls (planner, writer, repair, judge)
  uint64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;             // by CostPrices and the models' token prices
  StageCost& operator+=(const StageCost& o) {
    searches += o.searches;
    fetches += o.fetches;
    rerank_pairs += o.rerank_pairs;
    model_calls += o.model_calls;
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    cost += o.cost;
    return *this;
  }
};

struct AnswerSource;
struct ResearchRound;

// Optional observer of an answer in progress (the server's SSE stream). Callbacks run on the thread
// that called Ask(); each may be empty.
struct AnswerEvents {
  // A stage started or finished: "plan", "retrieve", "rerank", "write", "verify"; the queries run.
  std::function<void(std::string_view stage, const std::vector<std::string>& queries)> on_progress;
  // What the question asks, from its plan, announced just before `on_sources`: the focus's name
  // ("value", "number", "date", "version", ..., "none") and the subject ("" when none). A face
  // that verifies streamed sentences checks their relevance against it (answer/sentence_gate.h).
  std::function<void(std::string_view focus, std::string_view subject)> on_question;
  // The evidence pack is final (before writing): the sources the writer will be given.
  std::function<void(const std::vector<AnswerSource>& sources)> on_sources;
  // Research mode finished a round: its queries ("searching for X") and the documents read so far
  // ("reading 12 sources").
  std::function<void(const ResearchRound& round)> on_research;
  // Writer text as produced (clean text, never half a citation marker).
  std::function<void(std::string_view delta)> on_delta;
  // A streamed sentence is complete (LLM writer): its text and the source ids ("S1"...) it cites.
  std::function<void(std::string_view sentence, const std::vector<std::string>& cites)> on_sentence;
  // Polled between stages: true = stop (the client went away); Ask() then returns kCancelled.
  std::function<bool()> cancelled;
};

// The calibrated abstention threshold (AskOptions::min_answerability; docs/answer.md).
inline constexpr double kDefaultMinAnswerability = 0.30;

struct AskOptions {
  std::string question;
  SearchFilter filter;                 // the caller's tenant and groups: never widened
  std::vector<std::string> thread;     // earlier questions of the conversation, oldest first
  std::string today;                   // YYYY-MM-DD: the clock "latest", "this year" resolve against; "" = now
  WriterKind writer = WriterKind::kExtractive;
  size_t max_sentences = 3;
  size_t candidates_per_subquery = 20;
  uint32_t deadline_ms = 0;            // live fetch + planning + retrieval + reranking budget; 0 = none
  bool bulk = false;                   // batch traffic (evaluations): a batching reranker serves it after interactive answers
  // For this answer only, instead of the engine's (EngineOptions, parsed when it opens): parsed on
  // every answer that sets them. "" = the engine's.
  std::string planner_config_json;     // aliases, entity types (docs/planner.md), added to the defaults
  std::string source_hierarchy_json;   // authority tiers (docs/answer.md), added to the defaults
  std::string manifest_key;            // HMAC-SHA256 key for the evidence manifest; "" = unsigned
  bool multi_hop = true;               // run the hop loop for multi-hop plans
  bool llm_judge = false;              // also ask the chat model to judge support (downgrades only)
  // When nothing the caller may read matches, say `filtered_by_access` (instead of `no_documents`)
  // if documents of the tenant it cannot read would have matched. Off by default: the distinction
  // tells a reader whether hidden text contains the question's words (docs/security.md). An operator
  // option for deployments whose readers may know that.
  bool report_access_filtered = false;
  // Abstention: when the kept claims' answerability score (how well the best answering sentence and
  // its context cover the question's terms, its names, numbers and subject, and carry a token of
  // the asked-for kind; docs/answer.md, "Answerability") is below this, the outcome is the
  // fallback `no_confident_answer` with the ranked results. 0 = never abstain on this score.
  // The default is calibrated on SQuAD v2.0 and the seed scenarios (docs/answer.md).
  double min_answerability = kDefaultMinAnswerability;
  // Before writing: abstain (`no_confident_answer`) when the best source covers less than this
  // share of the question's IDF-weighted terms (docs/answer.md, "Evidence").
  double min_evidence_coverage = 0.25;
  // Live fetch (EngineOptions::live_fetch) may run for this question when the engine has it
  // configured; false = never for this call.
  bool live_fetch = true;
  const AnswerEvents* events = nullptr;  // borrowed; may be null
  AnswerMode mode = AnswerMode::kStandard;
  ResearchLimits research;             // for AnswerMode::kResearch
};

struct AnswerCitation {
  std::string source;  // "S1"...
  std::string quote;
};

struct AnswerClaim {
  std::string id;             // "c1"...
  std::string text;
  std::vector<AnswerCitation> cites;
  std::string verdict;        // supported, partial, unsupported, quote_not_found, unknown_source, off_topic
  std::string reason;
  bool kept = false;
  std::string version_label;  // set when the claim comes from another version than the resolved one
};

struct AnswerSource {
  std::string id;             // "S1"...
  std::string doc_id;
  ChunkId chunk_id;
  std::string title, site, url, date, version, source_type, authority;
  std::string text;           // the passage given to the writer (the snippet used)
  // What the passage is about from its source's structure (a definition term, a table row header,
  // else its innermost heading); "" when unknown.
  std::string subject;
  double score = 0;
  bool cited = false;
  bool flagged = false;       // the injection screen flagged it: shown, never cited
  std::string flag_reason;
  // When Attest obtained the text of this source's document (ISO 8601 UTC): the commit of the
  // version read, or a later live fetch that found it unchanged; "" when unknown.
  std::string fetched_at;
  std::string license;        // the document's licence or terms, "" when not recorded
};

struct AnswerHop {
  std::string id;        // the sub-query
  std::string query;     // as run, earlier values bound
  std::string value;     // the value found and bound into the next hop
  std::string doc_id;    // the source that states it
  std::string sentence;  // verbatim
  bool supported = false;
};

// Whether the kept claims answer the question (docs/answer.md, "Answerability"): computed after
// verification when there is a kept claim.
struct AnswerabilityReport {
  bool computed = false;
  double score = 0;                      // 0..1, of the best answering claim
  double threshold = 0;                  // AskOptions::min_answerability in force
  std::string claim_id;                  // the best answering claim
  std::map<std::string, double> parts;   // the score's components, by name
  std::string reason;                    // in words: what the best claim lacks ("" when nothing)
};

// What live fetch did for an answer (docs/answer.md, "Live fetch").
struct LiveFetchReport {
  // off (not configured or not asked), not_needed (the question does not ask for current
  // information), fresh (the newest readable source is recent enough), no_candidates (no page of
  // the feed or the top results may be fetched), no_budget (the deadline left no time), fetched.
  std::string decision = "off";
  std::string detail;                      // in words
  std::vector<std::string> urls;           // fetches started, in priority order
  uint32_t attempted = 0;                  // fetches started
  uint32_t succeeded = 0;                  // pages that arrived in time (2xx)
  uint32_t refreshed = 0;                  // ... whose document changed (a new version)
  uint32_t unchanged = 0;                  // ... whose document was already current
  uint32_t failed = 0;                     // errors, non-2xx answers, pages that could not be put
  std::map<std::string, uint32_t> failures;  // by reason (crawl/fetcher.h reasons, http_<status>, ...)
  std::vector<std::string> refreshed_ids;  // documents given a new version
  double ms = 0;
};

// How current the answer's sources and index are (docs/answer.md, "Freshness").
struct AnswerFreshness {
  std::string newest_source_date;  // YYYY-MM-DD: the newest published/updated date among cited sources
  std::string newest_source;       // the source id carrying it ("" when no cited source is dated)
  std::string newest_fetched_at;   // ISO 8601 UTC: the most recent fetched_at among cited sources
  int64_t index_lag_seconds = -1;  // now minus the commit time of the snapshot read (as_of); -1 unknown
};

// One round of research mode's loop (docs/research.md), as reported and streamed.
struct ResearchRound {
  uint32_t round = 1;
  std::vector<std::string> queries;
  std::string decided_by;      // "deterministic" or "model"
  std::string reason;          // the gap each query fills, in words
  std::string model_fallback;  // why the model's step was not used ("" = it was, or none was asked)
  size_t new_documents = 0;    // documents first retrieved in this round
  size_t documents = 0;        // distinct documents retrieved so far
  StageCost cost;              // the round's searches and planner call
  double ms = 0;
};

// What research mode did (AnswerMode::kResearch).
struct ResearchReport {
  bool ran = false;
  ResearchLimits limits;
  std::vector<ResearchRound> rounds;  // rounds 2.. (round 1 is the answer's own retrieval)
  // Why it stopped: sufficient (the model planner said so), no_gap (the deterministic planner found
  // nothing left to search), max_hops, max_cost, max_ms, cancelled.
  std::string stop;
  uint32_t hops = 0;  // rounds run, round 1 included
  double cost = 0;    // of the whole answer up to the end of the loop, by the configured prices
  double ms = 0;      // from the start of the answer to the end of the loop
};

// Research mode's overview of an exploratory question ("what are the approaches to X and their
// trade-offs?"; docs/research.md): the sources in topics, and how many viewpoints they represent.
struct OverviewTopic {
  std::string label;                 // the first source's title, else its most frequent own term
  std::vector<std::string> sources;  // pack ids ("S1"...) of the topic's passages
  std::vector<std::string> doc_ids;
};

struct AnswerOverview {
  bool built = false;
  std::vector<OverviewTopic> topics;
  size_t viewpoints = 0;  // topics represented
  size_t sources = 0;     // distinct documents
  std::string coverage;   // in words: "4 viewpoints from 6 sources", or what is missing
};

struct AnswerResult {
  AnswerOutcome outcome = AnswerOutcome::kFallback;
  std::string fallback_reason;        // no_documents, filtered_by_access, no_confident_answer, claims_unsupported
  std::string text;                   // the answer with [n] markers (n = source number)
  std::vector<AnswerClaim> claims;    // every drafted claim with its verdict (kept or not)
  std::vector<AnswerSource> sources;  // the evidence pack, cited sources marked
  std::vector<SearchHit> results;     // the ranked result list (always filled when retrieval ran)
  std::vector<std::string> warnings;  // e.g. stale sources, versions labelled, conflicting sources
  std::vector<std::string> degraded;  // stages skipped or weakened (e.g. "rerank_skipped_deadline")
  std::vector<std::string> blocked_citations;  // citations of ids the writer was never given (dropped)
  std::string plan_json;              // the validated plan
  std::string resolved_version;
  // The release date (YYYY-MM-DD) of resolved_version when the index knows it: the date the
  // version feed gives it, else the date of a release-notes source of that version; "" otherwise.
  std::string resolved_version_date;
  // The planner's standalone question: in a thread, the follow-up rewritten to stand alone.
  std::string standalone;
  uint64_t snapshot_version = 0;
  std::string as_of;                  // commit time of that snapshot, ISO 8601 UTC
  // Through a cluster coordinator (snapshot_version 0): the shards' snapshots the last retrieval
  // round read, "shard@version,..." (docs/cluster.md); "" in one process.
  std::string cluster_snapshot;
  AnswerFreshness freshness;
  LiveFetchReport live_fetch;
  std::map<std::string, double> timings_ms;  // per stage
  AnswerabilityReport answerability;
  uint64_t dropped_claims = 0;        // claims removed by verification
  uint64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;                    // the sum of stage_costs[*].cost, by the configured prices (docs/cost.md)
  AnswerMode mode = AnswerMode::kStandard;
  std::map<std::string, StageCost> stage_costs;  // by stage ("plan", "retrieve", "research", ...)
  ResearchReport research;            // research mode only
  AnswerOverview overview;            // research mode, exploratory questions only
  // The writer's model tier (docs/models.md, "Tiering and escalation"): "small", "large",
  // "small->large" (the small model's draft failed the grounding checks and the large one wrote the
  // answer), "" for the extractive writer or an answer that wrote nothing.
  std::string tier;
  std::string tier_reason;            // why that tier ("comparison", ...; "...; escalated: <why>")
  std::vector<AnswerHop> hops;        // multi-hop trace (empty for single-hop questions)
  std::string verdict;                // "yes"/"no" when a comparison was computed in code
  std::string manifest_json;          // the evidence manifest (canonical JSON)
  std::string manifest_sha256;
  std::string manifest_hmac;          // "" when no key is configured
};

}  // namespace attest
