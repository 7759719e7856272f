// Reranker micro-batching (issue 17, docs/rerank.md "Batching across requests"): rounds of N
// concurrent answers of K candidates each against the local rerank test server, once with one
// TEI /rerank call per answer (batching off, today's behaviour) and once through RerankBatcher and
// TEI's /predict. The server simulates a model: each call computes for call_ms + per_pair_us per
// pair, with at most `slots` calls computing at once (1 = one GPU; 0 = no limit). Prints calls,
// pairs per call, answer latency p50/p95/max per mode, the wait batching adds (arrival to last pair
// sent), and the added latency: batched minus unbatched latency at the same percentile, under the
// same load (negative: batching is faster).
//
//   rerank_batch_latency [--answers 8] [--candidates 40] [--rounds 40] [--window-ms 10]
//                        [--batch 64] [--call-ms 20] [--per-pair-us 200] [--slots 1] [--jitter-ms 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rerank/http_reranker.h"
#include "rerank/rerank_batcher.h"
#include "rerank/tei_pair_scorer.h"
#include "support/rerank_test_server.h"

namespace {

using attest::RerankBatchEvent;
using attest::testing_support::RerankTestServer;

struct Args {
  int answers = 8;
  int candidates = 40;
  int rounds = 40;
  int window_ms = 10;
  int batch = 64;
  int call_ms = 20;
  int per_pair_us = 200;
  int slots = 1;
  int jitter_ms = 5;
};

bool Parse(int argc, char** argv, Args* a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const int v = std::atoi(argv[i + 1]);
    const std::string k = argv[i];
    if (k == "--answers") a->answers = v;
    else if (k == "--candidates") a->candidates = v;
    else if (k == "--rounds") a->rounds = v;
    else if (k == "--window-ms") a->window_ms = v;
    else if (k == "--batch") a->batch = v;
    else if (k == "--call-ms") a->call_ms = v;
    else if (k == "--per-pair-us") a->per_pair_us = v;
    else if (k == "--slots") a->slots = v;
    else if (k == "--jitter-ms") a->jitter_ms = v;
    else return false;
  }
  return argc % 2 == 1;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * double(v.size() - 1) + 0.5));
  return v[i];
}

std::vector<std::string> Candidates(int answer, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back("passage " + std::to_string(i) + " about topic" + std::to_string((answer + i) % 7) +
                  " and some words to make it a realistic length for a cross encoder input");
  }
  return out;
}

