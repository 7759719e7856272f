#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

double Discount(size_t rank) { return 1.0 / std::log2(static_cast<double>(rank) + 1.0); }

int Rel(const std::map<std::string, int>& judged, const std::string& id) {
  auto it = judged.find(id);
  return it == judged.end() ? 0 : it->second;
}

nlohmann::json MetricsJson(const QueryMetrics& m) {
  return {{"ndcg@10", m.ndcg_at_10}, {"recall@100", m.recall_at_100}, {"mrr@10", m.mrr_at_10}, {"p@10", m.p_at_10}};
}

}  // namespace

QueryMetrics ScoreQuery(const std::vector<std::string>& ranked, const std::map<std::string, int>& judged) {
  QueryMetrics m;
  // First occurrence of each id, up to the deepest cut-off we need.
  std::vector<const std::string*> list;
  std::unordered_set<std::string_view> seen;
  for (const std::string& id : ranked) {
    if (list.size() == 100) break;
    if (seen.insert(id).second) list.push_back(&id);
  }

  size_t num_relevant = 0;
  std::vector<int> ideal;
  for (const auto& [id, rel] : judged) {
    if (rel > 0) {
      ++num_relevant;
      ideal.push_back(rel);
    }
  }
  std::sort(ideal.begin(), ideal.end(), std::greater<>());

  double dcg = 0;
  size_t rel_in_10 = 0, rel_in_100 = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    int rel = Rel(judged, *list[i]);
    if (rel <= 0) continue;
    const size_t rank = i + 1;
    ++rel_in_100;
    if (rank <= 10) {
      dcg += rel * Discount(rank);
      ++rel_in_10;
      if (m.mrr_at_10 == 0) m.mrr_at_10 = 1.0 / static_cast<double>(rank);
    }
  }
  double idcg = 0;
  for (size_t i = 0; i < ideal.size() && i < 10; ++i) idcg += ideal[i] * Discount(i + 1);
  m.ndcg_at_10 = idcg > 0 ? dcg / idcg : 0;
  m.recall_at_100 = num_relevant > 0 ? static_cast<double>(rel_in_100) / static_cast<double>(num_relevant) : 0;
  m.p_at_10 = static_cast<double>(rel_in_10) / 10.0;
  return m;
}

double NearestRankPercentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
  rank = std::clamp<size_t>(rank, 1, samples.size());
  return samples[rank - 1];
}

LatencySummary SummarizeLatencies(const std::vector<double>& samples_ms) {
  LatencySummary s;
  s.samples = samples_ms.size();
  if (samples_ms.empty()) return s;
  s.p50_ms = NearestRankPercentile(samples_ms, 50);
  s.p95_ms = NearestRankPercentile(samples_ms, 95);
  s.p99_ms = NearestRankPercentile(samples_ms, 99);
  double sum = 0;
  for (double v : samples_ms) sum += v;
  s.mean_ms = sum / static_cast<double>(samples_ms.size());
  return s;
}

EvalSummary Evaluate(const EvaluateArgs& args) {
  EvalSummary out;
  out.mode = args.mode;
  out.latency = SummarizeLatencies(args.latencies_ms);
  if (args.qrels == nullptr) return out;
  static const std::vector<std::string> kEmpty;
  QueryMetrics sum;
  for (const auto& [qid, judged] : *args.qrels) {
    bool any_relevant = std::any_of(judged.begin(), judged.end(), [](const auto& kv) { return kv.second > 0; });
    if (!any_relevant) {
      ++out.queries_skipped;
      continue;
    }
    const std::vector<std::string>* ranked = &kEmpty;
    if (args.run != nullptr) {
      auto it = args.run->find(qid);
      if (it != args.run->end()) ranked = &it->second;
    }
    QueryMetrics m = ScoreQuery(*ranked, judged);
    sum.ndcg_at_10 += m.ndcg_at_10;
    sum.recall_at_100 += m.recall_at_100;
    sum.mrr_at_10 += m.mrr_at_10;
    sum.p_at_10 += m.p_at_10;
    ++out.queries;
    if (args.keep_per_query) out.per_query.emplace(qid, m);
  }
  if (out.queries > 0) {
    const double n = static_cast<double>(out.queries);
    out.mean = {sum.ndcg_at_10 / n, sum.recall_at_100 / n, sum.mrr_at_10 / n, sum.p_at_10 / n};
  }
  return out;
}

std::string EvalSummaryToJson(const EvalSummary& s, int indent) {
  nlohmann::json j = MetricsJson(s.mean);
  j["latency_ms"] = {{"p50", s.latency.p50_ms}, {"p95", s.latency.p95_ms}, {"p99", s.latency.p99_ms}};
  j["queries"] = s.queries;
  j["queries_skipped"] = s.queries_skipped;
  j["mode"] = s.mode;
  if (!s.per_query.empty()) {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [qid, m] : s.per_query) per[qid] = MetricsJson(m);
    j["per_query"] = std::move(per);
  }
  return j.dump(indent);
}

std::string FormatEvalTable(const std::vector<EvalSummary>& rows) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-16s %7s %8s %8s %8s %8s %8s %8s %8s\n", "mode", "queries", "nDCG@10", "R@100",
                "MRR@10", "P@10", "p50ms", "p95ms", "p99ms");
  out += buf;
  for (const EvalSummary& r : rows) {
    std::snprintf(buf, sizeof buf, "%-16s %7zu %8.4f %8.4f %8.4f %8.4f %8.3f %8.3f %8.3f\n", r.mode.c_str(), r.queries,
                  r.mean.ndcg_at_10, r.mean.recall_at_100, r.mean.mrr_at_10, r.mean.p_at_10, r.latency.p50_ms,
                  r.latency.p95_ms, r.latency.p99_ms);
    out += buf;
  }
  return out;
}

}  // namespace attest
