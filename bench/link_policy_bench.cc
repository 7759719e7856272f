// The link policy on answer text (src/verify/url_sanitizer.h): SanitizeLinks over a whole answer
// against LinkStreamFilter fed the same answer in model-sized deltas, which is what a streamed
// answer pays. Both produce the same text (the filter's contract); the ratio of their times is the
// cost of streaming. Also the filter on text that keeps opening links it never closes (its worst
// case: every stage holds and re-reads up to its look-ahead).
//
//   build/bench/link_policy_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <string>
#include <string_view>

#include "verify/url_sanitizer.h"

namespace attest {
namespace {

// A ~1.6 KB cited answer: prose, citation markers, a safe and an unsafe Markdown link, an autolink.
std::string Answer() {
  std::string s;
  const char* sentences[] = {
      "Streaming replication lets a standby stay more up to date than file-based log shipping [1]. ",
      "Set max_wal_senders to at least the number of standbys, see [the configuration guide]"
      "(https://www.postgresql.org/docs/current/runtime-config-replication.html) [2]. ",
      "The standby connects to the primary, which streams WAL records as they are generated [1]. ",
      "Monitor lag with pg_stat_replication; <https://wiki.postgresql.org/wiki/Streaming_Replication> "
      "describes the views [3]. ",
      "A page that asked readers to click [here](javascript:alert(1)) was not followed [4]. ",
      "Hot standby queries may be cancelled when they conflict with recovery [2]. ",
  };
  while (s.size() < 1600) {
    for (const char* sentence : sentences) s += sentence;
  }
  return s;
}

void BM_SanitizeWholeAnswer(benchmark::State& state) {
  const std::string answer = Answer();
  for (auto _ : state) benchmark::DoNotOptimize(SanitizeLinks(answer));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * answer.size()));
}
BENCHMARK(BM_SanitizeWholeAnswer);

// Feeds `text` in `delta`-byte pieces and flushes; returns the released size.
size_t Stream(std::string_view text, size_t delta) {
  LinkStreamFilter filter;
  size_t released = 0;
  for (size_t i = 0; i < text.size(); i += delta) released += filter.Feed(text.substr(i, delta)).size();
  return released + filter.Flush().size();
}

void BM_StreamAnswer(benchmark::State& state) {
  const std::string answer = Answer();
  const auto delta = static_cast<size_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Stream(answer, delta));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * answer.size()));
}
BENCHMARK(BM_StreamAnswer)->Arg(4)->Arg(16)->Arg(64);

// 16 KB of "[word " that never closes: each '[' is held until its look-ahead is decided.
void BM_StreamUnclosedBrackets(benchmark::State& state) {
  std::string text;
  while (text.size() < 16 * 1024) text += "[word ";
  for (auto _ : state) benchmark::DoNotOptimize(Stream(text, 16));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_StreamUnclosedBrackets);

void BM_SanitizeUnclosedBrackets(benchmark::State& state) {
  std::string text;
  while (text.size() < 16 * 1024) text += "[word ";
  for (auto _ : state) benchmark::DoNotOptimize(SanitizeLinks(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_SanitizeUnclosedBrackets);

}  // namespace
}  // namespace attest

BENCHMARK_MAIN();
