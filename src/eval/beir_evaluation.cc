#include "eval/beir_evaluation.h"

#include "common/file_util.h"

#include <chrono>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "eval/beir.h"

namespace attest {
namespace {

// A temporary store directory removed on scope exit.

}  // namespace

Result<EvaluationReport> RunBeirEvaluation(const EvaluationArgs& args) {
  namespace fs = std::filesystem;
  fs::path dir(args.beir_dir);
  if (!fs::is_directory(dir)) return Status::NotFound("BEIR folder " + dir.string() + " does not exist");
  fs::path corpus = BeirCorpusPath(dir);
  if (!fs::is_regular_file(corpus)) return Status::NotFound(corpus.string() + " does not exist");
  ATTEST_ASSIGN_OR_RETURN(BeirSplit split, LoadBeirSplit(dir, args.split));

  std::optional<ScopedTempDir> temp;
  EngineOptions eo;
  if (args.data_dir.empty()) {
    temp.emplace("attest-eval");
    eo.data_dir = temp->path().string();
  } else {
    eo.data_dir = args.data_dir;
  }
  eo.threads = args.threads;
  eo.embedder = args.embedder;
  eo.vector_index = args.vector_index;
  bool needs_vectors = false;
  for (SearchMode m : args.modes) needs_vectors |= m != SearchMode::kBm25;
  if (!needs_vectors) eo.embedder.kind = EmbedderKind::kNone;  // no model to train for BM25 alone
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(eo));

  EvaluationReport report;
  report.dataset = dir.lexically_normal().string();
  IngestOptions io;
  io.paths = {corpus.string()};
  io.batch_documents = 100000;
  io.on_progress = args.on_progress;
  ATTEST_ASSIGN_OR_RETURN(report.ingest, engine->Ingest(io));

  ATTEST_ASSIGN_OR_RETURN(report.stats, engine->Stats());

  for (SearchMode mode : args.modes) {
    EvalRun run;
    std::vector<double> latencies;
    latencies.reserve(split.queries.size());
    SearchOptions so;
    so.k = args.k;
    so.with_snippets = false;
    so.mode = mode;
    so.fusion = args.fusion;
    so.candidates = args.candidates;
    so.title_weight = args.field_weights[0];
    so.section_weight = args.field_weights[1];
    so.body_weight = args.field_weights[2];
    so.term_weight = args.field_weights[3];
    Status failed;
    SearchMode ran = mode;
    for (const BeirQuery& q : split.queries) {
      so.query = q.text;
      auto t0 = std::chrono::steady_clock::now();
      Result<SearchResult> r = engine->Search(so);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::vector<std::string>& ranked = run[q.id];
      latencies.push_back(ms);
      if (!r.ok()) {
        // A query that analyzes to nothing (all stopwords) retrieves nothing in BM25 mode; a mode that
        // cannot run at all (no embedder) fails on its first query.
        if (r.status().code() != StatusCode::kInvalidArgument) return r.status().WithContext("query " + q.id);
        if (mode != SearchMode::kBm25 && r.status().message().find("embedder") != std::string::npos) {
          failed = r.status();
          break;
        }
        continue;
      }
      ran = r->mode;
      for (const SearchHit& h : r->hits) ranked.push_back(h.doc_id);
    }
    if (!failed.ok()) {
      report.skipped.push_back(std::string(SearchModeName(mode)) + ": " + failed.message());
      continue;
    }
    EvaluateArgs ea;
    ea.run = &run;
    ea.qrels = &split.qrels;
    ea.mode = mode == SearchMode::kAuto ? std::string("auto:") + SearchModeName(ran) : SearchModeName(mode);
    ea.latencies_ms = std::move(latencies);
    report.summaries.push_back(Evaluate(ea));
  }
  if (args.shards > 0) {
    ShardEquivalenceArgs sa;
    sa.single = engine.get();
    sa.corpus_path = corpus.string();
    sa.split = &split;
    sa.options.k = args.k;
    sa.options.with_snippets = false;
    sa.options.title_weight = args.field_weights[0];
    sa.options.section_weight = args.field_weights[1];
    sa.options.body_weight = args.field_weights[2];
    sa.options.term_weight = args.field_weights[3];
    sa.shards = args.shards;
    sa.threads = args.threads;
    ATTEST_ASSIGN_OR_RETURN(report.shards, CompareWithShards(sa));
  }
  return report;
}

}  // namespace attest
