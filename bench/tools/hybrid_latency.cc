// hybrid_latency: per-query latency of BM25, vector and hybrid search on the same store, measured
// side by side in one run (modes interleaved per query, so machine noise hits all of them alike).
//
//   hybrid_latency --data DIR --queries FILE [--k 10] [--rounds 5] [--json OUT]
//
// FILE is a BEIR queries.jsonl (one {"_id","text"} per line) or plain text (one query per line).
// The store must have an active embedder (ingest with the default corpus model, or reembed).
// Reports, per mode, the median over rounds of each round's p50 and p95 (with the range across
// rounds), and the ratio hybrid p95 / BM25 p95 of each round.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "common/latency_runs.h"

namespace {

using attest::SearchMode;

}  // namespace

using attest::bench::LoadQuestions;
using attest::bench::Percentile;
using attest::bench::Spread;
using attest::bench::Summarize;

int main(int argc, char** argv) {
  std::string data, queries_path, json_out;
  size_t k = 10;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--data") data = next();
    else if (a == "--queries") queries_path = next();
    else if (a == "--k") k = std::stoul(next());
    else if (a == "--rounds") rounds = std::stoi(next());
    else if (a == "--json") json_out = next();
    else {
      std::fprintf(stderr, "usage: hybrid_latency --data DIR --queries FILE [--k 10] [--rounds 5] [--json OUT]\n");
      return 2;
    }
  }
  std::vector<std::string> queries = LoadQuestions(queries_path);
  if (data.empty() || queries.empty() || rounds < 1) {
    std::fprintf(stderr, "hybrid_latency: need --data and a non-empty --queries file\n");
    return 2;
  }
  attest::EngineOptions eo;
  eo.data_dir = data;
  eo.read_only = true;
  auto engine = attest::Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "hybrid_latency: %s\n", engine.status().ToString().c_str());
    return 1;
  }
  const SearchMode modes[] = {SearchMode::kBm25, SearchMode::kVector, SearchMode::kHybrid};
  // Warm-up: load vector files, fill caches of the page cache and the query embedding cache alike
  // for every mode (the embedding cache then serves all rounds: this measures retrieval).
  for (const auto& q : queries) {
    for (SearchMode m : modes) {
      attest::SearchOptions so;
      so.query = q;
      so.k = k;
      so.mode = m;
      auto r = (*engine)->Search(so);
      if (!r.ok() && r.status().code() != attest::StatusCode::kInvalidArgument) {
        std::fprintf(stderr, "hybrid_latency: %s\n", r.status().ToString().c_str());
        return 1;
      }
    }
  }
  std::vector<double> p50[3], p95[3], ratio;
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> lat[3];
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      for (int j = 0; j < 3; ++j) {
        int m = (j + qi + round) % 3;  // rotate the order
        attest::SearchOptions so;
        so.query = queries[qi];
        so.k = k;
        so.mode = modes[m];
        auto t0 = std::chrono::steady_clock::now();
        auto r = (*engine)->Search(so);
        lat[m].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        (void)r;
      }
    }
    for (int m = 0; m < 3; ++m) {
      p50[m].push_back(Percentile(lat[m], 0.5));
      p95[m].push_back(Percentile(lat[m], 0.95));
    }
    ratio.push_back(p95[2].back() / p95[0].back());
  }
  auto st = (*engine)->Stats();
  std::printf("store %s: %llu chunks, embedder %s; %zu queries x %d rounds, k=%zu\n", data.c_str(),
              st.ok() ? static_cast<unsigned long long>(st->chunks) : 0ull, st.ok() ? st->embedder.c_str() : "?",
              queries.size(), rounds, k);
  std::printf("%-8s %22s %22s\n", "mode", "p50 ms [range]", "p95 ms [range]");
  nlohmann::json j = {{"data", data}, {"queries", queries.size()}, {"rounds", rounds}, {"k", k}};
  for (int m = 0; m < 3; ++m) {
    Spread a = Summarize(p50[m]), b = Summarize(p95[m]);
    std::printf("%-8s %7.3f [%.3f-%.3f] %7.3f [%.3f-%.3f]\n", attest::SearchModeName(modes[m]), a.median, a.lo, a.hi,
                b.median, b.lo, b.hi);
    j[attest::SearchModeName(modes[m])] = {{"p50_ms", a.median}, {"p95_ms", b.median}, {"p95_range", {b.lo, b.hi}}};
  }
  Spread r = Summarize(ratio);
  std::printf("hybrid p95 / bm25 p95: %.2f [%.2f-%.2f] (bar: <= 2)\n", r.median, r.lo, r.hi);
  j["hybrid_over_bm25_p95"] = {{"median", r.median}, {"range", {r.lo, r.hi}}};
  if (!json_out.empty()) std::ofstream(json_out) << j.dump(2) << "\n";
  return 0;
}
