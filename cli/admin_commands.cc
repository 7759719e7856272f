// stats, delete and eval.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

#include "attest/engine.h"
#include "cli/commands.h"
#include "cli/terminal.h"
#include "eval/beir_evaluation.h"
#include "eval/docs_evaluation.h"
#include "eval/qa_evaluation.h"

namespace attest::cli {
namespace {

bool WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "attest: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

// `attest eval --task docs`: the docs-qa sets over a documentation folder (eval/docs_evaluation.h).
int RunDocsEval(const GlobalArgs& g, const EvalArgs& a, const EngineOptions& eo) {
  if (!a.dir.empty()) {
    std::fprintf(stderr, "attest: --task docs takes --corpus DIR and --questions FILE[,FILE...], not a folder argument\n");
    return kExitUsage;
  }
  DocsEvaluationArgs args;
  args.corpus_dir = a.corpus;
  args.question_files = SplitList(a.questions);
  args.engine = eo;
  args.data_dir = g.data_dir_given ? g.data_dir : a.index_dir;
  if (args.question_files.empty()) {
    std::fprintf(stderr, "attest: --task docs needs --questions FILE[,FILE...]\n");
    return kExitUsage;
  }
  if (args.corpus_dir.empty() && args.data_dir.empty()) {
    std::fprintf(stderr, "attest: --task docs needs --corpus DIR (or --data DIR, a store that holds it)\n");
    return kExitUsage;
  }
  std::ofstream details;
  if (!a.details_file.empty()) {
    details.open(a.details_file);
    if (!details) {
      std::fprintf(stderr, "attest: cannot write %s\n", a.details_file.c_str());
      return kExitFailure;
    }
    args.on_detail = [&details](const std::string& line) { details << line << "\n"; };
  }
  auto r = RunDocsEvaluation(args);
  if (!r.ok()) {
    std::fprintf(stderr, "attest: eval failed: %s\n", FailureText(r.status(), args.data_dir).c_str());
    return kExitFailure;
  }
  details.close();
  if (!a.details_file.empty() && !details) {
    std::fprintf(stderr, "attest: cannot write %s\n", a.details_file.c_str());
    return kExitFailure;
  }
  const size_t rejected = PrintIngestIssues(r->ingest);
  std::printf("corpus %s: %llu documents, %llu chunks", r->corpus.empty() ? r->data_dir.c_str() : r->corpus.c_str(),
              static_cast<unsigned long long>(r->documents), static_cast<unsigned long long>(r->chunks));
  if (r->ingested) std::printf(" (ingested in %.2f s)", r->ingest.seconds);
  std::printf("; vector leg %s; %.1f s in all", r->embedder.empty() ? "none (BM25 only)" : r->embedder.c_str(),
              r->seconds);
  if (rejected > 0) std::printf("; %zu input(s) rejected, named on stderr", rejected);
  std::printf("\n%s", FormatDocsReport(*r).c_str());
  if (!a.json_file.empty() && !WriteTextFile(a.json_file, DocsReportToJson(*r) + "\n")) return kExitFailure;
  return r->ingest.issues.empty() ? kExitOk : kExitPartial;
}

}  // namespace

int RunStats(const GlobalArgs& g, bool json) {
  EngineOptions eo;
  eo.data_dir = g.data_dir;
  eo.credentials = KeyFromEnvironment;
  eo.read_only = true;
  auto engine = Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  auto s = (*engine)->Stats();
  if (s.ok() && json) {
    nlohmann::json j = {{"snapshot_version", s->snapshot_version}, {"documents", s->documents},
                        {"chunks", s->chunks},                     {"segments", s->segments},
                        {"segment_bytes", s->segment_bytes},       {"catalog_bytes", s->catalog_bytes},
                        {"source_bytes", s->source_bytes},         {"embedder", s->embedder},
                        {"vector_chunks", s->vector_chunks},       {"vector_bytes", s->vector_bytes},
                        {"model_bytes", s->model_bytes},           {"vector_index", s->vector_index}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "attest: stats failed: %s\n", s.status().ToString().c_str());
    return kExitFailure;
  }
  std::printf("data directory  %s\n", g.data_dir.c_str());
  std::printf("snapshot        %llu\n", static_cast<unsigned long long>(s->snapshot_version));
  std::printf("documents       %llu\n", static_cast<unsigned long long>(s->documents));
  std::printf("chunks          %llu\n", static_cast<unsigned long long>(s->chunks));
  std::printf("segments        %llu (%s)\n", static_cast<unsigned long long>(s->segments),
              HumanBytes(s->segment_bytes).c_str());
  std::printf("catalog         %s\n", HumanBytes(s->catalog_bytes).c_str());
  std::printf("source text     %s\n", HumanBytes(s->source_bytes).c_str());
  if (s->embedder.empty()) {
    std::printf("vector leg      none yet (BM25 only)\n");
  } else {
    std::printf("vector leg      %s (%s index)\n", s->embedder.c_str(), s->vector_index.c_str());
    std::printf("vectors         %llu of %llu chunks (%s), model %s\n",
                static_cast<unsigned long long>(s->vector_chunks), static_cast<unsigned long long>(s->chunks),
                HumanBytes(s->vector_bytes).c_str(), HumanBytes(s->model_bytes).c_str());
  }
  return kExitOk;
}

int RunReembed(const GlobalArgs& g, bool json) {
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  if (eo->embedder.kind == EmbedderKind::kNone) {
    std::fprintf(stderr, "attest: reembed needs an embedder (--embedder corpus-lsa, corpus-fasttext-sif or openai)\n");
    return kExitUsage;
  }
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  auto r = (*engine)->Reembed();
  if (!r.ok()) {
    std::fprintf(stderr, "attest: reembed failed: %s\n", FailureText(r.status(), g.data_dir).c_str());
    return r.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (json) {
    nlohmann::json j = {{"embedder", r->embedder},         {"chunks", r->chunks},
                        {"embedded", r->embedded},         {"reused", r->reused},
                        {"train_seconds", r->train_seconds}, {"embed_seconds", r->embed_seconds},
                        {"model_bytes", r->model_bytes},   {"snapshot_version", r->snapshot_version},
                        {"tenants", r->tenants},           {"skipped_tenants", r->skipped_tenants}};
    std::printf("%s\n", j.dump(2).c_str());
    return r->skipped_tenants.empty() ? kExitOk : kExitPartial;
  }
  if (r->tenants.size() > 1) {
    std::printf("tenants         %zu re-embedded, each with a model of its own text\n", r->tenants.size());
  }
  for (const auto& t : r->skipped_tenants) {
    std::fprintf(stderr, "attest: tenant '%s' was not re-embedded (see the log above)\n", t.c_str());
  }
  std::printf("vector leg switched to %s at snapshot %llu: %llu chunks (%llu embedded, %llu reused); trained in "
              "%.2f s, embedded and indexed in %.2f s; model %s\n",
              r->embedder.c_str(), static_cast<unsigned long long>(r->snapshot_version),
              static_cast<unsigned long long>(r->chunks), static_cast<unsigned long long>(r->embedded),
              static_cast<unsigned long long>(r->reused), r->train_seconds, r->embed_seconds,
              HumanBytes(r->model_bytes).c_str());
  return kExitOk;
}

int RunMigrate(const GlobalArgs& g) {
  // A writer open upgrades what an older version wrote (catalog schema, segment format); the vector
  // leg then trains each tenant's model of its own text (docs/store_format.md, "Upgrades").
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  Status v = (*engine)->RefreshVectors();
  auto s = (*engine)->Stats();
  if (!s.ok()) {
    std::fprintf(stderr, "attest: %s\n", s.status().ToString().c_str());
    return kExitFailure;
  }
  std::printf("%s is up to date: %llu documents, %llu chunks in %llu segments; vector leg %s\n", g.data_dir.c_str(),
              static_cast<unsigned long long>(s->documents), static_cast<unsigned long long>(s->chunks),
              static_cast<unsigned long long>(s->segments), s->embedder.empty() ? "not trained yet" : s->embedder.c_str());
  if (!v.ok()) {
    std::fprintf(stderr, "attest: vectors not updated: %s\n", v.ToString().c_str());
    return kExitPartial;
  }
  return kExitOk;
}

int RunDelete(const GlobalArgs& g, const std::string& id, const std::string& tenant) {
  EngineOptions eo;
  eo.data_dir = g.data_dir;
  eo.credentials = KeyFromEnvironment;
  auto engine = Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  auto r = (*engine)->Delete(StoreTenant(tenant), id);
  if (!r.ok()) {
    std::fprintf(stderr, "attest: delete failed: %s\n", FailureText(r.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  std::printf("deleted %s (snapshot %llu)\n", id.c_str(), static_cast<unsigned long long>(*r));
  return kExitOk;
}

int RunEval(const GlobalArgs& g, const EvalArgs& a) {
  EvaluationArgs args;
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  if (a.task == "docs") return RunDocsEval(g, a, *eo);
  if (a.dir.empty()) {
    std::fprintf(stderr, "attest: eval needs a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)\n");
    return kExitUsage;
  }
  if (a.task == "qa") {
    QaEvaluationArgs qa;
    qa.beir_dir = a.dir;
    qa.split = a.split;
    qa.data_dir = a.index_dir;
    qa.threads = g.threads;
    qa.multi_hop = !a.no_multi_hop;
    if (a.research) qa.mode = AnswerMode::kResearch;
    qa.research.max_hops = a.max_hops;
    qa.research.max_ms = a.max_ms;
    qa.max_queries = a.max_queries;
    qa.min_answerability = a.min_answerability;
    qa.min_evidence_coverage = a.min_evidence_coverage;
    qa.per_question_path = a.per_question_file;
    qa.embedder = eo->embedder;
    qa.shards = a.shards;
    auto r = RunQaEvaluation(qa);
    if (!r.ok()) {
      std::fprintf(stderr, "attest: eval failed: %s\n", r.status().ToString().c_str());
      return kExitFailure;
    }
    const size_t rejected = PrintIngestIssues(r->ingest);
    std::printf("dataset %s, split %s (qa%s)", r->dataset.c_str(), a.split.c_str(), qa.multi_hop ? "" : ", multi-hop off");
    if (qa.mode == AnswerMode::kResearch) std::printf(" research mode, at most %u rounds", qa.research.max_hops);
    if (rejected > 0) std::printf("; %zu input(s) rejected, named on stderr", rejected);
    std::printf("\n%s", FormatQaReport(*r).c_str());
    if (!a.json_file.empty()) {
      std::ofstream out(a.json_file);
      out << QaReportToJson(*r) << "\n";
      if (!out) {
        std::fprintf(stderr, "attest: cannot write %s\n", a.json_file.c_str());
        return kExitFailure;
      }
    }
    return r->ingest.issues.empty() ? kExitOk : kExitPartial;
  }
  if (a.task != "retrieval") {
    std::fprintf(stderr, "attest: --task '%s' is unknown (retrieval, qa, docs)\n", a.task.c_str());
    return kExitUsage;
  }
  args.embedder = eo->embedder;
  args.vector_index = eo->vector_index;
  SearchOptions so;
  if (Status s = ApplyRetrievalArgs(a.retrieval, &so); !s.ok()) {
    std::fprintf(stderr, "attest: %s\n", s.message().c_str());
    return kExitUsage;
  }
  args.fusion = so.fusion;
  args.candidates = so.candidates;
  args.field_weights = {so.title_weight, so.section_weight, so.body_weight, so.term_weight};
  args.modes.clear();
  for (const std::string& m : SplitList(a.modes)) {
    auto mode = ParseSearchMode(m);
    if (!mode.ok()) {
      std::fprintf(stderr, "attest: %s\n", mode.status().message().c_str());
      return kExitUsage;
    }
    args.modes.push_back(*mode);
  }
  if (args.modes.empty()) {
    std::fprintf(stderr, "attest: --mode names no mode\n");
    return kExitUsage;
  }
  args.beir_dir = a.dir;
  args.split = a.split;
  args.data_dir = a.index_dir;
  args.k = a.k;
  args.threads = g.threads;
  args.shards = a.shards;
  ProgressBar bar("index");
  args.on_progress = [&](uint64_t done, uint64_t total) { bar.Update(done, total); };
  auto r = RunBeirEvaluation(args);
  bar.Finish();
  if (!r.ok()) {
    std::fprintf(stderr, "attest: eval failed: %s\n", r.status().ToString().c_str());
    return kExitFailure;
  }
  const IngestReport& ing = r->ingest;
  // Every rejected input is named, as `attest ingest` names them; the exit status is then 3.
  const size_t rejected = PrintIngestIssues(ing);
  std::printf("dataset %s, split %s: %llu documents, %llu chunks indexed in %.2f s", r->dataset.c_str(),
              a.split.c_str(), static_cast<unsigned long long>(ing.documents_seen),
              static_cast<unsigned long long>(ing.chunks), ing.seconds);
  if (rejected > 0) std::printf("; %zu input(s) rejected, named on stderr", rejected);
  std::printf("\n");
  if (!r->stats.embedder.empty()) {
    std::printf("vector leg: %s, model %s, vectors %s, %.2f s to train and embed\n", r->stats.embedder.c_str(),
                HumanBytes(r->stats.model_bytes).c_str(), HumanBytes(r->stats.vector_bytes).c_str(),
                ing.vector_seconds);
  }
  for (const auto& s : r->skipped) std::printf("skipped %s\n", s.c_str());
  std::printf("%s", FormatEvalTable(r->summaries).c_str());
  if (r->shards) {
    const ShardEquivalenceReport& sh = *r->shards;
    std::printf("%s", FormatEvalTable({sh.summary}).c_str());
    std::printf("shards %u (%llu..%llu documents each): %zu queries, %zu identical, %zu equal up to ties, %zu different; "
                "max |score difference| %.3g\n",
                sh.shards, static_cast<unsigned long long>(sh.documents_per_shard_min),
                static_cast<unsigned long long>(sh.documents_per_shard_max), sh.queries, sh.identical,
                sh.equal_up_to_ties, sh.different, sh.max_score_diff);
    if (!sh.first_difference.empty()) std::printf("first difference: %s\n", sh.first_difference.c_str());
  }
  if (!a.json_file.empty()) {
    std::ofstream out(a.json_file);
    // One mode: its summary, with the keys it always had. Several: {"runs": [summary, ...]}.
    if (r->summaries.size() == 1) {
      out << EvalSummaryToJson(r->summaries[0]) << "\n";
    } else {
      std::string runs = "{\"runs\": [";
      for (size_t i = 0; i < r->summaries.size(); ++i) {
        if (i) runs += ",\n";
        runs += EvalSummaryToJson(r->summaries[i]);
      }
      out << runs << "]}\n";
    }
    if (!out) {
      std::fprintf(stderr, "attest: cannot write %s\n", a.json_file.c_str());
      return kExitFailure;
    }
  }
  return ing.issues.empty() ? kExitOk : kExitPartial;
}

}  // namespace attest::cli
