// `attest eval`: ingest a BEIR folder's corpus into a store, run the judged queries of one split
// through Engine::Search (documents collapsed from chunks), and score the run (src/eval/metrics.h).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "attest/status.h"
#include "eval/metrics.h"
#include "eval/shard_equivalence.h"

namespace attest {

struct EvaluationArgs {
  std::string beir_dir;        // folder with corpus.jsonl, queries.jsonl, qrels/<split>.tsv
  std::string split = "test";
  std::string data_dir;        // store to ingest into; empty = a fresh temporary directory, removed after
  size_t k = 100;              // documents retrieved per query
  unsigned threads = 0;
  std::function<void(uint64_t, uint64_t)> on_progress;
  // Modes to run, each scored separately (the same metrics for each).
  std::vector<SearchMode> modes = {SearchMode::kBm25};
  FusionOptions fusion;
  size_t candidates = 0;
  std::array<float, 4> field_weights = {SearchOptions{}.title_weight, SearchOptions{}.section_weight,
                                        SearchOptions{}.body_weight, SearchOptions{}.term_weight};
  EmbedderOptions embedder;
  VectorIndexType vector_index = VectorIndexType::kHnsw;
  // > 0: also split the corpus over this many shard stores and compare the cluster's BM25 search
  // with the one store's, query by query (eval/shard_equivalence.h).
  uint32_t shards = 0;
};

struct EvaluationReport {
  std::string dataset;
  std::vector<EvalSummary> summaries;   // one per mode that could run, in the order asked
  std::vector<std::string> skipped;     // modes that could not run, with the reason
  IngestReport ingest;
  EngineStats stats;                    // after ingestion (embedder, model and vector sizes)
  std::optional<ShardEquivalenceReport> shards;  // EvaluationArgs::shards > 0
};

Result<EvaluationReport> RunBeirEvaluation(const EvaluationArgs& args);

}  // namespace attest
