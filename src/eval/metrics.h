// Retrieval quality metrics as BEIR reports them (computed there by pytrec_eval, i.e. trec_eval),
// plus latency percentiles and the JSON / plain-text reports of `attest eval` and the benchmarks.
//
// Definitions (per query; k is the cut-off; ranks start at 1):
//   nDCG@10    trec_eval "ndcg_cut_10": DCG = sum_{i<=10} gain(d_i) / log2(i + 1) with gain = rel
//              (linear, not 2^rel - 1); rel <= 0 gives gain 0. The ideal DCG sorts all judged
//              documents of the query by rel descending and cuts at 10. 0 when the ideal is 0.
//   Recall@100 |relevant retrieved in the top 100| / |relevant|, relevant = rel > 0.
//   MRR@10     1 / rank of the first relevant document within the top 10, else 0.
//   P@10       |relevant in the top 10| / 10 (divides by 10 even when fewer were retrieved, as
//              trec_eval does).
// A run is a ranked list per query. A document id repeated in a list counts only at its first
// occurrence; later copies are dropped before the cut (so they neither score nor take a rank).
// Unlike trec_eval, the list order is taken as given: ties in score are broken by the producer
// (Attest breaks them by ChunkId ascending); trec_eval would re-sort by score, then doc id.
//
// Averaging: the mean is over the queries of the qrels that have at least one relevant (rel > 0)
// judgment; other judged queries are skipped, as in BEIR. A judged query with no entry in the run
// counts as an empty ranking (all metrics 0), which equals pytrec_eval's result whenever every
// query was run (BEIR runs every query).
//
// Latency percentiles use the nearest-rank method: p-th percentile = the ceil(p/100 * n)-th
// smallest sample (1-based); no interpolation, so each reported value is an observed latency.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "eval/beir.h"

namespace attest {

// query-id -> ranked document ids (best first).
using EvalRun = std::map<std::string, std::vector<std::string>, std::less<>>;

struct QueryMetrics {
  double ndcg_at_10 = 0;
  double recall_at_100 = 0;
  double mrr_at_10 = 0;
  double p_at_10 = 0;
};

// Metrics of one ranked list against the judgments of its query (doc id -> rel).
QueryMetrics ScoreQuery(const std::vector<std::string>& ranked, const std::map<std::string, int>& judged);

struct LatencySummary {
  size_t samples = 0;
  double p50_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double mean_ms = 0;
};

// Nearest-rank percentile of `samples` (need not be sorted); 0 for an empty input.
// `p` is in (0, 100].
double NearestRankPercentile(std::vector<double> samples, double p);
LatencySummary SummarizeLatencies(const std::vector<double>& samples_ms);

struct EvalSummary {
  std::string mode;           // free label, e.g. "lexical" or "attest"
  size_t queries = 0;         // queries averaged over (judged, with >= 1 relevant document)
  size_t queries_skipped = 0; // judged queries without a relevant document
  QueryMetrics mean;
  LatencySummary latency;
  std::map<std::string, QueryMetrics, std::less<>> per_query;  // filled when requested
};

struct EvaluateArgs {
  const EvalRun* run = nullptr;
  const Qrels* qrels = nullptr;
  std::string mode;
  std::vector<double> latencies_ms;  // optional; one per executed query
  bool keep_per_query = false;
};

EvalSummary Evaluate(const EvaluateArgs& args);

// JSON object with exactly the keys "ndcg@10", "recall@100", "mrr@10", "p@10",
// "latency_ms": {"p50", "p95", "p99"}, plus "queries", "queries_skipped", "mode" and
// "per_query" (only when per-query metrics were kept). `indent` < 0 gives one line.
std::string EvalSummaryToJson(const EvalSummary& summary, int indent = 2);

// A plain-text table, one row per summary:
//   mode        queries  nDCG@10  R@100   MRR@10  P@10    p50ms  p95ms  p99ms
std::string FormatEvalTable(const std::vector<EvalSummary>& rows);

}  // namespace attest
