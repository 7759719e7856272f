// The pack stage of the answer path and the choices made on the pack (answer_stages.h): the
// evidence query, BuildEvidence, cross-encoder fusion, hop sentences first, injection screening,
// the source cards, the abstain decision and the writer's passages.
#include <algorithm>
#include <set>
#include <unordered_set>

#include "answer/answer_stages.h"
#include "answer/answerability.h"
#include "answer/overview.h"
#include "rerank/reranker.h"
#include "verify/injection_screen.h"

namespace attest {
namespace {

std::vector<std::string> QuestionTerms(const Analyzer& analyzer, const std::string& text) {
  std::vector<std::string> out;
  for (auto& t : analyzer.Terms(text)) {
    if (!IsQuestionFrameTerm(t)) out.push_back(std::move(t));
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

void Renumber(std::vector<EvidencePassage>* pack) {
  for (size_t i = 0; i < pack->size(); ++i) (*pack)[i].id = "S" + std::to_string(i + 1);
}

}  // namespace

EvidenceQuery BuildEvidenceQuery(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                 bool multi_hop) {
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
  std::shared_ptr<const CorpusTermStats> term_stats = ctx.corpus->TermStats(filter);
  {  // one request for what is known to be asked (a cluster asks each shard once)
    std::vector<std::string> known(terms.begin(), terms.end());
    for (const auto& e : plan.entities) {
      for (const std::string& name : {e.canonical, e.text}) {
        for (auto& term : ctx.analyzer->Terms(name)) known.push_back(term);
      }
    }
    term_stats->Prefetch(known);
  }
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
  // An exploratory question's survey words ("approaches", "trade-offs") frame it: evidence is
  // about the topic, in words of its own.
  if (IsExploratory(plan)) {
    for (const std::string& t : SurveyTerms(*ctx.analyzer)) {
      terms.erase(t);
      for (auto& [id, st] : eq.subquery_terms) st.erase(std::remove(st.begin(), st.end(), t), st.end());
    }
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
  eq.focus = plan.focus;
  eq.subject = plan.subject;
  return eq;
}

std::optional<std::string> FuseCrossEncoder(const Reranker& reranker, const std::string& question,
                                            std::vector<EvidencePassage>* pack, const CrossEncoderCall& call) {
  std::vector<std::string> texts;
  for (const EvidencePassage& p : *pack) texts.push_back(p.title.empty() ? p.text : p.title + "\n" + p.text);
  RerankRequest request;
  request.query = question;
  request.passages = &texts;
  request.deadline = call.deadline;
  request.priority = call.priority;
  auto scores = reranker.Score(request);
  if (!scores.ok() || scores->size() != pack->size()) {
    return "rerank_failed: " + (scores.ok() ? std::string("wrong number of scores") : scores.status().message());
  }
  const auto [lo, hi] = std::minmax_element(scores->begin(), scores->end());
  for (size_t i = 0; i < pack->size(); ++i) {
    const double norm = *hi > *lo ? ((*scores)[i] - *lo) / (*hi - *lo) : 1.0;
    (*pack)[i].score *= 0.5 + norm;
  }
  std::stable_sort(pack->begin(), pack->end(),
                   [](const EvidencePassage& a, const EvidencePassage& b) { return a.score > b.score; });
  Renumber(pack);
  return std::nullopt;
}

void PutHopsFirst(const MultiHopResult& hops, const std::vector<EvidenceCandidate>& candidates,
                  const SourceHierarchy& hierarchy, std::vector<EvidencePassage>* pack) {
  std::vector<EvidencePassage> front;
  for (const HopStep& h : hops.hops) {
    if (!h.supported || h.sentence.empty()) continue;
    auto it = std::find_if(pack->begin(), pack->end(),
                           [&](const EvidencePassage& p) { return p.chunk_id == h.chunk_id && p.text == h.sentence; });
    if (it != pack->end()) {
      front.push_back(*it);
      pack->erase(it);
      continue;
    }
    for (const EvidenceCandidate& c : candidates) {
      if (c.hit.chunk_id != h.chunk_id) continue;
      EvidencePassage p = PassageOfHit(c.hit, hierarchy.TierOf(c.hit.source_type).name, h.sentence);
      p.subquery = h.id;
      front.push_back(std::move(p));
      break;
    }
  }
  if (front.empty()) return;
  const double top = pack->empty() ? 1.0 : pack->front().score;
  for (auto& p : front) p.score = std::max(p.score, top);
  pack->insert(pack->begin(), front.begin(), front.end());
  Renumber(pack);
}

void PutChainNext(const std::vector<std::string>& chain, std::vector<EvidencePassage>* pack) {
  if (chain.empty() || pack->size() < 2) return;
  std::vector<EvidencePassage> next;
  for (const std::string& label : chain) {
    auto it = std::find_if(pack->begin() + 1, pack->end(), [&](const EvidencePassage& p) { return p.subquery == label; });
    if (it == pack->end()) continue;
    next.push_back(std::move(*it));
    pack->erase(it);
  }
  if (next.empty()) return;
  // Read beside the best passage, never dismissed as far below it.
  const double floor = 0.5 * pack->front().score;
  for (EvidencePassage& p : next) p.score = std::max(p.score, floor);
  pack->insert(pack->begin() + 1, std::make_move_iterator(next.begin()), std::make_move_iterator(next.end()));
  Renumber(pack);
}

std::vector<std::string> ScreenPack(const std::vector<EvidenceCandidate>& candidates,
                                    std::vector<EvidencePassage>* pack) {
  // Links are judged against every document retrieved for the question: a host that only the
  // passage's own document names is uncorroborated.
  std::vector<std::string> warnings;
  LinkCorroboration links;
  for (const EvidenceCandidate& c : candidates) links.AddDocument(c.hit.doc_id, c.hit.url, c.text);
  for (EvidencePassage& p : *pack) {
    InjectionFinding f = ScreenPassage(p.text, ScreenContext{&links, p.doc_id});
    p.flagged = f.flagged;
    p.flag_reason = f.reason;
    if (f.flagged) {
      warnings.push_back("source " + p.id + " (" + (p.title.empty() ? p.doc_id : p.title) +
                         ") was shown but not used: it contains text addressed to the model or reader (" +
                         f.reason + ")");
    }
  }
  return warnings;
}

PackedAnswer PackForAnswer(const PackInput& in) {
  const RetrievedForAnswer& got = *in.retrieved;
  const SourceHierarchy& hierarchy = in.planned->hierarchy;
  auto past_deadline = [&] { return in.past_deadline && in.past_deadline(); };
  PackedAnswer out;
  EvidenceQuery eq = BuildEvidenceQuery(*in.ctx, in.planned->plan, in.planned->filter, got.multi_hop);
  PackOptions po;
  po.analysis = in.analysis;
  for (const HopStep& h : got.bridges.hops) po.guaranteed_subqueries.insert(h.id);
  if (got.research) {
    for (const std::string& label : got.research->guaranteed) po.guaranteed_subqueries.insert(label);
    // An overview reads as many sources as the pack holds, one passage each.
    if (IsExploratory(in.planned->plan)) po.per_source = 1;
  }
  if (past_deadline()) {
    po.rerank = false;
    out.degraded.push_back("rerank_skipped_deadline");
  }
  PackResult packed = BuildEvidence(got.got.candidates, eq, hierarchy, po);
  out.pack = std::move(packed.pack);
  out.best_coverage = packed.best_coverage;
  out.idf = eq.idf;
  const Reranker* reranker = in.models->reranker;
  if (reranker && !out.pack.empty()) {
    if (!po.rerank || past_deadline()) {
      if (po.rerank) out.degraded.push_back("rerank_skipped_deadline");
    } else {
      out.rerank_pairs = static_cast<uint32_t>(out.pack.size());  // sent, whatever the reply
      if (auto failed = FuseCrossEncoder(*reranker, in.question, &out.pack, in.cross_encoder)) {
        out.degraded.push_back(*failed);
      }
    }
  }
  if (got.multi_hop) PutHopsFirst(got.hops, got.got.candidates, hierarchy, &out.pack);
  if (got.research) PutChainNext(got.research->chain, &out.pack);
  out.warnings = ScreenPack(got.got.candidates, &out.pack);
  return out;
}

std::vector<AnswerSource> SourcesOf(const std::vector<EvidencePassage>& pack) {
  std::vector<AnswerSource> sources;
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
    s.subject = p.subject;
    s.score = p.score;
    s.flagged = p.flagged;
    s.flag_reason = p.flag_reason;
    sources.push_back(std::move(s));
  }
  return sources;
}

bool ShouldAbstain(const std::vector<EvidencePassage>& pack, double best_coverage, const SourceHierarchy& hierarchy,
                   std::string* warning, double min_coverage) {
  // Abstain when the evidence does not cover the question, or only sources that cannot carry an
  // answer alone (community tiers) speak to it.
  bool usable = false, authoritative = false;
  for (const EvidencePassage& p : pack) {
    if (p.flagged) continue;
    usable = true;
    authoritative |= hierarchy.TierOf(p.source_type).can_answer_alone;
  }
  if (usable && !(best_coverage < min_coverage) && authoritative) return false;
  if (usable && !authoritative) *warning = "only community sources speak to this question";
  return true;
}

WriterPack SelectWriterPack(const Analyzer& analyzer, const QueryPlan& plan, const std::vector<EvidencePassage>& pack,
                            const MultiHopResult* hop_chain) {
  WriterPack out;
  for (const EvidencePassage& p : pack) {
    if (plan.resolved_version.empty() || p.version.empty() || CompareVersions(p.version, plan.resolved_version) == 0) {
      out.pack.push_back(p);
    }
  }
  out.version_scoped = !out.pack.empty();
  if (!out.version_scoped) out.pack = pack;
  if (!plan.constraints.scope.empty()) {
    // A scope ("for logical replication", "for subscribers") is what the question is about: when
    // some passages speak to it, claims come only from those.
    std::vector<EvidencePassage> in_scope;
    for (const EvidencePassage& p : out.pack) {
      std::vector<std::string> terms = analyzer.Terms(p.title + " " + p.text);
      std::set<std::string> have(terms.begin(), terms.end());
      for (const std::string& phrase : plan.constraints.scope) {
        std::vector<std::string> want = analyzer.Terms(phrase);
        if (!want.empty() && std::all_of(want.begin(), want.end(), [&](const std::string& t) { return have.count(t) > 0; })) {
          in_scope.push_back(p);
          break;
        }
      }
    }
    if (!in_scope.empty()) out.pack = std::move(in_scope);
  }
  if (hop_chain && !hop_chain->hops.empty()) {
    // The answer is the hop chain: each hop's sentence, in order.
    std::vector<EvidencePassage> chain;
    for (const EvidencePassage& p : out.pack) {
      for (const HopStep& h : hop_chain->hops) {
        if (h.supported && p.chunk_id == h.chunk_id && p.text == h.sentence) chain.push_back(p);
      }
    }
    if (!chain.empty()) out.pack = std::move(chain);
  }
  return out;
}

}  // namespace attest
