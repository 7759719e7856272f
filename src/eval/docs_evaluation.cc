#include "eval/docs_evaluation.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "attest/answer.h"
#include "common/file_util.h"

namespace attest {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

double MillisecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string Dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// "git/defaults_qa" for .../docs-qa/git/defaults_qa.jsonl.
std::string SetName(const fs::path& file) {
  const fs::path abs = file.lexically_normal();
  const std::string parent = abs.parent_path().filename().string();
  return parent.empty() ? abs.stem().string() : parent + "/" + abs.stem().string();
}

// What one set accumulates while its questions run.
struct SetRun {
  DocsSetReport report;
  std::vector<double> latencies;
  double at1 = 0, at3 = 0, rr = 0, correct = 0, any = 0;
};

// Whether the store holds a document, remembered per id.
class DocumentPresence {
 public:
  explicit DocumentPresence(const Engine& engine) : engine_(engine) {}
  Result<bool> Holds(const std::string& id) {
    auto it = known_.find(id);
    if (it != known_.end()) return it->second;
    Result<DocumentInfo> d = engine_.GetDocument(SearchFilter{}, id);
    if (!d.ok() && d.status().code() != StatusCode::kNotFound) return d.status().WithContext("document " + id);
    return known_[id] = d.ok();
  }

 private:
  const Engine& engine_;
  std::map<std::string, bool> known_;
};

json BaseDetail(const SetRun& set, const DocsQuestion& q, double ms) {
  return {{"set", set.report.name}, {"id", q.id},           {"task", DocsTaskName(q.task)},
          {"query", q.query},       {"relevant", q.relevant}, {"latency_ms", ms}};
}

Status RunKnownItem(Engine& engine, const DocsQuestion& q, SetRun* set, json* detail) {
  SearchOptions so;  // `attest search`'s defaults: k 10, documents collapsed, mode auto
  so.query = q.query;
  so.with_snippets = false;  // snippets do not change the ranking
  const auto t0 = std::chrono::steady_clock::now();
  Result<SearchResult> r = engine.Search(so);
  const double ms = MillisecondsSince(t0);
  set->latencies.push_back(ms);
  *detail = BaseDetail(*set, q, ms);
  std::vector<SearchHit> hits;
  if (!r.ok()) {
    if (r.status().code() != StatusCode::kInvalidArgument) return r.status().WithContext("question " + q.id);
    ++set->report.outcomes["error:" + std::string(StatusCodeName(r.status().code()))];
    (*detail)["error"] = r.status().ToString();
  } else {
    ++set->report.outcomes[r->hits.empty() ? "no_results" : "results"];
    (*detail)["mode"] = SearchModeName(r->mode);
    hits = std::move(r->hits);
  }
  const KnownItemScore s = ScoreKnownItem(q, hits);
  set->at1 += s.rank == 1;
  set->at3 += s.rank >= 1 && s.rank <= 3;
  set->rr += s.reciprocal_rank;
  (*detail)["ranked"] = s.ranked;
  (*detail)["rank"] = s.rank;
  (*detail)["success@1"] = s.rank == 1;
  std::string reason = s.rank == 0 ? "no relevant document in the top 10"
                                   : "first relevant document at rank " + std::to_string(s.rank);
  if (s.rank != 1 && !s.ranked.empty()) reason += " (first: " + s.ranked.front() + ")";
  (*detail)["reason"] = reason;
  return Status::Ok();
}

json ClaimsDetail(const AnswerResult& a, const AnswerScore& score) {
  std::map<std::string, std::string> doc_of;
  for (const AnswerSource& s : a.sources) doc_of[s.id] = s.doc_id;
  json claims = json::array();
  size_t scored = 0;  // index into score.citations (kept claims' citations, in order)
  for (const AnswerClaim& c : a.claims) {
    json cites = json::array();
    for (const AnswerCitation& cite : c.cites) {
      json one = {{"source", cite.source}, {"doc_id", doc_of.count(cite.source) ? doc_of[cite.source] : ""},
                  {"quote", cite.quote}};
      if (c.kept && scored < score.citations.size()) {
        one["correct"] = score.citations[scored].correct;
        one["reason"] = score.citations[scored].reason;
        ++scored;
      }
      cites.push_back(std::move(one));
    }
    claims.push_back({{"id", c.id},         {"kept", c.kept}, {"verdict", c.verdict}, {"verifier_reason", c.reason},
                      {"text", c.text},     {"cites", std::move(cites)}});
  }
  return claims;
}

Status RunAsk(Engine& engine, const DocsQuestion& q, const std::string& today, SetRun* set, json* detail) {
  AskOptions ao;
  ao.question = q.query;
  ao.today = today;
  ao.bulk = true;  // an evaluation: batch traffic
  const auto t0 = std::chrono::steady_clock::now();
  Result<AnswerResult> r = engine.Ask(ao);
  const double ms = MillisecondsSince(t0);
  set->latencies.push_back(ms);
  *detail = BaseDetail(*set, q, ms);
  (*detail)["subject"] = q.subject;
  if (!r.ok()) {
    // A question the planner refuses costs quality here, as it should in the product: scored wrong.
    if (r.status().code() != StatusCode::kInvalidArgument) return r.status().WithContext("question " + q.id);
    const std::string outcome = "error:" + std::string(StatusCodeName(r.status().code()));
    ++set->report.outcomes[outcome];
    (*detail)["outcome"] = outcome;
    (*detail)["correct"] = false;
    (*detail)["any_claim"] = false;
    (*detail)["reason"] = "ask failed: " + r.status().ToString();
    return Status::Ok();
  }
  const AnswerResult& a = *r;
  const std::string outcome = a.outcome == AnswerOutcome::kFallback ? "fallback:" + a.fallback_reason
                                                                   : std::string(AnswerOutcomeName(a.outcome));
  ++set->report.outcomes[outcome];
  ATTEST_ASSIGN_OR_RETURN(AnswerScore score, ScoreAnswer(q, a));
  set->correct += score.correct;
  set->any += score.any_claim;
  set->report.kept_claims += score.kept_claims;
  (*detail)["outcome"] = AnswerOutcomeName(a.outcome);
  (*detail)["fallback_reason"] = a.fallback_reason;
  (*detail)["correct"] = score.correct;
  (*detail)["any_claim"] = score.any_claim;
  (*detail)["reason"] = score.reason;
  (*detail)["claims"] = ClaimsDetail(a, score);
  return Status::Ok();
}

Status RunSet(Engine& engine, const DocsEvaluationArgs& args, const std::vector<DocsQuestion>& questions,
              DocumentPresence* presence, SetRun* set) {
  size_t present_rows = 0;
  for (const DocsQuestion& q : questions) {
    bool any_present = false;
    for (const std::string& id : q.relevant) {
      ATTEST_ASSIGN_OR_RETURN(bool holds, presence->Holds(id));
      any_present |= holds;
    }
    present_rows += any_present;
    json detail;
    Status st = q.task == DocsTask::kKnownItem ? RunKnownItem(engine, q, set, &detail)
                                               : RunAsk(engine, q, args.today, set, &detail);
    if (!st.ok()) return st.WithContext(set->report.file);
    if (!any_present) detail["relevant_missing"] = true;
    if (args.on_detail) args.on_detail(Dump(detail, -1));
  }
  DocsSetReport& r = set->report;
  r.questions = questions.size();
  r.missing_relevant = questions.size() - present_rows;
  if (present_rows == 0) {
    return Status::InvalidArgument("none of the relevant documents of " + r.name + " (" + r.file +
                                   ") is in the store: is the corpus the folder the set was made from?");
  }
  const double n = static_cast<double>(questions.size());
  r.success_at_1 = set->at1 / n;
  r.success_at_3 = set->at3 / n;
  r.mrr_at_10 = set->rr / n;
  r.correct = set->correct / n;
  r.any_claim = set->any / n;
  r.latency = SummarizeLatencies(set->latencies);
  return Status::Ok();
}

}  // namespace

