#include "eval/qa_evaluation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attest/answer.h"
#include "cluster/cluster_engine.h"
#include "common/file_util.h"
#include "eval/beir.h"
#include "eval/shard_equivalence.h"

namespace attest {
namespace {

std::vector<std::string> JsonStrings(const std::map<std::string, std::string>& meta, const std::string& key) {
  std::vector<std::string> out;
  auto it = meta.find(key);
  if (it == meta.end()) return out;
  nlohmann::json j = nlohmann::json::parse(it->second, nullptr, false);
  if (j.is_string()) out.push_back(j.get<std::string>());
  if (j.is_array()) {
    for (const auto& x : j) {
      if (x.is_string()) out.push_back(x.get<std::string>());
    }
  }
  if (j.is_discarded()) out.push_back(it->second);  // a plain string value
  return out;
}

}  // namespace

std::string SquadNormalize(const std::string& text) {
  std::string lower;
  for (unsigned char c : text) {
    if (std::ispunct(c)) continue;
    lower.push_back(static_cast<char>(std::tolower(c)));
  }
  std::istringstream in(lower);
  std::string word, out;
  while (in >> word) {
    if (word == "a" || word == "an" || word == "the") continue;
    if (!out.empty()) out.push_back(' ');
    out += word;
  }
  return out;
}

double SquadF1(const std::string& prediction, const std::string& gold) {
  auto tokens = [](const std::string& s) {
    std::vector<std::string> t;
    std::istringstream in(SquadNormalize(s));
    for (std::string w; in >> w;) t.push_back(w);
    return t;
  };
  std::vector<std::string> p = tokens(prediction), g = tokens(gold);
  if (p.empty() || g.empty()) return p == g ? 1.0 : 0.0;
  std::map<std::string, int> count;
  for (const auto& w : g) ++count[w];
  int same = 0;
  for (const auto& w : p) {
    if (count[w] > 0) --count[w], ++same;
  }
  if (same == 0) return 0;
  const double precision = double(same) / p.size(), recall = double(same) / g.size();
  return 2 * precision * recall / (precision + recall);
}

namespace {

// One line of the per-question file (QaEvaluationArgs::per_question_path).
std::string PerQuestionJson(const BeirQuery& q, const AnswerResult& a, bool has_answers, bool contained) {
  nlohmann::json claims = nlohmann::json::array();
  std::map<std::string, std::string> doc_of;
  for (const auto& s : a.sources) doc_of[s.id] = s.doc_id;
  for (const auto& c : a.claims) {
    if (!c.kept) continue;
    for (const auto& cite : c.cites) claims.push_back({{"doc_id", doc_of[cite.source]}, {"quote", cite.quote}});
  }
  nlohmann::json j = {{"id", q.id},
                      {"question", q.text},
                      {"outcome", AnswerOutcomeName(a.outcome)},
                      {"fallback_reason", a.fallback_reason},
                      {"answerability", a.answerability.computed ? nlohmann::json(a.answerability.score)
                                                                 : nlohmann::json(nullptr)},
                      {"answerability_parts", a.answerability.parts},
                      {"answerability_reason", a.answerability.reason},
                      {"kept_claims", claims}};
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : a.sources) sources.push_back(s.doc_id);
  j["sources"] = std::move(sources);
  nlohmann::json hops = nlohmann::json::array();
  for (const auto& h : a.hops) hops.push_back({{"id", h.id}, {"query", h.query}, {"doc_id", h.doc_id}});
  j["hops"] = std::move(hops);
  j["mode"] = AnswerModeName(a.mode);
  if (has_answers) j["contained"] = contained;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

// The figures of one run, question by question.
struct QaTally {
  double top5 = 0, sup_recall = 0, sup_all = 0, contains = 0, em = 0, f1 = 0;
  size_t gold = 0, supporting = 0, answers = 0, kept = 0, foreign = 0, integrity_ok = 0;

