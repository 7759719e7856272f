#include "answer/answer_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <set>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "answer/answer_retrieval.h"
#include "answer/conflicts.h"
#include "answer/evidence_builder.h"
#include "answer/multi_hop.h"
#include "answer/output_sanitizer.h"
#include "answer/source_hierarchy.h"
#include "lexical/lexical_searcher.h"
#include "plan/query_plan.h"
#include "rerank/reranker.h"
#include "verify/injection_screen.h"
#include "verify/llm_judge.h"
#include "verify/verifier.h"
#include "write/extractive_writer.h"
#include "write/llm_writer.h"

namespace attest {
namespace {

using SteadyClock = std::chrono::steady_clock;

double MsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

std::string TodayUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string IsoUtc(int64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Words that frame a question rather than name what it is about; they do not count toward the
// evidence's coverage of the question.
bool IsFrameTerm(const std::string& t) {
  // Analyzed (stemmed, case-folded) forms: question words, auxiliaries, pronouns, time words.
  static const std::unordered_set<std::string> kFrame = {
      "latest", "newest", "recent", "current", "chang", "new", "happen", "tell", "explain", "know",
      "how",    "what",   "when",   "where",   "which", "who", "whom",   "whose", "why",  "do",
      "doe",    "did",    "done",   "i",       "we",    "you", "me",     "my",    "our",  "your",
      "can",    "could",  "would",  "should",  "may",   "might", "must", "shall", "ha",  "have",
      "had",    "get",    "long",   "much",    "mani",  "there", "some", "ani",   "pleas"};
  return kFrame.count(t) > 0;
}

std::vector<std::string> QuestionTerms(const Analyzer& analyzer, const std::string& text) {
  std::vector<std::string> out;
  for (auto& t : analyzer.Terms(text)) {
    if (!IsFrameTerm(t)) out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> AnalyzedTerms(const Analyzer& analyzer, const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    for (auto& t : analyzer.Terms(w)) out.push_back(std::move(t));
  }
  return out;
}

void Fallback(AnswerResult* r, const char* reason) {
  r->outcome = AnswerOutcome::kFallback;
  r->fallback_reason = reason;
  r->text.clear();
}

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

namespace {

bool Cancelled(const AskOptions& options) {
  return options.events && options.events->cancelled && options.events->cancelled();
}

void Progress(const AskOptions& options, std::string_view stage, const std::vector<std::string>& queries = {}) {
  if (options.events && options.events->on_progress) options.events->on_progress(stage, queries);
}

}  // namespace

Result<AnswerResult> RunAnswer(const AnswerContext& ctx, const AskOptions& options) {
  const auto t_start = SteadyClock::now();
  AnswerResult result;
  result.snapshot_version = ctx.snapshot->version().get();
  ATTEST_ASSIGN_OR_RETURN(int64_t committed, ctx.snapshot->CommittedAtUnixMs());
  result.as_of = IsoUtc(committed);

  // --- plan (earlier turns first, so a follow-up inherits the previous plan) ---
  auto t = SteadyClock::now();
  PlannerConfig config = PlannerConfig::Defaults();
  if (!options.planner_config_json.empty()) {
    ATTEST_ASSIGN_OR_RETURN(config, PlannerConfig::FromJson(options.planner_config_json));
  }
  SourceHierarchy hierarchy = SourceHierarchy::Defaults();
  if (!options.source_hierarchy_json.empty()) {
    ATTEST_ASSIGN_OR_RETURN(hierarchy, SourceHierarchy::FromJson(options.source_hierarchy_json));
  }
  const std::string today = options.today.empty() ? TodayUtc() : options.today;
  std::optional<QueryPlan> previous;
  for (const std::string& earlier : options.thread) {
    PlanArgs pa{earlier, today, previous ? &*previous : nullptr};
    auto p = PlanQuestion(pa, config);
    if (!p.ok()) continue;  // an earlier turn that does not plan cannot help this one
    auto v = ResolveVersion(ctx, *p, FilterOf(options, *p));
    if (v.ok()) p->resolved_version = v->version;
    previous = std::move(p).value();
  }
  ATTEST_ASSIGN_OR_RETURN(QueryPlan plan,
                          PlanQuestion(PlanArgs{options.question, today, previous ? &*previous : nullptr}, config));
  const SearchFilter filter = FilterOf(options, plan);
  if (plan.resolved_version.empty()) {
    ATTEST_ASSIGN_OR_RETURN(VersionResolution vr, ResolveVersion(ctx, plan, filter));
    plan.resolved_version = vr.version;
    if (!vr.warning.empty()) result.warnings.push_back(vr.warning);
  }
  result.resolved_version = plan.resolved_version;
  result.timings_ms["plan"] = MsSince(t);
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
    result.timings_ms["total"] = MsSince(t_start);
    SealManifest(options, &result);
    return result;
  }

  // --- retrieve ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  {
    std::vector<std::string> queries;
    for (const auto& sq : plan.subqueries) queries.push_back(sq.text);
    if (queries.empty()) queries.push_back(plan.standalone);
    Progress(options, "retrieve", queries);
  }
  t = SteadyClock::now();
  ATTEST_ASSIGN_OR_RETURN(Retrieved got, Retrieve(ctx, plan, options, filter));
  MultiHopResult hops;
  const bool multi_hop = options.multi_hop && IsMultiHopPlan(plan);
  const bool bridge_hop = options.multi_hop && !multi_hop && plan.intent != Intent::kCalculation &&
                          plan.intent != Intent::kGreeting && plan.intent != Intent::kNavigational;
  MultiHopResult bridges;
  if (bridge_hop) {
    ATTEST_ASSIGN_OR_RETURN(bridges, RunBridgeHop(ctx, plan, filter, got.candidates, MultiHopOptions{}));
    for (auto& c : bridges.candidates) got.candidates.push_back(c);
    for (const HopStep& h : bridges.hops) {
      result.hops.push_back(AnswerHop{h.id, h.query, h.value, h.doc_id, h.sentence, h.supported});
    }
  }
  if (multi_hop) {
    ATTEST_ASSIGN_OR_RETURN(hops, RunMultiHop(ctx, plan, filter, MultiHopOptions{}));
    got.hits += hops.candidates.size();
    for (auto& c : hops.candidates) got.candidates.push_back(c);
    for (const HopStep& h : hops.hops) {
      result.hops.push_back(AnswerHop{h.id, h.query, h.value, h.doc_id, h.sentence, h.supported});
    }
    result.verdict = hops.verdict;
  }
  result.results = got.results;
  result.timings_ms["retrieve"] = MsSince(t);
  result.plan_json = plan.ToJson().dump();
  if (got.hits == 0) {
    // Nothing visible to this caller. Say whether documents of the tenant matched that the caller's
    // groups do not admit (the tenant is never widened).
    SearchFilter unrestricted = filter;
    unrestricted.groups.reset();
    unrestricted.clearance.reset();
    unrestricted.labels.reset();
    bool hidden = false;
    if (options.report_access_filtered && (filter.groups || filter.labels)) {
      SearchOptions so;
      so.query = plan.subqueries.empty() ? plan.standalone : plan.subqueries.front().text;
      so.k = 1;
      so.filter = unrestricted;
      so.mode = SearchMode::kBm25;
      so.with_snippets = false;
      auto r = RunSearch(*ctx.snapshot, *ctx.analyzer, so);
      hidden = r.ok() && !r->hits.empty();
    }
    Fallback(&result, hidden ? "filtered_by_access" : "no_documents");
    result.timings_ms["total"] = MsSince(t_start);
    SealManifest(options, &result);
    return result;
  }

  // --- rerank, extract, pack ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  Progress(options, "rerank");
  t = SteadyClock::now();
  EvidenceQuery eq;
  std::set<std::string> terms;
  const std::string q0 = plan.subqueries.empty() ? plan.standalone : plan.subqueries.front().text;
  for (auto& term : QuestionTerms(*ctx.analyzer, q0)) terms.insert(term);
  for (const SubQuery& sq : plan.subqueries) {
    std::vector<std::string> st = QuestionTerms(*ctx.analyzer, sq.text);
    for (const auto& c : plan.constraints.exclude) {
      for (auto& term : ctx.analyzer->Terms(c)) st.erase(std::remove(st.begin(), st.end(), term), st.end());
    }
    eq.subquery_terms[sq.id] = std::move(st);
  }
  for (const auto& e : plan.entities) {
    for (auto& term : ctx.analyzer->Terms(e.canonical)) terms.insert(term);
  }
  for (const auto& c : plan.constraints.exclude) {
    for (auto& term : ctx.analyzer->Terms(c)) terms.erase(term);
  }
  // An entity name that no indexed text contains (a corpus about one product rarely names it on
  // every page) cannot tell evidence apart: it does not count against coverage. Other absent
  // words do ("chief executive" in a corpus that never mentions one is a reason to abstain).
  // Statistics over what this caller may read only (never another tenant's or hidden documents).
  auto term_stats = std::make_shared<ScopedTermStats>(*ctx.snapshot, filter);
  std::set<std::string> unnamed_entity_terms;
  for (const auto& e : plan.entities) {
    for (const std::string& name : {e.canonical, e.text}) {
      for (auto& term : ctx.analyzer->Terms(name)) {
        if (term_stats->DocFreq(term) == 0) unnamed_entity_terms.insert(term);
      }
    }
  }
  for (const auto& term : unnamed_entity_terms) {
    terms.erase(term);
    for (auto& [id, st] : eq.subquery_terms) st.erase(std::remove(st.begin(), st.end(), term), st.end());
  }
  eq.terms.assign(terms.begin(), terms.end());
  for (const auto& p : plan.operators.phrases) eq.phrases.push_back(Analyzer::Fold(p));
  eq.exclude_terms = AnalyzedTerms(*ctx.analyzer, plan.constraints.exclude);
  eq.scope_terms = AnalyzedTerms(*ctx.analyzer, plan.constraints.scope);
  eq.resolved_version = plan.resolved_version;
  // An explicit date in a multi-hop question is a value to compare, not a scope for sources.
  if (plan.time.from && !multi_hop) eq.from = ParseDate(*plan.time.from);
  if (plan.time.to && !multi_hop) eq.to = ParseDate(*plan.time.to);
  eq.idf = [term_stats](const std::string& term) { return term_stats->Idf(term); };
  PackOptions po;
  for (const HopStep& h : bridges.hops) po.guaranteed_subqueries.insert(h.id);
  if (options.deadline_ms && MsSince(t_start) > options.deadline_ms) {
    po.rerank = false;
    result.degraded.push_back("rerank_skipped_deadline");
  }
  PackResult packed = BuildEvidence(got.candidates, eq, hierarchy, po);
  std::vector<EvidencePassage> pack = std::move(packed.pack);
  if (ctx.reranker && !pack.empty()) {
    if (!po.rerank || (options.deadline_ms && MsSince(t_start) > options.deadline_ms)) {
      if (po.rerank) result.degraded.push_back("rerank_skipped_deadline");
    } else {
      // The cross-encoder reorders the pack: each passage's score (built-in features times the
      // metadata signals) is scaled by 0.5 + its min-max normalized cross-encoder score.
      std::vector<std::string> texts;
      for (const EvidencePassage& p : pack) texts.push_back(p.title.empty() ? p.text : p.title + "\n" + p.text);
      auto scores = ctx.reranker->Score(options.question, texts);
      if (!scores.ok() || scores->size() != pack.size()) {
        result.degraded.push_back("rerank_failed: " + (scores.ok() ? std::string("wrong number of scores")
                                                                   : scores.status().message()));
      } else {
        const auto [lo, hi] = std::minmax_element(scores->begin(), scores->end());
        for (size_t i = 0; i < pack.size(); ++i) {
          const double norm = *hi > *lo ? ((*scores)[i] - *lo) / (*hi - *lo) : 1.0;
          pack[i].score *= 0.5 + norm;
        }
        std::stable_sort(pack.begin(), pack.end(),
                         [](const EvidencePassage& a, const EvidencePassage& b) { return a.score > b.score; });
        for (size_t i = 0; i < pack.size(); ++i) pack[i].id = "S" + std::to_string(i + 1);
      }
    }
  }
  if (multi_hop) {
    // The hops' sentences lead the pack, in hop order (added when packing left them out).
    std::vector<EvidencePassage> front;
    for (const HopStep& h : hops.hops) {
      if (!h.supported || h.sentence.empty()) continue;
      auto it = std::find_if(pack.begin(), pack.end(),
                             [&](const EvidencePassage& p) { return p.chunk_id == h.chunk_id && p.text == h.sentence; });
      if (it != pack.end()) {
        front.push_back(*it);
        pack.erase(it);
        continue;
      }
      for (const EvidenceCandidate& c : got.candidates) {
        if (c.hit.chunk_id.get() != h.chunk_id) continue;
        EvidencePassage p;
        p.doc_id = c.hit.doc_id;
        p.chunk_id = c.hit.chunk_id.get();
        p.url = c.hit.url;
        p.title = c.hit.title;
        p.site = c.hit.site;
        p.date = c.hit.date;
        p.version = c.hit.version;
        p.source_type = c.hit.source_type;
        p.authority = hierarchy.TierOf(c.hit.source_type).name;
        p.text = h.sentence;
        p.subquery = h.id;
        front.push_back(std::move(p));
        break;
      }
    }
    if (!front.empty()) {
      const double top = pack.empty() ? 1.0 : pack.front().score;
      for (auto& p : front) p.score = std::max(p.score, top);
      pack.insert(pack.begin(), front.begin(), front.end());
      for (size_t i = 0; i < pack.size(); ++i) pack[i].id = "S" + std::to_string(i + 1);
    }
  }
  {
    // Links are judged against every document retrieved for the question: a host that only the
    // passage's own document names is uncorroborated.
    LinkCorroboration links;
    for (const EvidenceCandidate& c : got.candidates) links.AddDocument(c.hit.doc_id, c.hit.url, c.text);
    for (EvidencePassage& p : pack) {
      InjectionFinding f = ScreenPassage(p.text, ScreenContext{&links, p.doc_id});
      p.flagged = f.flagged;
      p.flag_reason = f.reason;
      if (f.flagged) {
        result.warnings.push_back("source " + p.id + " (" + (p.title.empty() ? p.doc_id : p.title) +
                                  ") was shown but not used: it contains text addressed to the model or reader (" +
                                  f.reason + ")");
      }
    }
  }
  result.timings_ms["rerank"] = MsSince(t);

  for (const EvidencePassage& p : pack) {
    AnswerSource s;
    s.id = p.id;
    s.doc_id = p.doc_id;
    s.chunk_id = p.chunk_id;
    s.title = p.title;
    s.site = p.site;
    s.url = p.url;
    s.date = p.date;
    s.version = p.version;
    s.source_type = p.source_type;
    s.authority = p.authority;
    s.text = p.text;
    s.score = p.score;
    s.flagged = p.flagged;
    s.flag_reason = p.flag_reason;
    result.sources.push_back(std::move(s));
  }

  // Abstain when the evidence does not cover the question, or only sources that cannot carry an
  // answer alone (community tiers) speak to it.
  bool usable = false, authoritative = false;
  for (const EvidencePassage& p : pack) {
    if (p.flagged) continue;
    usable = true;
    authoritative |= hierarchy.TierOf(p.source_type).can_answer_alone;
  }
  if (!usable || packed.best_coverage < 0.5 || !authoritative) {
    Fallback(&result, "no_confident_answer");
    if (usable && !authoritative) result.warnings.push_back("only community sources speak to this question");
    result.timings_ms["total"] = MsSince(t_start);
    SealManifest(options, &result);
    return result;
  }

  // --- write: passages of the resolved version (or unversioned) go first; others are labelled ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  // Everything streamed passes the output link policy, as the final result does (SealManifest).
  SanitizingEvents sanitizing(options.events);
  const AnswerEvents* events = sanitizing.events();
  if (events && events->on_sources) events->on_sources(result.sources);
  Progress(options, "write");
  t = SteadyClock::now();
  std::vector<EvidencePassage> writer_pack;
  for (const EvidencePassage& p : pack) {
    if (plan.resolved_version.empty() || p.version.empty() || CompareVersions(p.version, plan.resolved_version) == 0) {
      writer_pack.push_back(p);
    }
  }
  const bool version_scoped = !writer_pack.empty();
  if (!version_scoped) writer_pack = pack;
  if (!plan.constraints.scope.empty()) {
    // A scope ("for logical replication", "for subscribers") is what the question is about: when
    // some passages speak to it, claims come only from those.
    std::vector<EvidencePassage> in_scope;
    for (const EvidencePassage& p : writer_pack) {
      std::vector<std::string> terms = ctx.analyzer->Terms(p.title + " " + p.text);
      std::set<std::string> have(terms.begin(), terms.end());
      for (const std::string& phrase : plan.constraints.scope) {
        std::vector<std::string> want = ctx.analyzer->Terms(phrase);
        if (!want.empty() && std::all_of(want.begin(), want.end(), [&](const std::string& t) { return have.count(t) > 0; })) {
          in_scope.push_back(p);
          break;
        }
      }
    }
    if (!in_scope.empty()) writer_pack = std::move(in_scope);
  }
  if (multi_hop && !hops.hops.empty()) {
    // The answer is the hop chain: each hop's sentence, in order.
    std::vector<EvidencePassage> chain;
    for (const EvidencePassage& p : writer_pack) {
      for (const HopStep& h : hops.hops) {
        if (h.supported && p.chunk_id == h.chunk_id && p.text == h.sentence) chain.push_back(p);
      }
    }
    if (!chain.empty()) writer_pack = std::move(chain);
  }
  WriteArgs wa;
  wa.question = options.question;
  wa.pack = &writer_pack;
  wa.max_sentences = std::max(options.max_sentences, plan.subqueries.size() > 1 ? plan.subqueries.size() : size_t{0});
  if (events && events->on_delta) wa.on_delta = events->on_delta;
  if (events && events->on_sentence) wa.on_sentence = events->on_sentence;
  if (events && events->cancelled) wa.cancelled = events->cancelled;
  ExtractiveWriter extractive;
  AnswerWriter* writer = &extractive;
  if (options.writer == WriterKind::kLlm) {
    if (!ctx.llm_writer) return Status::InvalidArgument("the LLM writer is not configured (set a chat model)");
    writer = ctx.llm_writer;
  }
  ATTEST_ASSIGN_OR_RETURN(Draft draft, writer->Write(wa));
  sanitizing.Flush();
  result.prompt_tokens = draft.prompt_tokens;
  result.completion_tokens = draft.completion_tokens;
  result.timings_ms["write"] = MsSince(t);
  result.blocked_citations = draft.dropped_markers;

  // --- verify ---
  if (Cancelled(options)) return Status::Cancelled("the client went away");
  Progress(options, "verify");
  t = SteadyClock::now();
  if (options.llm_judge && !ctx.judge) return Status::InvalidArgument("the LLM judge needs a chat model (--llm-url)");
  // The built-in checks, then (optionally) the judge, which can only confirm or downgrade.
  auto verify = [&](const Draft& d) {
    std::vector<ClaimVerdict> v = VerifyDraft(pack, d.claims);
    if (options.llm_judge) {
      auto judged = ctx.judge->Judge(pack, d.claims, v);
      if (judged.ok()) {
        v = std::move(judged).value();
      } else {
        result.degraded.push_back("llm_judge_failed: " + judged.status().message());
      }
    }
    return v;
  };
  std::vector<ClaimVerdict> verdicts = verify(draft);
  if (options.writer == WriterKind::kLlm) {
    // The LLM writer may be asked once to repair the claims the verifier rejected.
    bool failing = false;
    for (const ClaimVerdict& v : verdicts) failing |= v.verdict != Verdict::kSupported;
    if (failing) {
      // The repair is not streamed: sentences already shown are replaced or retracted afterwards.
      wa.on_delta = nullptr;
      wa.on_sentence = nullptr;
      auto repaired = ctx.llm_writer->Repair(wa, draft, verdicts);
      if (repaired.ok()) {
        draft = std::move(repaired).value();
        result.prompt_tokens += draft.prompt_tokens;
        result.completion_tokens += draft.completion_tokens;
        verdicts = verify(draft);
        result.warnings.push_back("the model was asked once to repair unsupported claims");
      } else {
        result.degraded.push_back("repair_failed: " + repaired.status().message());
      }
    }
  }
  std::vector<std::string> kept_ids = KeptClaimIds(verdicts, /*keep_partial=*/true);
  std::set<std::string> kept(kept_ids.begin(), kept_ids.end());
  std::vector<std::string> kept_quotes;
  for (const DraftClaim& c : draft.claims) {
    if (!kept.count(c.id)) continue;
    for (const Citation& cite : c.cites) kept_quotes.push_back(cite.quote);
  }
  // No link, command or call to action that no kept quote contains.
  for (const DraftClaim& c : draft.claims) {
    if (kept.count(c.id) && !UnsupportedActions(c.text, kept_quotes).empty()) kept.erase(c.id);
  }
  // Disagreeing sources: the hierarchy decides; at equal rank both views are shown with dates.
  std::map<std::string, std::string> attribution;   // claim id -> "According to X (date), "
  std::map<std::string, std::string> overruled;     // claim id -> reason
  {
    std::map<std::string, const EvidencePassage*> passage_of;
    for (const EvidencePassage& p : pack) passage_of[p.id] = &p;
    std::vector<const DraftClaim*> claims;
    std::vector<const EvidencePassage*> passages;
    for (const DraftClaim& c : draft.claims) {
      if (!kept.count(c.id) || c.cites.empty() || !passage_of.count(c.cites.front().source)) continue;
      claims.push_back(&c);
      passages.push_back(passage_of[c.cites.front().source]);
    }
    for (const Conflict& x : FindConflicts(passages)) {
      const EvidencePassage& a = *passages[x.a];
      const EvidencePassage& b = *passages[x.b];
      const int ra = hierarchy.TierOf(a.source_type).rank, rb = hierarchy.TierOf(b.source_type).rank;
      if (ra != rb) {
        const bool drop_b = ra > rb;
        const DraftClaim& loser = drop_b ? *claims[x.b] : *claims[x.a];
        const EvidencePassage& winner = drop_b ? a : b;
        overruled[loser.id] = "conflicts with the more authoritative " + winner.id + " (" + x.reason + ")";
        result.warnings.push_back("sources disagree (" + x.reason + "); the more authoritative " + winner.id + " (" +
                                  (winner.title.empty() ? winner.doc_id : winner.title) + ") was followed");
        continue;
      }
      auto label = [](const EvidencePassage& p) {
        return "According to " + (p.title.empty() ? p.doc_id : p.title) + (p.date.empty() ? "" : " (" + p.date + ")") + ": ";
      };
      attribution[claims[x.a]->id] = label(a);
      attribution[claims[x.b]->id] = label(b);
      result.warnings.push_back("sources of equal standing disagree (" + x.reason + "): both views are shown with their dates");
    }
    for (const auto& [id, reason] : overruled) kept.erase(id);
  }
  std::map<std::string, size_t> number_of;  // source id -> [n]
  for (size_t i = 0; i < pack.size(); ++i) number_of[pack[i].id] = i + 1;
  std::map<std::string, const EvidencePassage*> by_id;
  for (const EvidencePassage& p : pack) by_id[p.id] = &p;
  for (size_t i = 0; i < draft.claims.size(); ++i) {
    const DraftClaim& c = draft.claims[i];
    AnswerClaim ac;
    ac.id = c.id;
    ac.text = c.text;
    for (const Citation& cite : c.cites) ac.cites.push_back({cite.source, cite.quote});
    ac.verdict = i < verdicts.size() ? VerdictName(verdicts[i].verdict) : "unsupported";
    ac.reason = i < verdicts.size() ? verdicts[i].reason : "not verified";
    ac.kept = kept.count(c.id) > 0;
    if (overruled.count(c.id)) ac.reason = overruled[c.id];
    if (!ac.kept) {
      ++result.dropped_claims;
    } else {
      std::string markers;
      for (const Citation& cite : c.cites) {
        auto it = by_id.find(cite.source);
        if (it == by_id.end()) continue;
        const EvidencePassage& p = *it->second;
        if (!plan.resolved_version.empty() && !p.version.empty() &&
            CompareVersions(p.version, plan.resolved_version) != 0) {
          ac.version_label = p.version;
        }
        markers += " [" + std::to_string(number_of[cite.source]) + "]";
        for (AnswerSource& s : result.sources) s.cited |= s.id == cite.source;
      }
      std::string sentence = ac.version_label.empty() ? c.text : "(version " + ac.version_label + ") " + c.text;
      if (attribution.count(c.id)) sentence = attribution[c.id] + sentence;
      if (!result.text.empty()) result.text.push_back(' ');
      result.text += sentence + markers;
    }
    result.claims.push_back(std::move(ac));
  }
  if (!version_scoped) result.warnings.push_back("no source of version " + plan.resolved_version +
                                                 " was found; claims are labelled with their version");
  result.timings_ms["verify"] = MsSince(t);
  if (!result.text.empty() && !hops.verdict_text.empty()) {
    // Computed in code from the cited dates; it carries no quote of its own.
    result.text = hops.verdict_text + " " + result.text;
  }
  result.outcome = result.text.empty() ? AnswerOutcome::kFallback : AnswerOutcome::kAnswer;
  if (result.text.empty()) Fallback(&result, "claims_unsupported");
  result.timings_ms["total"] = MsSince(t_start);
  SealManifest(options, &result);
  return result;
}

}  // namespace attest