Result<DocsEvaluationReport> RunDocsEvaluation(const DocsEvaluationArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  if (args.question_files.empty()) return Status::InvalidArgument("no question file given");
  std::vector<std::vector<DocsQuestion>> loaded;
  for (const std::string& f : args.question_files) {
    ATTEST_ASSIGN_OR_RETURN(std::vector<DocsQuestion> qs, LoadDocsQuestions(f));
    loaded.push_back(std::move(qs));
  }
  DocsEvaluationReport report;
  EngineOptions eo = args.engine;
  eo.data_dir = args.data_dir;
  std::optional<ScopedTempDir> temp;
  if (eo.data_dir.empty()) {
    if (args.corpus_dir.empty()) {
      return Status::InvalidArgument("a documentation folder to ingest is needed when no store is given");
    }
    temp.emplace("attest-docs");
    eo.data_dir = temp->path().string();
  } else {
    report.data_dir = eo.data_dir;
  }
  if (!args.corpus_dir.empty() && !fs::is_directory(args.corpus_dir)) {
    return Status::NotFound("documentation folder " + args.corpus_dir + " does not exist");
  }
  eo.read_only = args.corpus_dir.empty();
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(eo));
  if (!args.corpus_dir.empty()) {
    report.corpus = fs::path(args.corpus_dir).lexically_normal().string();
    IngestOptions io;  // as `attest ingest DIR`: ids are paths relative to DIR
    io.paths = {args.corpus_dir};
    ATTEST_ASSIGN_OR_RETURN(report.ingest, engine->Ingest(io));
    report.ingested = true;
  }
  ATTEST_ASSIGN_OR_RETURN(EngineStats stats, engine->Stats());
  report.documents = stats.documents;
  report.chunks = stats.chunks;
  report.embedder = stats.embedder;
  DocumentPresence presence(*engine);
  for (size_t i = 0; i < loaded.size(); ++i) {
    SetRun set;
    set.report.file = args.question_files[i];
    set.report.name = SetName(args.question_files[i]);
    set.report.task = loaded[i].front().task;
    ATTEST_RETURN_IF_ERROR(RunSet(*engine, args, loaded[i], &presence, &set));
    report.sets.push_back(std::move(set.report));
  }
  report.seconds = MillisecondsSince(start) / 1000.0;
  return report;
}

