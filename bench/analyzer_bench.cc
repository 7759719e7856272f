// Analyzer throughput: tokens/s for ASCII English-like text (fast path vs ICU-only) and for
// non-ASCII text, plus word counting and chunking. Real SciFact abstracts are used when the
// datasets are present (ATTEST_DATASETS or ../shared/datasets next to the repository).
//
//   build/bench/analyzer_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/analyzer.h"
#include "text/analyzer_internal.h"
#include "text/chunker.h"

namespace attest {
namespace {

constexpr const char* kEnglish =
    "Streaming replication allows a standby server to stay more up-to-date than is possible with "
    "file-based log shipping. The standby connects to the primary, which streams WAL records to the "
    "standby as they're generated, without waiting for the WAL file to be filled. Set max_wal_senders "
    "in postgresql.conf to at least the number of standbys, and check pg_stat_replication for lag. "
    "Version 15.4 fixed ERR-1234, where a logical replication worker (lr_example_parallel_apply) could "
    "stall after 3,000 transactions. If the primary's disk fills up, the server stops accepting "
    "connections; monitoring tools, e.g. check_postgres, warn about it. Hot standby queries may be "
    "cancelled when conflicting with recovery. Use synchronous_commit = remote_apply for read-your-writes.";

constexpr const char* kNonAscii =
    "La r\xC3\xA9plication en continu permet \xC3\xA0 un serveur de secours de rester \xC3\xA0 jour. "
    "Die Replikation \xC3\xBC" "bertr\xC3\xA4gt WAL-Datens\xC3\xA4tze an den Standby-Server. "
    "\xD0\xA0\xD0\xB5\xD0\xBF\xD0\xBB\xD0\xB8\xD0\xBA\xD0\xB0\xD1\x86\xD0\xB8\xD1\x8F "
    "\xD0\xBF\xD0\xBE\xD0\xB7\xD0\xB2\xD0\xBE\xD0\xBB\xD1\x8F\xD0\xB5\xD1\x82 "
    "\xD1\x80\xD0\xB5\xD0\xB7\xD0\xB5\xD1\x80\xD0\xB2\xD0\xBD\xD0\xBE\xD0\xBC\xD1\x83 "
    "\xD1\x81\xD0\xB5\xD1\x80\xD0\xB2\xD0\xB5\xD1\x80\xD1\x83 \xD0\xBE\xD1\x81\xD1\x82\xD0\xB0\xD0\xB2\xD0\xB0\xD1\x82\xD1\x8C\xD1\x81\xD1\x8F "
    "\xD0\xB0\xD0\xBA\xD1\x82\xD1\x83\xD0\xB0\xD0\xBB\xD1\x8C\xD0\xBD\xD1\x8B\xD0\xBC. "
    "\xE6\xB5\x81\xE5\xA4\x8D\xE5\x88\xB6\xE5\x85\x81\xE8\xAE\xB8\xE5\xA4\x87\xE7\x94\xA8\xE6\x9C\x8D\xE5\x8A\xA1\xE5\x99\xA8"
    "\xE4\xBF\x9D\xE6\x8C\x81\xE6\x9C\x80\xE6\x96\xB0\xE3\x80\x82 "
    "The caf\xC3\xA9\xE2\x80\x99s na\xC3\xAFve r\xC3\xA9sum\xC3\xA9 \xE2\x80\x94 \xEF\xAC\x81le size \xEF\xBC\x91\xEF\xBC\x92 MB. ";

std::string DatasetsDir() {
  if (const char* env = std::getenv("ATTEST_DATASETS")) return env;
  std::string here = __FILE__;  // <repo>/bench/analyzer_bench.cc
  here.resize(here.rfind('/'));
  here.resize(here.rfind('/'));
  return here + "/../shared/datasets";
}

// Splits text into chunks of about `words` whitespace-separated words.
std::vector<std::string> ChunksOf(const std::string& text, size_t words) {
  std::vector<std::string> out;
  std::string cur;
  size_t n = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    cur.append(text, i, j - i + (j < text.size() ? 1 : 0));
    i = j + 1;
    if (++n == words) {
      out.push_back(std::move(cur));
      cur.clear();
      n = 0;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> SyntheticEnglishChunks() {
  // Shuffle sentences of the sample into a few hundred distinct ~120-word chunks.
  std::vector<std::string> sentences;
  std::string s = kEnglish;
  size_t start = 0;
  for (size_t p = s.find(". "); p != std::string::npos; p = s.find(". ", start)) {
    sentences.push_back(s.substr(start, p + 2 - start));
    start = p + 2;
  }
  sentences.push_back(s.substr(start) + " ");
  std::mt19937 rng(1);
  std::string all;
  for (int i = 0; i < 3000; ++i) all += sentences[rng() % sentences.size()];
  return ChunksOf(all, 120);
}

std::vector<std::string> SciFactChunks() {
  std::ifstream in(DatasetsDir() + "/scifact/beir/corpus.jsonl");
  std::vector<std::string> out;
  std::string line;
  while (out.size() < 3000 && std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("text") || !j["text"].is_string()) continue;
    for (std::string& c : ChunksOf(j["text"].get<std::string>(), 120)) out.push_back(std::move(c));
  }
  return out;
}

void RunAnalyze(benchmark::State& state, const std::vector<std::string>& chunks, SegmentationMode mode) {
  if (chunks.empty()) {
    state.SkipWithError("no input text (datasets missing?)");
    return;
  }
  AnalyzerOptions options;
  std::vector<Token> tokens;
  size_t positions = 0, bytes = 0, i = 0;
  for (auto _ : state) {
    tokens.clear();
    const std::string& text = chunks[i++ % chunks.size()];
    positions += AnalyzeWithMode(options, text, mode, &tokens, 0);
    bytes += text.size();
    benchmark::DoNotOptimize(tokens.data());
  }
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(positions), benchmark::Counter::kIsRate);
  state.counters["chunks/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_AnalyzeEnglishAscii(benchmark::State& state) {
  static const std::vector<std::string> chunks = SyntheticEnglishChunks();
  RunAnalyze(state, chunks, SegmentationMode::kAuto);
}
BENCHMARK(BM_AnalyzeEnglishAscii);

void BM_AnalyzeEnglishIcuOnly(benchmark::State& state) {
  static const std::vector<std::string> chunks = SyntheticEnglishChunks();
  RunAnalyze(state, chunks, SegmentationMode::kIcuOnly);
}
BENCHMARK(BM_AnalyzeEnglishIcuOnly);

void BM_AnalyzeSciFact(benchmark::State& state) {
  static const std::vector<std::string> chunks = SciFactChunks();
  RunAnalyze(state, chunks, SegmentationMode::kAuto);
}
BENCHMARK(BM_AnalyzeSciFact);

void BM_AnalyzeSciFactIcuOnly(benchmark::State& state) {
  static const std::vector<std::string> chunks = SciFactChunks();
  RunAnalyze(state, chunks, SegmentationMode::kIcuOnly);
}
BENCHMARK(BM_AnalyzeSciFactIcuOnly);

void BM_AnalyzeNonAscii(benchmark::State& state) {
  std::string all;
  for (int i = 0; i < 20; ++i) all += kNonAscii;
  static const std::vector<std::string> chunks = ChunksOf(all, 120);
  RunAnalyze(state, chunks, SegmentationMode::kAuto);
}
BENCHMARK(BM_AnalyzeNonAscii);

void BM_CountWordTokens(benchmark::State& state) {
  static const std::vector<std::string> chunks = SyntheticEnglishChunks();
  size_t words = 0, i = 0;
  for (auto _ : state) words += CountWordTokens(chunks[i++ % chunks.size()]);
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(words), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CountWordTokens);

void BM_ChunkDocument(benchmark::State& state) {
  static const std::vector<std::string> chunks = SyntheticEnglishChunks();
  ParsedDocument doc;
  for (size_t i = 0; i < 60 && i < chunks.size(); ++i) {
    if (i % 10 == 0) doc.blocks.push_back(Block{BlockKind::kHeading, 2, "Section " + std::to_string(i)});
    doc.blocks.push_back(Block{BlockKind::kParagraph, 0, chunks[i]});
  }
  size_t produced = 0;
  for (auto _ : state) produced += ChunkDocument(doc).size();
  state.counters["chunks/s"] = benchmark::Counter(static_cast<double>(produced), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChunkDocument);

}  // namespace
}  // namespace attest

BENCHMARK_MAIN();