  // Scores one answer; true when it contains a gold answer.
  bool Add(const BeirQuery& q, const AnswerResult& a) {
    const std::vector<std::string> answer_texts = JsonStrings(q.metadata, "answers");
    const std::vector<std::string> gold_paragraph = JsonStrings(q.metadata, "gold_paragraph");
    const std::vector<std::string> supporting_paragraphs = JsonStrings(q.metadata, "supporting");
    bool hit = false;
    if (!gold_paragraph.empty()) {
      ++gold;
      for (size_t i = 0; i < a.results.size() && i < 5; ++i) {
        if (a.results[i].doc_id == gold_paragraph.front()) {
          top5 += 1;
          break;
        }
      }
    }
    if (!supporting_paragraphs.empty()) {
      ++supporting;
      std::set<std::string> evidence;
      for (const auto& s : a.sources) evidence.insert(s.doc_id);
      size_t found = 0;
      for (const auto& s : supporting_paragraphs) found += evidence.count(s);
      sup_recall += double(found) / supporting_paragraphs.size();
      sup_all += found == supporting_paragraphs.size();
    }
    if (!answer_texts.empty()) {
      ++answers;
      const std::string norm = SquadNormalize(a.text);
      double best_f1 = 0, best_em = 0;
      for (const auto& g : answer_texts) {
        const std::string ng = SquadNormalize(g);
        if (!ng.empty() && (" " + norm + " ").find(" " + ng + " ") != std::string::npos) hit = true;
        best_em = std::max(best_em, norm == ng ? 1.0 : 0.0);
        best_f1 = std::max(best_f1, SquadF1(a.text, g));
      }
      contains += hit;
      em += best_em;
      f1 += best_f1;
    }
    // Citation integrity, checked independently of the verifier.
    std::map<std::string, const AnswerSource*> by_id;
    for (const auto& s : a.sources) by_id[s.id] = &s;
    for (const auto& c : a.claims) {
      if (!c.kept) continue;
      ++kept;
      bool ok = !c.cites.empty();
      for (const auto& cite : c.cites) {
        auto it = by_id.find(cite.source);
        if (it == by_id.end()) {
          ++foreign;
          ok = false;
        } else if (cite.quote.empty() || it->second->text.find(cite.quote) == std::string::npos) {
          ok = false;
        }
      }
      integrity_ok += ok;
    }
    return hit;
  }

  void Finish(QaEvaluationReport* rep) const {
    auto ratio = [](double x, size_t n) { return n ? x / n : 0.0; };
    rep->with_gold_paragraph = gold;
    rep->with_supporting = supporting;
    rep->with_answers = answers;
    rep->kept_claims = kept;
    rep->foreign_citations = foreign;
    rep->gold_in_top5 = ratio(top5, gold);
    rep->supporting_recall = ratio(sup_recall, supporting);
    rep->supporting_all = ratio(sup_all, supporting);
    rep->answer_containment = ratio(contains, answers);
    rep->em = ratio(em, answers);
    rep->f1 = ratio(f1, answers);
    rep->citation_integrity = kept ? double(integrity_ok) / kept : 1.0;
  }
};

Result<QaEvaluationReport> RunQaEvaluation(const QaEvaluationArgs& args) {
  const std::filesystem::path dir(args.beir_dir);
  ATTEST_ASSIGN_OR_RETURN(BeirSplit split, LoadBeirSplit(dir, args.split));
  std::optional<ScopedTempDir> temp;
  EngineOptions eo;
  if (args.data_dir.empty()) {
    temp.emplace("attest-qa");
    eo.data_dir = temp->path().string();
  } else {
    eo.data_dir = args.data_dir;
  }
  eo.threads = args.threads;
  eo.embedder = args.embedder;
  if (args.shards > 0) eo.embedder.kind = EmbedderKind::kNone;  // a cluster searches BM25 only
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(eo));
  QaEvaluationReport rep;
  rep.dataset = dir.lexically_normal().string();
  IngestOptions io;
  io.paths = {BeirCorpusPath(dir).string()};
  io.batch_documents = 100000;
  ATTEST_ASSIGN_OR_RETURN(rep.ingest, engine->Ingest(io));
  std::optional<ScopedTempDir> shard_dir;
  ShardStores stores;
  std::unique_ptr<Engine> cluster;
  std::vector<double> cluster_latencies;
  if (args.shards > 0) {
    shard_dir.emplace("attest-qa-shards");
    ATTEST_ASSIGN_OR_RETURN(stores, BuildShardStores(BeirCorpusPath(dir).string(), args.shards, args.vshards,
                                                     args.threads, shard_dir->path().string()));
    ClusterEngineOptions co;
    for (const auto& c : stores.clients) co.shards.emplace_back(c.get(), [](const ShardClient*) {});
    ATTEST_ASSIGN_OR_RETURN(cluster, OpenClusterEngine(std::move(co)));
    rep.cluster.emplace();
    rep.cluster->shards = args.shards;
  }

