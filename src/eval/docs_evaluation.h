// `attest eval --task docs --corpus DIR --questions FILE[,FILE...]`: the docs-qa sets
// (../shared/datasets/docs-qa/README.md) over a documentation folder. The folder is ingested as
// `attest ingest DIR` does (document ids = paths relative to DIR) into a temporary store, or into
// / from the store of `data_dir`; then every row of every file runs through the engine:
//   known_item rows   Engine::Search with the options `attest search` uses by default (k = 10,
//                     documents collapsed, mode auto); success@1, success@3, MRR@10
//   defaults_qa rows  Engine::Ask (extractive writer); `correct`
//   options_qa rows   Engine::Ask; `correct` (the first kept claim) and `any_claim`
// scored by eval/docs_scoring.h. Each file is one set, reported with its outcome mix (answer /
// fallback:<reason> / calculation / greeting / error:<code> for Ask; results / no_results /
// error:<code> for Search) and the latency percentiles of its engine calls.
//
// A relevant document id that the store does not hold is counted (`missing_relevant`); a set none
// of whose relevant documents is in the store fails the run (the corpus is not the one the set was
// made from).
//
// Thread-safety: RunDocsEvaluation runs its questions one after the other on the calling thread.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "eval/docs_scoring.h"
#include "eval/metrics.h"

namespace attest {

struct DocsEvaluationArgs {
  std::string corpus_dir;                   // "" = no ingestion: data_dir already holds the corpus
  std::vector<std::string> question_files;  // one set each
  std::string data_dir;                     // "" = a temporary store, removed after (corpus_dir required)
  // The engine's other options (embedder, reranker, threads...); its data_dir and read_only are set
  // by the run (no corpus = the store is opened read-only).
  EngineOptions engine;
  std::string today = "2026-01-01";         // AskOptions::today: runs are reproducible
  // Called once per question, in run order, with one line of JSON: what was returned and why it
  // scored so. Keys: "set", "id", "task", "query", "relevant", "latency_ms", "reason", then
  //   known_item: "ranked" (doc ids, top 10), "rank" (0 = absent), "success@1", "mode";
  //   defaults_qa / options_qa: "subject", "outcome", "fallback_reason", "correct", "any_claim",
  //   "claims": [{"id", "kept", "verdict", "verifier_reason", "text", "cites": [{"source", "doc_id",
  //   "quote", and for kept claims "correct", "reason"}]}].
  std::function<void(const std::string& json_line)> on_detail;
};

struct DocsSetReport {
  std::string name;                  // "<parent folder>/<file stem>", e.g. "git/defaults_qa"
  std::string file;
  DocsTask task = DocsTask::kKnownItem;
  size_t questions = 0;
  size_t missing_relevant = 0;       // rows whose relevant documents are all absent from the store
  double success_at_1 = 0, success_at_3 = 0, mrr_at_10 = 0;  // known_item
  double correct = 0;                // defaults_qa: some kept claim; options_qa: the first kept claim
  double any_claim = 0;              // options_qa
  size_t kept_claims = 0;
  std::map<std::string, size_t> outcomes;
  LatencySummary latency;
};

struct DocsEvaluationReport {
  std::string corpus;                // the folder ingested ("" when the store was used as it is)
  std::string data_dir;              // "" = temporary
  bool ingested = false;
  IngestReport ingest;
  uint64_t documents = 0, chunks = 0;  // what the store holds after ingestion
  std::string embedder;              // the store's active embedder after ingestion ("" = BM25 only)
  std::vector<DocsSetReport> sets;   // in the order of question_files
  double seconds = 0;                // wall time of the whole run, ingestion included
};

Result<DocsEvaluationReport> RunDocsEvaluation(const DocsEvaluationArgs& args);

// {"corpus", "data_dir", "ingested", "documents", "chunks", "ingest_seconds", "embedder", "seconds",
//  "sets": [{"set", "file", "task", "questions", "missing_relevant", "outcomes", "latency_ms": {"p50",
//  "p95", "p99"}, and per task: "success@1", "success@3", "mrr@10" (known_item); "correct",
//  "kept_claims" (defaults_qa); "correct", "any_claim", "kept_claims" (options_qa)}]}.
std::string DocsReportToJson(const DocsEvaluationReport& report, int indent = 2);
// A table, one row per set, then each set's outcome mix.
std::string FormatDocsReport(const DocsEvaluationReport& report);

}  // namespace attest