std::string DocsReportToJson(const DocsEvaluationReport& r, int indent) {
  json sets = json::array();
  for (const DocsSetReport& s : r.sets) {
    json j = {{"set", s.name},
              {"file", s.file},
              {"task", DocsTaskName(s.task)},
              {"questions", s.questions},
              {"missing_relevant", s.missing_relevant},
              {"outcomes", s.outcomes},
              {"latency_ms", {{"p50", s.latency.p50_ms}, {"p95", s.latency.p95_ms}, {"p99", s.latency.p99_ms}}}};
    if (s.task == DocsTask::kKnownItem) {
      j["success@1"] = s.success_at_1;
      j["success@3"] = s.success_at_3;
      j["mrr@10"] = s.mrr_at_10;
    } else {
      j["correct"] = s.correct;
      j["kept_claims"] = s.kept_claims;
      if (s.task == DocsTask::kOptions) j["any_claim"] = s.any_claim;
    }
    sets.push_back(std::move(j));
  }
  json j = {{"corpus", r.corpus},       {"data_dir", r.data_dir},     {"ingested", r.ingested},
            {"documents", r.documents}, {"chunks", r.chunks},         {"ingest_seconds", r.ingest.seconds},
            {"embedder", r.embedder},   {"seconds", r.seconds},       {"sets", std::move(sets)}};
  return Dump(j, indent);
}

std::string FormatDocsReport(const DocsEvaluationReport& r) {
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf, "%-22s %-12s %5s %9s %9s %7s %8s %9s %8s %8s\n", "set", "task", "rows", "success@1",
                "success@3", "MRR@10", "correct", "any-claim", "p50 ms", "p95 ms");
  out += buf;
  auto cell = [](bool shown, double v) {
    char c[32];
    if (!shown) return std::string("-");
    std::snprintf(c, sizeof c, "%.4f", v);
    return std::string(c);
  };
  for (const DocsSetReport& s : r.sets) {
    const bool ki = s.task == DocsTask::kKnownItem;
    std::snprintf(buf, sizeof buf, "%-22s %-12s %5zu %9s %9s %7s %8s %9s %8.2f %8.2f\n", s.name.c_str(),
                  DocsTaskName(s.task), s.questions, cell(ki, s.success_at_1).c_str(),
                  cell(ki, s.success_at_3).c_str(), cell(ki, s.mrr_at_10).c_str(), cell(!ki, s.correct).c_str(),
                  cell(s.task == DocsTask::kOptions, s.any_claim).c_str(), s.latency.p50_ms, s.latency.p95_ms);
    out += buf;
  }
  for (const DocsSetReport& s : r.sets) {
    out += "outcomes " + s.name + ":";
    for (const auto& [k, n] : s.outcomes) out += " " + k + "=" + std::to_string(n);
    if (s.missing_relevant) out += " (" + std::to_string(s.missing_relevant) + " row(s) whose relevant document the store lacks)";
    out += "\n";
  }
  return out;
}

}  // namespace attest
