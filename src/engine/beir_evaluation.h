// `attest eval`: ingest a BEIR folder's corpus into a store, run the judged queries of one split
// through Engine::Search (documents collapsed from chunks), and score the run (src/eval/metrics.h).
#pragma once

#include <functional>
#include <string>

#include "attest/engine.h"
#include "attest/status.h"
#include "eval/metrics.h"

namespace attest {

struct EvaluationArgs {
  std::string beir_dir;        // folder with corpus.jsonl, queries.jsonl, qrels/<split>.tsv
  std::string split = "test";
  std::string data_dir;        // store to ingest into; empty = a fresh temporary directory, removed after
  size_t k = 100;              // documents retrieved per query
  unsigned threads = 0;
  std::function<void(uint64_t, uint64_t)> on_progress;
};

struct EvaluationReport {
  std::string dataset;
  EvalSummary summary;
  IngestReport ingest;
};

Result<EvaluationReport> RunBeirEvaluation(const EvaluationArgs& args);

}  // namespace attest