// Runs the rounds; returns every answer's latency in ms.
std::vector<double> RunRounds(const attest::Reranker& reranker, const Args& a, uint32_t seed) {
  std::vector<double> latencies;
  std::mutex mu;
  std::mt19937 rng(seed);
  for (int round = 0; round < a.rounds; ++round) {
    std::vector<int> jitter;
    for (int i = 0; i < a.answers; ++i) jitter.push_back(a.jitter_ms > 0 ? int(rng() % (a.jitter_ms + 1)) : 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < a.answers; ++i) {
      threads.emplace_back([&, i] {
        const std::vector<std::string> c = Candidates(i, a.candidates);
        const std::string q = "question " + std::to_string(round) + " on topic" + std::to_string(i % 7);
        std::this_thread::sleep_for(std::chrono::milliseconds(jitter[i]));
        const auto t0 = std::chrono::steady_clock::now();
        auto scores = reranker.Score(q, c);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!scores.ok()) std::fprintf(stderr, "rerank failed: %s\n", scores.status().ToString().c_str());
        std::lock_guard<std::mutex> lock(mu);
        latencies.push_back(ms);
      });
    }
    for (std::thread& t : threads) t.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // rounds do not overlap
  }
  return latencies;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) {
    std::fprintf(stderr, "usage: see the header of bench/rerank/rerank_batch_latency.cc\n");
    return 2;
  }
  RerankTestServer server;
  server.set_max_client_batch(1024);
  server.set_model_delay_ms(a.call_ms, a.per_pair_us);
  server.set_model_slots(a.slots);

  attest::HttpRerankerOptions ro;
  ro.endpoint.base_url = server.base_url();
  ro.endpoint.model = "bench";
  ro.api = attest::RerankApi::kTei;
  ro.max_batch = 1024;
  auto unbatched = attest::HttpReranker::Create(ro);
  if (!unbatched.ok()) return 1;

  // A lone answer, unbatched: the latency batching is measured against.
  std::vector<double> lone;
  for (int i = 0; i < 10; ++i) {
    const std::vector<std::string> c = Candidates(i, a.candidates);
    const auto t0 = std::chrono::steady_clock::now();
    if (!(*unbatched)->Score("lone question on topic1", c).ok()) return 1;
    lone.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double lone_ms = Percentile(lone, 0.5);

  size_t before = server.rerank_requests().size();
  const std::vector<double> off = RunRounds(**unbatched, a, 1);
  const size_t off_calls = server.rerank_requests().size() - before;

  attest::TeiPairScorerOptions so;
  so.endpoint.base_url = server.base_url();
  so.endpoint.model = "bench";
  auto scorer = attest::TeiPairScorer::Create(so);
  if (!scorer.ok()) return 1;
  std::mutex mu;
  std::vector<double> waits, calls_ms;
  attest::RerankBatcherOptions bo;
  bo.max_pairs = static_cast<size_t>(a.batch);
  bo.window = std::chrono::milliseconds(a.window_ms);
  bo.observer = [&](const RerankBatchEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    (e.kind == RerankBatchEvent::Kind::kRequest ? waits : calls_ms).push_back(e.seconds * 1000.0);
  };
  auto batcher = attest::RerankBatcher::Create(std::move(scorer).value(), bo);
  if (!batcher.ok()) return 1;
  before = server.predict_batch_sizes().size();
  const std::vector<double> on = RunRounds(**batcher, a, 1);
  const std::vector<size_t> sizes = server.predict_batch_sizes();
  const size_t on_calls = sizes.size() - before;
  // One call, for the bar (added p95 <= window + one call): the p95 of the batched calls' durations.
  const double longest_call = Percentile(calls_ms, 0.95);
  const size_t answers = size_t(a.answers) * size_t(a.rounds);
  std::printf("workload: %d rounds x %d concurrent answers x %d candidates (jitter 0-%d ms); model %d ms + %d us/pair, "
              "%d slot(s)\n", a.rounds, a.answers, a.candidates, a.jitter_ms, a.call_ms, a.per_pair_us, a.slots);
  std::printf("lone unbatched answer: %.1f ms (median of 10)\n", lone_ms);
  std::printf("%-22s %8s %10s %9s %9s %9s\n", "mode", "calls", "pairs/call", "p50 ms", "p95 ms", "max ms");
  std::printf("%-22s %8zu %10.1f %9.1f %9.1f %9.1f\n", "off (/rerank)", off_calls,
              double(answers * a.candidates) / double(off_calls), Percentile(off, 0.5), Percentile(off, 0.95),
              Percentile(off, 1.0));
  char label[64];
  std::snprintf(label, sizeof(label), "on (%d pairs, %d ms)", a.batch, a.window_ms);
  std::printf("%-22s %8zu %10.1f %9.1f %9.1f %9.1f\n", label, on_calls,
              double(answers * a.candidates) / double(on_calls), Percentile(on, 0.5), Percentile(on, 0.95),
              Percentile(on, 1.0));
  std::printf("batched call duration (HTTP + model): p50 %.1f ms, p95 %.1f ms\n", Percentile(calls_ms, 0.5),
              longest_call);
  std::printf("batching wait (arrival to last pair sent): p50 %.1f ms, p95 %.1f ms, max %.1f ms\n",
              Percentile(waits, 0.5), Percentile(waits, 0.95), Percentile(waits, 1.0));
  const double added_p50 = Percentile(on, 0.5) - Percentile(off, 0.5);
  const double added_p95 = Percentile(on, 0.95) - Percentile(off, 0.95);
  std::printf("added latency (batched - unbatched, same load): p50 %+.1f ms, p95 %+.1f ms; bar: p95 <= window + "
              "one call (p95) = %.1f ms\n", added_p50, added_p95, a.window_ms + longest_call);
  std::printf("{\"answers\":%zu,\"off_calls\":%zu,\"on_calls\":%zu,\"off_p50_ms\":%.2f,\"off_p95_ms\":%.2f,"
              "\"on_p50_ms\":%.2f,\"on_p95_ms\":%.2f,\"wait_p95_ms\":%.2f,\"added_p50_ms\":%.2f,\"added_p95_ms\":%.2f}\n",
              answers, off_calls, on_calls, Percentile(off, 0.5), Percentile(off, 0.95), Percentile(on, 0.5),
              Percentile(on, 0.95), Percentile(waits, 0.95), added_p50, added_p95);
  return 0;
}
