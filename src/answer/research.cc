// Research mode's loop (research.h): rounds 2.. after the answer's first retrieval, each planned by
// the model research planner when one is configured and affordable, else by the deterministic gap
// filler, and every limit checked against the worst case of the work before it starts.
#include "answer/research.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "answer/answer_retrieval.h"
#include "answer/answer_rounds.h"
#include "plan/model_planner.h"
#include "text/analyzer.h"

namespace attest {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr double kMarginMs = 5;

double Ms(SteadyClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double ModelCost(uint64_t prompt_tokens, uint64_t completion_tokens, const ResearchArgs& args) {
  return (double(prompt_tokens) * args.model_prompt_price_per_mtok +
          double(completion_tokens) * args.model_completion_price_per_mtok) /
         1e6;
}

// The budget left, and how the loop spends it. Every check is made before the work it guards,
// against that work's worst case.
class Budget {
 public:
  Budget(const ResearchArgs& args, const Clock& clock) : args_(args), clock_(clock) {
    spent_ = args.spent_before;
    per_search_ = args.prices ? std::max(0.0, args.prices->per_search) : 0.0;
    // Until a round of the loop has been timed, a round is expected to take as long as round 1.
    round_ms_ = std::max(0.0, args.round1_ms);
  }

  double elapsed_ms() const { return Ms(clock_.Now() - args_.start); }
  double time_left_ms() const {
    return args_.limits.max_ms == 0 ? std::numeric_limits<double>::infinity()
                                    : double(args_.limits.max_ms) - elapsed_ms();
  }
  double cost_left() const {
    return args_.limits.max_cost <= 0 ? std::numeric_limits<double>::infinity() : args_.limits.max_cost - spent_.cost;
  }
  // The searches of one more round fit in the time left (at the slowest pace seen per query).
  // A margin (twice the pace, and 5 ms) absorbs a search slower than the slowest seen so far.
  bool RoundFits(size_t queries) const {
    return 2.0 * round_ms_per_query() * double(queries) + kMarginMs <= time_left_ms();
  }
  // How many searches the cost left pays for.
  size_t AffordableSearches() const {
    if (per_search_ <= 0) return std::numeric_limits<size_t>::max();
    const double n = std::floor(cost_left() / per_search_ + 1e-9);
    return n <= 0 ? 0 : static_cast<size_t>(std::min(n, 1e6));
  }
  // The worst case of a model call: every prompt byte a token, the reply at its token cap.
  double ModelWorstCost(size_t prompt_bytes, uint32_t max_tokens) const {
    return ModelCost(prompt_bytes, max_tokens, args_);
  }
  void Charge(const StageCost& c) { spent_ += c; }
  void TimedRound(double ms, size_t queries) {
    if (queries > 0) slowest_per_query_ = std::max(slowest_per_query_, ms / double(queries));
  }
  const StageCost& spent() const { return spent_; }
  double per_search() const { return per_search_; }

 private:
  double round_ms_per_query() const {
    // Round 1 ran the plan's sub-queries; its time per query is the first estimate.
    return std::max(slowest_per_query_, round_ms_ / 3.0);
  }

  const ResearchArgs& args_;
  const Clock& clock_;
  StageCost spent_;
  double per_search_ = 0;
  double round_ms_ = 0;
  double slowest_per_query_ = 0;
};

struct StepChoice {
  ResearchStepPlan step;
  std::string decided_by = "deterministic";
  std::string model_fallback;
  StageCost cost;  // the model call, when one was made
};

// The model's next step when it is configured and its worst case fits the budget; else (or when
// it fails) the deterministic one.
StepChoice ChooseStep(const ResearchState& state, const ResearchArgs& args, const Budget& budget, const Clock& clock) {
  StepChoice out;
  if (args.model == nullptr) {
    out.step = DeterministicResearchStep(state);
    return out;
  }
  ChatRequest request;
  request.messages = ResearchStepMessages(state, args.model_limits);
  request.response_format_json = ResearchStepResponseFormat(state.max_queries, args.model_limits);
  request.max_tokens = args.model_limits.max_tokens;
  size_t prompt_bytes = request.response_format_json.size();
  for (const ChatMessage& m : request.messages) prompt_bytes += m.content.size() + m.role.size();
  // The model call and one search after it must both fit.
  if (budget.ModelWorstCost(prompt_bytes, args.model_limits.max_tokens) + budget.per_search() > budget.cost_left()) {
    out.model_fallback = "no_budget: the call's worst case does not fit the cost left";
  } else if (double(args.model_limits.timeout_ms) + 1 > budget.time_left_ms() || !budget.RoundFits(1)) {
    out.model_fallback = "no_budget: the call's timeout does not fit the time left";
  } else {
    const auto t0 = clock.Now();
    ChatCallInfo info;
    Result<ChatResponse> got = args.model->Complete(request, &info);
    const double ms = Ms(clock.Now() - t0);
    out.cost.model_calls = 1;
    if (got.ok()) {
      out.cost.prompt_tokens = got->prompt_tokens;
      out.cost.completion_tokens = got->completion_tokens;
    }
    // A server that reports no usage is charged the worst case.
    const bool usage = got.ok() && (got->prompt_tokens > 0 || got->completion_tokens > 0);
    out.cost.cost = usage ? ModelCost(got->prompt_tokens, got->completion_tokens, args)
                          : budget.ModelWorstCost(prompt_bytes, args.model_limits.max_tokens);
    if (ms > double(args.model_limits.timeout_ms)) {
      out.model_fallback = "timeout: the reply took " + std::to_string(int64_t(ms)) + " ms; the limit is " +
                           std::to_string(args.model_limits.timeout_ms) + " ms";
    } else if (!got.ok()) {
      out.model_fallback = ChatFailureReason(got.status(), info);
    } else if (got->refused()) {
      out.model_fallback = "refused: " + got->refusal.substr(0, 200);
    } else if (got->finish_reason == "length") {
      out.model_fallback = "malformed_reply: the reply was cut at its token limit";
    } else {
      auto parsed = ParseResearchStepReply(got->content, state.max_queries, args.model_limits);
      if (!parsed.ok()) {
        out.model_fallback = "malformed_reply: " + parsed.status().message();
      } else {
        // A query already run is not run again.
        ResearchStepPlan step = std::move(*parsed);
        ResearchStepPlan kept;
        kept.sufficient = step.sufficient;
        kept.reason = step.reason;
        for (size_t i = 0; i < step.queries.size(); ++i) {
          const std::string key = Analyzer::Fold(step.queries[i]);
          if (std::find(state.searched.begin(), state.searched.end(), key) != state.searched.end()) continue;
          kept.queries.push_back(step.queries[i]);
          kept.names.push_back(step.names[i]);
        }
        if (!kept.sufficient && kept.queries.empty()) {
          out.model_fallback = "malformed_reply: every query was already run";
        } else {
          out.step = std::move(kept);
          out.decided_by = "model";
          return out;
        }
      }
    }
  }
  out.step = DeterministicResearchStep(state);
  return out;
}

// The query's target: the first hit about the name it looks for, else its first hit.
size_t TargetOf(const std::vector<EvidenceCandidate>& hits, const std::string& name, bool* about) {
  *about = false;
  if (!name.empty()) {
    for (size_t i = 0; i < hits.size(); ++i) {
      if (SourceIsAbout(hits[i].hit.title, hits[i].text, name)) {
        *about = true;
        return i;
      }
    }
  }
  return 0;
}

constexpr size_t kResolvedBridgesPacked = 2;

// The sources of the evidence chain's entities (the question's names, then the first names the
// leading sources give) that were retrieved but not targeted by a query: a copy of the chunk that
// shows the name, first in its round (rank 0) and labelled so that its best passage is packed.
void GuaranteeResolvedSources(const Analyzer& analyzer, const QueryPlan& plan, const std::vector<EvidenceCandidate>& all,
                              const TermStatistics& stats, std::set<std::string>* guaranteed_docs,
                              ResearchResult* out) {
  const EvidenceSummary summary = SummarizeEvidence(analyzer, plan, all, stats);
  size_t bridges = 0, n = 0;
  for (const EvidenceSummary::Resolved& r : summary.resolved) {
    if (!r.of_question && bridges >= kResolvedBridgesPacked) continue;
    if (!guaranteed_docs->insert(r.doc_id).second) continue;
    bridges += !r.of_question;
    auto it = std::find_if(all.begin(), all.end(), [&](const EvidenceCandidate& c) { return c.hit.chunk_id == r.chunk_id; });
    if (it == all.end()) continue;
    EvidenceCandidate copy = *it;
    copy.rank = 0;
    copy.subquery = "research:about." + std::to_string(++n);
    out->guaranteed.push_back(copy.subquery);
    // A name the leading sources give, whose source the first round already found, continues the
    // chain as a searched one does (before those: its source was found with the question's words).
    if (!r.of_question) out->chain.insert(out->chain.begin() + static_cast<std::ptrdiff_t>(bridges - 1), copy.subquery);
    out->hops.push_back(AnswerHop{copy.subquery, "", r.name, r.doc_id, "", true});
    out->candidates.push_back(std::move(copy));
  }
}

}  // namespace

Result<ResearchResult> RunResearch(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                   const std::vector<EvidenceCandidate>& first_round, const ResearchArgs& args) {
  const Clock& clock = args.clock != nullptr ? *args.clock : *RealClock();
  ResearchResult out;
  ResearchReport& report = out.report;
  report.ran = true;
  report.limits = args.limits;
  report.hops = 1;  // round 1: the answer's own retrieval
  const uint32_t max_hops = std::clamp<uint32_t>(args.limits.max_hops, 1, 16);
  Budget budget(args, clock);
  std::shared_ptr<const CorpusTermStats> stats = ctx.corpus->TermStats(args.filter);
  TermStatistics term_stats;
  term_stats.idf = [&stats](const std::string& t) { return stats->Idf(t); };
  term_stats.doc_freq = [&stats](const std::string& t) { return stats->DocFreq(t); };
  term_stats.documents = stats->NumDocs();
  std::vector<EvidenceCandidate> all = first_round;
  std::vector<std::string> searched;
  for (const SubQuery& sq : plan.subqueries) searched.push_back(Analyzer::Fold(sq.text));
  for (const EvidenceCandidate& c : first_round) {
    if (c.subquery.rfind("bridge:", 0) == 0) searched.push_back(Analyzer::Fold(c.subquery.substr(7)));
  }
  std::set<std::string> docs;
  for (const EvidenceCandidate& c : all) docs.insert(c.hit.doc_id);
  std::set<std::string> guaranteed_docs;
  for (uint32_t round = 2;; ++round) {
    if (report.hops >= max_hops) {
      report.stop = "max_hops";
      break;
    }
    if (args.cancelled && args.cancelled()) {
      report.stop = "cancelled";
      break;
    }
    if (budget.AffordableSearches() == 0) {
      report.stop = "max_cost";
      break;
    }
    if (!budget.RoundFits(1)) {
      report.stop = "max_ms";
      break;
    }
    const auto t0 = clock.Now();
    const EvidenceSummary summary = SummarizeEvidence(*ctx.analyzer, plan, all, term_stats);
    ResearchState state{plan.standalone.empty() ? plan.original : plan.standalone, &plan, &summary, searched,
                        args.max_queries, round};
    StepChoice choice = ChooseStep(state, args, budget, clock);
    budget.Charge(choice.cost);
    ResearchRound r;
    r.round = round;
    r.decided_by = choice.decided_by;
    r.model_fallback = choice.model_fallback;
    r.reason = choice.step.reason;
    r.cost = choice.cost;
    if (choice.step.sufficient) {
      report.stop = choice.decided_by == "model" ? "sufficient" : "no_gap";
      out.cost += choice.cost;
      break;
    }
    // Only the searches the budget pays for, and only when they fit in the time left.
    size_t n = std::min(choice.step.queries.size(), budget.AffordableSearches());
    while (n > 0 && !budget.RoundFits(n)) --n;
    if (n == 0) {
      report.stop = budget.AffordableSearches() == 0 ? "max_cost" : "max_ms";
      out.cost += choice.cost;
      break;
    }
    const size_t before = rounds.searches_run();
    const auto t_search = clock.Now();
    for (size_t i = 0; i < n; ++i) {
      const std::string& query = choice.step.queries[i];
      searched.push_back(Analyzer::Fold(query));
      SearchOptions so;
      so.query = query;
      so.k = args.k;
      so.with_snippets = false;
      auto got = rounds.Search(so);
      if (!got.ok()) {
        if (got.status().code() == StatusCode::kInvalidArgument) continue;  // nothing to search for in it
        return got.status().WithContext("research round " + std::to_string(round));
      }
      std::vector<ChunkId> ids;
      for (const SearchHit& h : (*got)->hits) ids.push_back(h.chunk_id);
      ATTEST_RETURN_IF_ERROR(rounds.LoadChunks(ids));
      std::vector<EvidenceCandidate> hits;
      uint32_t rank = 0;
      for (const SearchHit& h : (*got)->hits) {
        const ChunkRecord* record = rounds.Chunk(h.chunk_id);
        if (record == nullptr) continue;  // no longer visible
        EvidenceCandidate c;
        c.hit = h;
        c.text = record->text;
        c.spans = record->spans;
        c.rank = ++rank;
        c.subquery = "research:" + std::to_string(round);
        hits.push_back(std::move(c));
      }
      r.queries.push_back(query);
      if (hits.empty()) continue;
      bool about = false;
      const size_t target = TargetOf(hits, choice.step.names[i], &about);
      const std::string label = "research:" + std::to_string(round) + "." + std::to_string(i + 1);
      for (EvidenceCandidate& c : hits) {
        if (c.hit.doc_id == hits[target].hit.doc_id) c.subquery = label;
      }
      // A target packed whatever its score: the source about the name looked for, or the first hit
      // of a query the model asked for (a first hit of a name's query that is not about it may be
      // anything).
      const bool supported = about || choice.step.names[i].empty();
      if (supported) {
        out.guaranteed.push_back(label);
        guaranteed_docs.insert(hits[target].hit.doc_id);
        if (about) out.chain.push_back(label);
      }
      out.hops.push_back(AnswerHop{label, query, choice.step.names[i], hits[target].hit.doc_id, "", supported});
      for (EvidenceCandidate& c : hits) {
        if (docs.insert(c.hit.doc_id).second) ++r.new_documents;
        all.push_back(c);
        out.candidates.push_back(std::move(c));
      }
    }
    StageCost searches;
    searches.searches = static_cast<uint32_t>(rounds.searches_run() - before);
    searches.cost = double(searches.searches) * budget.per_search();
    budget.Charge(searches);
    r.cost += searches;
    r.documents = docs.size();
    r.ms = Ms(clock.Now() - t0);
    budget.TimedRound(Ms(clock.Now() - t_search), n);
    out.cost += r.cost;
    ++report.hops;
    if (args.on_round) args.on_round(r);
    report.rounds.push_back(std::move(r));
  }
  GuaranteeResolvedSources(*ctx.analyzer, plan, all, term_stats, &guaranteed_docs, &out);
  report.cost = budget.spent().cost;
  report.ms = budget.elapsed_ms();
  return out;
}

}  // namespace attest
