// `attest eval DIR --task qa`: every query of a BEIR-layout folder through the whole answer
// pipeline (ingest the corpus into a temporary store, then Engine::Ask per query), scored where
// queries carry `metadata.answers` and `metadata.gold_paragraph` (SQuAD) or `metadata.supporting`
// (HotpotQA):
//   gold_in_top5          the gold paragraph is among the first 5 retrieved documents
//   supporting_recall     share of supporting paragraphs in the evidence pack (mean), and
//   supporting_all        share of questions with every supporting paragraph in the evidence
//   answer_containment    the delivered answer contains a gold answer (SQuAD normalisation)
//   em / f1               of the delivered answer text against the gold answers (official SQuAD
//                         normalisation and token F1); the answer is sentences, not a short span,
//                         so EM is near zero by construction
//   citation_integrity    share of kept claims whose every quote occurs verbatim in the passage it
//                         cites; `foreign_citations` counts citations of ids not in the pack (must be 0)
//   fallback rate by reason, latency percentiles of Ask.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "attest/answer.h"
#include "attest/engine.h"
#include "eval/metrics.h"

namespace attest {

struct QaEvaluationArgs {
  std::string beir_dir;
  std::string split = "test";
  std::string data_dir;        // "" = a temporary store
  unsigned threads = 0;
  bool multi_hop = true;
  AnswerMode mode = AnswerMode::kStandard;  // kResearch: every question in research mode
  ResearchLimits research;                  // its limits
  size_t max_queries = 0;      // 0 = all
  EmbedderOptions embedder;
  // When set, AskOptions::min_answerability for every question (the abstention threshold).
  std::optional<double> min_answerability;
  std::optional<double> min_evidence_coverage;  // AskOptions::min_evidence_coverage when set
  // When non-empty, one JSON line per question is written here: id, outcome, fallback reason,
  // the answerability score, whether the answer contains a gold answer, the kept claims' quotes
  // and the documents they cite (to draw the abstention trade-off curve, docs/answer.md).
  std::string per_question_path;
  // When > 0, the corpus is also split over this many shard stores (the change log's split, over
  // `vshards` virtual shards) and every question is asked of a cluster coordinator over them
  // (cluster/cluster_engine.h, in process) too; each answer is compared with the one store's
  // (docs/cluster.md, "Equivalence"). Both run BM25 only (no embedder).
  uint32_t shards = 0;
  uint32_t vshards = 64;
};

// The answers through a cluster compared with one store's, question by question: the same
// outcome, answer text, claims (text, verdict, quotes), sources (documents, text, cited) and
// ranked results (documents; scores to 1e-6). Chunk ids, snapshots and times are not compared.
struct QaClusterReport {
  uint32_t shards = 0;
  size_t compared = 0, identical = 0, different = 0;
  std::string first_difference;  // "<question id>: <what differs>"
  // The cluster's answers scored as the one store's are (QaEvaluationReport's fields).
  double gold_in_top5 = 0, supporting_all = 0, answer_containment = 0, f1 = 0, citation_integrity = 1.0;
  LatencySummary latency;        // of the cluster's answers
};

struct QaEvaluationReport {
  std::string dataset;
  size_t questions = 0;
  size_t with_gold_paragraph = 0, with_supporting = 0, with_answers = 0;
  double gold_in_top5 = 0;
  double supporting_recall = 0;
  double supporting_all = 0;
  double answer_containment = 0;
  double em = 0, f1 = 0;
  size_t multi_hop_questions = 0;  // questions whose answer ran the hop loop
  size_t kept_claims = 0;
  double citation_integrity = 1.0;
  size_t foreign_citations = 0;
  std::map<std::string, size_t> outcomes;   // answer / fallback:<reason> / calculation / greeting
  LatencySummary latency;
  IngestReport ingest;
  std::optional<QaClusterReport> cluster;  // with QaEvaluationArgs::shards
};

// "" when `cluster` is the same answer as `single` (QaClusterReport's fields), else what differs.
std::string AnswerDifference(const AnswerResult& single, const AnswerResult& cluster);

Result<QaEvaluationReport> RunQaEvaluation(const QaEvaluationArgs& args);
std::string QaReportToJson(const QaEvaluationReport& report, int indent = 2);
std::string FormatQaReport(const QaEvaluationReport& report);

// SQuAD v1.1's official normalisation (lower case, no punctuation, no articles a/an/the, single
// spaces) and its metrics.
std::string SquadNormalize(const std::string& text);
double SquadF1(const std::string& prediction, const std::string& gold);

}  // namespace attest
