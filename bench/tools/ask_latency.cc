// ask_latency: in-process latency of Engine::Ask (the whole answer pipeline with the extractive
// writer) beside Engine::Search (hybrid top-10 with snippets, what a search box would run) on the
// same store and questions, interleaved per question so machine noise hits both alike.
//
//   ask_latency --data DIR --queries FILE [--rounds 3] [--json OUT]
//
// FILE is a BEIR queries.jsonl or plain text, one question per line. Reports, per round, p50/p95
// of both and the ratio ask / search, then medians over rounds with their range. The bar for
// `attest ask` on SciFact: p95 <= 30 ms (process start excluded).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "attest/answer.h"
#include "attest/engine.h"
#include "common/latency_runs.h"


using attest::bench::LoadQuestions;
using attest::bench::Percentile;
using attest::bench::Spread;
using attest::bench::Summarize;

int main(int argc, char** argv) {
  std::string data, queries_path, json_out;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--data") {
      data = next();
    } else if (a == "--queries") {
      queries_path = next();
    } else if (a == "--rounds") {
      rounds = std::stoi(next());
    } else if (a == "--json") {
      json_out = next();
    } else {
      std::fprintf(stderr, "usage: ask_latency --data DIR --queries FILE [--rounds 3] [--json OUT]\n");
      return 2;
    }
  }
  std::vector<std::string> queries = LoadQuestions(queries_path);
  if (data.empty() || queries.empty() || rounds < 1) {
    std::fprintf(stderr, "ask_latency: need --data and a non-empty --queries file\n");
    return 2;
  }
  attest::EngineOptions eo;
  eo.data_dir = data;
  eo.read_only = true;
  auto engine = attest::Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "ask_latency: %s\n", engine.status().ToString().c_str());
    return 1;
  }
  std::vector<double> ask_p50, ask_p95, search_p50, search_p95, ratio;
  std::map<std::string, size_t> outcomes;
  for (int round = -1; round < rounds; ++round) {  // round -1 warms caches and is not reported
    std::vector<double> ask_ms, search_ms;
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      for (int j = 0; j < 2; ++j) {
        const bool ask = (j + qi + round) % 2 == 0;
        auto t0 = std::chrono::steady_clock::now();
        if (ask) {
          attest::AskOptions ao;
          ao.question = queries[qi];
          auto r = (*engine)->Ask(ao);
          if (round == 0 && r.ok()) {
            ++outcomes[r->outcome == attest::AnswerOutcome::kFallback ? "fallback:" + r->fallback_reason
                                                                      : attest::AnswerOutcomeName(r->outcome)];
          }
        } else {
          attest::SearchOptions so;
          so.query = queries[qi];
          so.k = 10;
          (void)(*engine)->Search(so);
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        (ask ? ask_ms : search_ms).push_back(ms);
      }
    }
    if (round < 0) continue;
    ask_p50.push_back(Percentile(ask_ms, 0.5));
    ask_p95.push_back(Percentile(ask_ms, 0.95));
    search_p50.push_back(Percentile(search_ms, 0.5));
    search_p95.push_back(Percentile(search_ms, 0.95));
    ratio.push_back(ask_p95.back() / search_p95.back());
  }
  Spread a50 = Summarize(ask_p50), a95 = Summarize(ask_p95), s50 = Summarize(search_p50), s95 = Summarize(search_p95),
         r = Summarize(ratio);
  std::printf("store %s: %zu questions x %d rounds (in-process, extractive writer)\n", data.c_str(), queries.size(),
              rounds);
  std::printf("ask     p50 %.2f ms [%.2f-%.2f]  p95 %.2f ms [%.2f-%.2f] (bar: p95 <= 30 ms)\n", a50.median, a50.lo,
              a50.hi, a95.median, a95.lo, a95.hi);
  std::printf("search  p50 %.2f ms [%.2f-%.2f]  p95 %.2f ms [%.2f-%.2f]\n", s50.median, s50.lo, s50.hi, s95.median,
              s95.lo, s95.hi);
  std::printf("ask p95 / search p95: %.2f [%.2f-%.2f]\noutcomes:", r.median, r.lo, r.hi);
  for (const auto& [k, n] : outcomes) std::printf(" %s=%zu", k.c_str(), n);
  std::printf("\n");
  if (!json_out.empty()) {
    nlohmann::json j = {{"ask", {{"p50_ms", a50.median}, {"p95_ms", a95.median}, {"p95_range", {a95.lo, a95.hi}}}},
                        {"search", {{"p50_ms", s50.median}, {"p95_ms", s95.median}}},
                        {"ask_over_search_p95", r.median},
                        {"outcomes", outcomes}};
    std::ofstream(json_out) << j.dump(2) << "\n";
  }
  return 0;
}