  std::ofstream per_question;
  if (!args.per_question_path.empty()) {
    per_question.open(args.per_question_path);
    if (!per_question) return Status::IOError("cannot write " + args.per_question_path);
  }
  std::vector<double> latencies;
  QaTally tally, cluster_tally;
  for (const BeirQuery& q : split.queries) {
    if (args.max_queries && rep.questions >= args.max_queries) break;
    ++rep.questions;
    AskOptions ao;
    ao.question = q.text;
    ao.multi_hop = args.multi_hop;
    ao.mode = args.mode;
    ao.research = args.research;
    ao.today = "2026-01-01";
    ao.bulk = true;  // an evaluation: batch traffic
    if (args.min_answerability) ao.min_answerability = *args.min_answerability;
    if (args.min_evidence_coverage) ao.min_evidence_coverage = *args.min_evidence_coverage;
    const auto t0 = std::chrono::steady_clock::now();
    Result<AnswerResult> r = engine->Ask(ao);
    latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!r.ok()) {
      if (r.status().code() != StatusCode::kInvalidArgument) return r.status().WithContext("question " + q.id);
      ++rep.outcomes["error:" + std::string(StatusCodeName(r.status().code()))];
      continue;
    }
    const AnswerResult& a = *r;
    if (cluster) {
      const auto c0 = std::chrono::steady_clock::now();
      Result<AnswerResult> c = cluster->Ask(ao);
      cluster_latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count());
      const std::string diff = c.ok() ? AnswerDifference(a, *c) : "the cluster failed: " + c.status().ToString();
      if (c.ok()) cluster_tally.Add(q, *c);
      ++rep.cluster->compared;
      if (diff.empty()) {
        ++rep.cluster->identical;
      } else {
        ++rep.cluster->different;
        if (rep.cluster->first_difference.empty()) rep.cluster->first_difference = q.id + ": " + diff;
      }
    }
    rep.multi_hop_questions += !a.hops.empty();
    ++rep.outcomes[a.outcome == AnswerOutcome::kFallback ? "fallback:" + a.fallback_reason
                                                         : std::string(AnswerOutcomeName(a.outcome))];
    const bool hit = tally.Add(q, a);
    const bool with_answers = !JsonStrings(q.metadata, "answers").empty();
    if (per_question.is_open()) per_question << PerQuestionJson(q, a, with_answers, hit) << "\n";
  }
  tally.Finish(&rep);
  rep.latency = SummarizeLatencies(latencies);
  if (rep.cluster) {
    QaEvaluationReport figures;
    cluster_tally.Finish(&figures);
    rep.cluster->gold_in_top5 = figures.gold_in_top5;
    rep.cluster->supporting_all = figures.supporting_all;
    rep.cluster->answer_containment = figures.answer_containment;
    rep.cluster->f1 = figures.f1;
    rep.cluster->citation_integrity = figures.citation_integrity;
    rep.cluster->latency = SummarizeLatencies(cluster_latencies);
  }
  return rep;
}

std::string AnswerDifference(const AnswerResult& a, const AnswerResult& b) {
  if (a.results.size() != b.results.size()) {
    return "results " + std::to_string(a.results.size()) + " vs " + std::to_string(b.results.size());
  }
  // Ranked results: the same documents at every rank, except in the order among exactly equal
  // scores (one store breaks such ties by its internal numbering, a cluster by document id); the
  // last group of ties may be cut by k differently, its scores must still agree.
  for (size_t i = 0; i < a.results.size();) {
    size_t j = i;
    std::multiset<std::string> x, y;
    while (j < a.results.size() && a.results[j].score == a.results[i].score) {
      const SearchHit &p = a.results[j], &q = b.results[j];
      if (std::fabs(double(p.score) - double(q.score)) > 1e-6) {
        return "result " + std::to_string(j + 1) + " " + p.doc_id + " (" + std::to_string(p.score) + ") vs " +
               q.doc_id + " (" + std::to_string(q.score) + ")";
      }
      x.insert(p.doc_id);
      y.insert(q.doc_id);
      ++j;
    }
    if (j < a.results.size() && x != y) return "the results tied at rank " + std::to_string(i + 1) + " differ";
    i = j;
  }
  if (a.outcome != b.outcome || a.fallback_reason != b.fallback_reason) {
    return std::string("outcome ") + AnswerOutcomeName(a.outcome) + "/" + a.fallback_reason + " vs " +
           AnswerOutcomeName(b.outcome) + "/" + b.fallback_reason;
  }
  if (a.text != b.text) return "answer text '" + a.text.substr(0, 120) + "' vs '" + b.text.substr(0, 120) + "'";
  if (a.claims.size() != b.claims.size()) return "claims " + std::to_string(a.claims.size()) + " vs " + std::to_string(b.claims.size());
  for (size_t i = 0; i < a.claims.size(); ++i) {
    const AnswerClaim &x = a.claims[i], &y = b.claims[i];
    bool same = x.text == y.text && x.verdict == y.verdict && x.kept == y.kept && x.cites.size() == y.cites.size();
    for (size_t k = 0; same && k < x.cites.size(); ++k) {
      same = x.cites[k].source == y.cites[k].source && x.cites[k].quote == y.cites[k].quote;
    }
    if (!same) return "claim " + x.id + " ('" + x.text.substr(0, 80) + "', " + x.verdict + ") vs ('" + y.text.substr(0, 80) + "', " + y.verdict + ")";
  }
  if (a.sources.size() != b.sources.size()) {
    return "sources " + std::to_string(a.sources.size()) + " vs " + std::to_string(b.sources.size());
  }
  for (size_t i = 0; i < a.sources.size(); ++i) {
    const AnswerSource &x = a.sources[i], &y = b.sources[i];
    if (x.doc_id != y.doc_id || x.text != y.text || x.cited != y.cited) {
      return "source " + x.id + " " + x.doc_id + " vs " + y.doc_id;
    }
  }
  return "";
}

