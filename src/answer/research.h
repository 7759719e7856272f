// Research mode (docs/research.md): an opt-in, bounded loop for questions that cannot be planned up
// front. After the answer's first retrieval round, a research planner reads a summary of the
// evidence so far and either declares it sufficient or names the next round's queries; the loop
// runs them with the caller's filter and repeats. Hard limits (ResearchLimits: hops, cost,
// wall-clock) are checked before any work is started, against that work's worst case, so they are
// never exceeded whatever the planner says.
//
// Two research planners share one interface:
//   - the deterministic one (always available) fills gaps: names the best evidence mentions that
//     the question does not (a bridge: "the woman who portrayed Corliss Archer" -> "Shirley
//     Temple"), searched with the question's words the evidence has not covered yet; and entities
//     of the question that no source is about yet, searched on their own. Sufficient when there is
//     no gap left to fill.
//   - the model one asks a chat model (JSON schema through response_format) with the question and
//     the summary; its reply is untrusted input, validated strictly; on any failure (timeout,
//     malformed JSON, schema violation) the deterministic step is used and the fallback recorded.
//
// Thread-safety: the functions are reentrant; one RunResearch uses its AnswerRounds from one thread.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "answer/answer_pipeline.h"
#include "answer/evidence_builder.h"
#include "llm/chat_model.h"
#include "plan/query_plan.h"

