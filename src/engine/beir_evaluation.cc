#include "engine/beir_evaluation.h"

#include <chrono>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "eval/beir.h"

namespace attest {
namespace {

// A temporary store directory removed on scope exit.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("attest-eval-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

Result<EvaluationReport> RunBeirEvaluation(const EvaluationArgs& args) {
  namespace fs = std::filesystem;
  fs::path dir(args.beir_dir);
  if (!fs::is_directory(dir)) return Status::NotFound("BEIR folder " + dir.string() + " does not exist");
  fs::path corpus = BeirCorpusPath(dir);
  if (!fs::is_regular_file(corpus)) return Status::NotFound(corpus.string() + " does not exist");
  ATTEST_ASSIGN_OR_RETURN(BeirSplit split, LoadBeirSplit(dir, args.split));

  std::optional<TempDir> temp;
  EngineOptions eo;
  if (args.data_dir.empty()) {
    temp.emplace();
    eo.data_dir = temp->path().string();
  } else {
    eo.data_dir = args.data_dir;
  }
  eo.threads = args.threads;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(eo));

  EvaluationReport report;
  report.dataset = dir.lexically_normal().string();
  IngestOptions io;
  io.paths = {corpus.string()};
  io.batch_documents = 100000;
  io.on_progress = args.on_progress;
  ATTEST_ASSIGN_OR_RETURN(report.ingest, engine->Ingest(io));

  EvalRun run;
  std::vector<double> latencies;
  latencies.reserve(split.queries.size());
  SearchOptions so;
  so.k = args.k;
  so.with_snippets = false;
  for (const BeirQuery& q : split.queries) {
    so.query = q.text;
    auto t0 = std::chrono::steady_clock::now();
    Result<SearchResult> r = engine->Search(so);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::vector<std::string>& ranked = run[q.id];
    if (!r.ok()) {
      // A query that analyzes to nothing (all stopwords) retrieves nothing; anything else is an error.
      if (r.status().code() != StatusCode::kInvalidArgument) return r.status().WithContext("query " + q.id);
      latencies.push_back(ms);
      continue;
    }
    latencies.push_back(ms);
    for (const SearchHit& h : r->hits) ranked.push_back(h.doc_id);
  }
  EvaluateArgs ea;
  ea.run = &run;
  ea.qrels = &split.qrels;
  ea.mode = "bm25";
  ea.latencies_ms = std::move(latencies);
  report.summary = Evaluate(ea);
  return report;
}

}  // namespace attest