std::string QaReportToJson(const QaEvaluationReport& r, int indent) {
  nlohmann::json j = {{"dataset", r.dataset},
                      {"questions", r.questions},
                      {"gold_in_top5", r.gold_in_top5},
                      {"supporting_recall", r.supporting_recall},
                      {"supporting_all", r.supporting_all},
                      {"answer_containment", r.answer_containment},
                      {"em", r.em},
                      {"f1", r.f1},
                      {"kept_claims", r.kept_claims},
                      {"multi_hop_questions", r.multi_hop_questions},
                      {"citation_integrity", r.citation_integrity},
                      {"foreign_citations", r.foreign_citations},
                      {"outcomes", r.outcomes},
                      {"latency_ms", {{"p50", r.latency.p50_ms}, {"p95", r.latency.p95_ms}, {"p99", r.latency.p99_ms}}}};
  if (r.cluster) {
    const QaClusterReport& c = *r.cluster;
    j["cluster"] = {{"shards", c.shards},
                    {"compared", c.compared},
                    {"identical", c.identical},
                    {"different", c.different},
                    {"first_difference", c.first_difference},
                    {"gold_in_top5", c.gold_in_top5},
                    {"supporting_all", c.supporting_all},
                    {"answer_containment", c.answer_containment},
                    {"f1", c.f1},
                    {"citation_integrity", c.citation_integrity},
                    {"latency_ms", {{"p50", c.latency.p50_ms}, {"p95", c.latency.p95_ms}, {"p99", c.latency.p99_ms}}}};
  }
  return j.dump(indent);
}

std::string FormatQaReport(const QaEvaluationReport& r) {
  char buf[1024];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "questions %zu | gold-in-top-5 %.4f (%zu with a gold paragraph) | supporting recall %.4f, both %.4f "
                "(%zu with supporting paragraphs)\nanswer containment %.4f | EM %.4f | F1 %.4f (%zu with answers) | "
                "citation integrity %.4f over %zu kept claims, %zu foreign citations\nlatency p50 %.2f ms, p95 %.2f "
                "ms, p99 %.2f ms\noutcomes:",
                r.questions, r.gold_in_top5, r.with_gold_paragraph, r.supporting_recall, r.supporting_all,
                r.with_supporting, r.answer_containment, r.em, r.f1, r.with_answers, r.citation_integrity,
                r.kept_claims, r.foreign_citations, r.latency.p50_ms, r.latency.p95_ms, r.latency.p99_ms);
  out = buf;
  for (const auto& [k, n] : r.outcomes) out += " " + k + "=" + std::to_string(n);
  out += "; hop loop ran for " + std::to_string(r.multi_hop_questions) + " question(s)";
  if (r.cluster) {
    const QaClusterReport& c = *r.cluster;
    std::snprintf(buf, sizeof buf,
                  "\ncluster of %u shards: %zu of %zu answers identical to one store's, %zu different; gold-in-top-5 "
                  "%.4f | supporting both %.4f | answer containment %.4f | F1 %.4f | citation integrity %.4f; "
                  "latency p50 %.2f ms, p95 %.2f ms",
                  c.shards, c.identical, c.compared, c.different, c.gold_in_top5, c.supporting_all,
                  c.answer_containment, c.f1, c.citation_integrity, c.latency.p50_ms, c.latency.p95_ms);
    out += buf;
    if (!c.first_difference.empty()) out += "\nfirst difference: " + c.first_difference;
  }
  return out + "\n";
}

}  // namespace attest