namespace attest {

class AnswerRounds;

// One source of the evidence so far, as the planner sees it.
struct ResearchSource {
  std::string doc_id;
  std::string title;
  std::string sentence;  // its sentence that covers most of the question (verbatim)
  double coverage = 0;   // that sentence's IDF-weighted share of the question's terms (0..1)
  uint32_t round = 1;    // the round that first retrieved it
};

// What the evidence so far says about the question (SummarizeEvidence).
struct EvidenceSummary {
  std::vector<ResearchSource> sources;       // best first, at most a few per round
  std::vector<std::string> uncovered_terms;  // question terms no leading source contains, highest IDF first
  std::vector<std::string> unresolved;       // the question's names no source is about yet
  // Names in the leading sources' sentences that the question lacks and no source is about yet,
  // best first, each with the question's terms its source does not contain (highest IDF first).
  struct Bridge {
    std::string name;
    std::vector<std::string> residual;  // question words (as written) its source lacks
    std::string source_doc;
  };
  std::vector<Bridge> bridges;
  // Names (the question's, then the leading sources') that a retrieved source is about: the
  // evidence chain's entities, whose sources belong in the evidence.
  struct Resolved {
    std::string name;
    std::string doc_id;
    ChunkId chunk_id;       // the chunk that shows it (the source's title or lead)
    bool of_question = false;
  };
  std::vector<Resolved> resolved;
  size_t documents = 0;                      // distinct documents retrieved so far
};

struct ResearchStepPlan {
  bool sufficient = false;
  std::vector<std::string> queries;  // the next round's (empty when sufficient)
  std::vector<std::string> names;    // per query, the name it looks for ("" = none: a model's query)
  std::string reason;                // in words: the gap each query fills, or why it is enough
};

// The state a research planner decides from.
struct ResearchState {
  std::string question;                 // the standalone question
  const QueryPlan* plan = nullptr;
  const EvidenceSummary* summary = nullptr;
  std::vector<std::string> searched;    // every query run so far (folded), to avoid repeats
  size_t max_queries = 3;               // queries per round
  uint32_t round = 2;                   // the round being planned
};

// The deterministic gap filler (see above). Pure.
ResearchStepPlan DeterministicResearchStep(const ResearchState& state);

// The model research planner's wire contract (docs/research.md).
struct ResearchModelLimits {
  int64_t timeout_ms = 2000;     // the call's budget (the client's transfer timeout)
  size_t max_text_chars = 300;   // code points per query in the reply
  uint32_t max_tokens = 256;     // asked of the model for its reply
  size_t max_prompt_sources = 8; // sources summarised in the prompt
};
std::string ResearchStepResponseFormat(size_t max_queries, const ResearchModelLimits& limits);
std::vector<ChatMessage> ResearchStepMessages(const ResearchState& state, const ResearchModelLimits& limits);
// kInvalidArgument naming what is wrong: not one JSON object, missing/unknown fields, wrong types,
// an empty or over-long query or one with control characters, more than `max_queries` queries,
// "sufficient": true with queries, or false without any.
Result<ResearchStepPlan> ParseResearchStepReply(std::string_view content, size_t max_queries,
                                                const ResearchModelLimits& limits);

struct ResearchArgs {
  ResearchLimits limits;
  SearchFilter filter;                          // the answer's (IDF over what the caller may read)
  const CostPrices* prices = nullptr;           // null = all 0
  const ChatModel* model = nullptr;             // the model research planner; null = deterministic only
  double model_prompt_price_per_mtok = 0;       // its prices (PlannerModelOptions)
  double model_completion_price_per_mtok = 0;
  ResearchModelLimits model_limits;
  const Clock* clock = nullptr;                 // null = RealClock()
  std::chrono::steady_clock::time_point start;  // when the answer started (ResearchLimits::max_ms counts from it)
  StageCost spent_before;                       // what the answer spent before the loop (planning, round 1)
  double round1_ms = 0;                         // how long round 1 took (estimates later rounds)
  size_t k = 10;                                // hits per query
  size_t max_queries = 3;                       // per round
  // Called after every round (progress events); optional.
  std::function<void(const ResearchRound&)> on_round;
  std::function<bool()> cancelled;              // polled before every round; optional
};

struct ResearchResult {
  // What rounds 2.. retrieved. Each query's target (the document about the name it looks for, else
  // its first hit) is labelled "research:<round>.<n>" (its best passage is packed whatever its
  // score: PackOptions::guaranteed_subqueries); the other hits "research:<round>".
  std::vector<EvidenceCandidate> candidates;
  std::vector<std::string> guaranteed;  // the target labels
  // The labels of targets that continue the chain (a source about a name the evidence gave, found
  // by a later round), in round order: the writer reads them after the best passage.
  std::vector<std::string> chain;
  std::vector<AnswerHop> hops;          // one per query: its target and whether it is about the name
  ResearchReport report;                // rounds 2.., stop, hops, cost, ms
  StageCost cost;                       // rounds 2.. together
};

// Rounds 2.. of research mode after round 1 (`first_round`, the answer's retrieval). The limits
// count round 1 and what the answer spent before the loop (args.spent_before).
Result<ResearchResult> RunResearch(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                   const std::vector<EvidenceCandidate>& first_round, const ResearchArgs& args);

// The names of `text`: runs of capitalised words (initials and "of", "the", "de" inside a run
// allowed), quoted titles; not a question's or sentence's first word alone, not month names or
// numbers alone. In order of appearance, each once.
std::vector<std::string> NamesIn(std::string_view text);

// Whether a source is about `name`: its title without a trailing "(qualifier)" or ", place" is the
// name, or its text starts with it (folded comparisons).
bool SourceIsAbout(const std::string& title, const std::string& text, const std::string& name);

// What the summary knows of the terms (over what the caller may read). Empty functions: every term
// weighs 1 and every name is informative.
struct TermStatistics {
  std::function<double(const std::string&)> idf;
  std::function<uint64_t(const std::string&)> doc_freq;
  uint64_t documents = 0;
};

// Whether a name tells sources apart: a word of it is in at most 2 documents, or its words together
// (taken as independent) are expected in at most 5% of them ("American" in a collection of
// biographies names nothing; "Mira Okafor" does, though several people are called Mira).
bool InformativeName(const Analyzer& analyzer, const std::string& name, const TermStatistics& stats);

// The summary the planners read (pure; `analyzer` analyses the question and the sentences).
EvidenceSummary SummarizeEvidence(const Analyzer& analyzer, const QueryPlan& plan,
                                  const std::vector<EvidenceCandidate>& candidates, const TermStatistics& stats);

}  // namespace attest
