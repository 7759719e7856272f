// `attest serve --rerank-batch-*`: reranker micro-batching across concurrent answers
// (docs/rerank.md, "Batching across requests") and its metrics.
#include <cctype>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "service/metrics.h"

namespace attest::cli {

void AddRerankBatchFlags(CLI::App& serve, RerankBatchArgs& a) {
  serve.add_option("--rerank-batch-pairs", a.pairs,
                   "pool the rerank pairs of concurrent answers into calls of at most this many pairs to TEI's "
                   "/predict (needs --rerank-api tei; TEI's --max-client-batch-size at least this); 0 = off")
      ->check(CLI::Range(0u, 1024u))
      ->capture_default_str();
  serve.add_option("--rerank-batch-window-ms", a.window_ms,
                   "the longest an answer's pairs wait for company before their batch is sent")
      ->check(CLI::Range(0u, 10000u))
      ->capture_default_str();
  serve.add_option("--rerank-batch-deadline-fraction", a.deadline_fraction,
                   "an answer waits at most this fraction of its time left before the deadline")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  serve.add_option("--rerank-batch-max-calls", a.max_calls, "rerank calls in flight at once when batching")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
}

Status ApplyRerankBatch(const RerankBatchArgs& a, service::Registry& metrics, EngineOptions* eo) {
  if (a.pairs == 0) return Status::Ok();
  if (eo->rerank.base_url.empty()) return Status::InvalidArgument("--rerank-batch-pairs needs --rerank-url");
  std::string api = eo->rerank.api;
  for (char& c : api) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (api != "tei") {
    return Status::InvalidArgument("--rerank-batch-pairs needs --rerank-api tei (TEI's /predict scores pairs of "
                                   "different questions in one call)");
  }
  eo->rerank.batch_pairs = a.pairs;
  eo->rerank.batch_window_ms = a.window_ms;
  eo->rerank.batch_deadline_fraction = a.deadline_fraction;
  eo->rerank.batch_max_calls = a.max_calls;
  std::vector<double> sizes;
  for (double b = 1; b <= 1024; b *= 2) sizes.push_back(b);
  service::Counter* ok_calls = metrics.GetCounter("attest_rerank_batch_calls_total", "Batched rerank calls",
                                                  {{"result", "ok"}});
  service::Counter* failed_calls = metrics.GetCounter("attest_rerank_batch_calls_total", "Batched rerank calls",
                                                      {{"result", "error"}});
  service::Counter* pairs = metrics.GetCounter("attest_rerank_batch_pairs_total", "Pairs sent in batched rerank calls");
  service::Histogram* size = metrics.GetHistogram("attest_rerank_batch_size", "Pairs per batched rerank call", {},
                                                  sizes);
  service::Histogram* call_seconds =
      metrics.GetHistogram("attest_rerank_batch_call_seconds", "Duration of batched rerank calls");
  service::Histogram* wait_interactive = metrics.GetHistogram(
      "attest_rerank_batch_wait_seconds", "Wait added by batching, per answer (arrival to last pair sent)",
      {{"queue", "interactive"}});
  service::Histogram* wait_bulk = metrics.GetHistogram(
      "attest_rerank_batch_wait_seconds", "Wait added by batching, per answer (arrival to last pair sent)",
      {{"queue", "bulk"}});
  eo->rerank.batch_observer = [=](const RerankBatchEvent& e) {
    if (e.kind == RerankBatchEvent::Kind::kCall) {
      (e.ok ? ok_calls : failed_calls)->Add();
      pairs->Add(double(e.pairs));
      size->Observe(double(e.pairs));
      call_seconds->Observe(e.seconds);
    } else {
      (e.bulk ? wait_bulk : wait_interactive)->Observe(e.seconds);
    }
  };
  return Status::Ok();
}

}  // namespace attest::cli
