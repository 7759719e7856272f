// Lexical engine benchmark on an in-process Zipfian corpus (vocabulary 200k, ~120 tokens per
// chunk). N = $ATTEST_BENCH_DOCS (default 100,000). Reports build rate, index size relative to the
// raw text, and per-query top-10 latency percentiles, unfiltered and with a 1%-selective ACL filter.
//
//   ATTEST_BENCH_DOCS=1000000 ./build/bench/lexical_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lexical/lexical_searcher.h"
#include "lexical/segment_impl.h"
#include "lexical/segment_writer.h"

namespace attest {
namespace {

constexpr uint32_t kVocab = 200000;

// Thread CPU time in seconds: the machine is shared, so wall time includes other processes' turns.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
constexpr uint32_t kGroups = 100;  // each chunk belongs to one group: a one-group ACL admits 1%

// Walker's alias method for O(1) Zipf sampling.
class AliasSampler {
 public:
  explicit AliasSampler(const std::vector<double>& w) : prob_(w.size()), alias_(w.size()) {
    const size_t n = w.size();
    double sum = 0;
    for (double x : w) sum += x;
    std::vector<double> p(n);
    std::vector<uint32_t> small, large;
    for (size_t i = 0; i < n; ++i) {
      p[i] = w[i] * n / sum;
      (p[i] < 1 ? small : large).push_back(static_cast<uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back(), l = large.back();
      small.pop_back();
      prob_[s] = p[s];
      alias_[s] = l;
      p[l] = p[l] + p[s] - 1;
      if (p[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (uint32_t i : small) prob_[i] = 1;
    for (uint32_t i : large) prob_[i] = 1;
  }
  uint32_t operator()(std::mt19937_64& rng) const {
    const uint64_t r = rng();
    const uint32_t i = static_cast<uint32_t>((r >> 32) % prob_.size());
    const double u = double(r & 0xffffffff) / 4294967296.0;
    return u < prob_[i] ? i : alias_[i];
  }

 private:
  std::vector<double> prob_;
  std::vector<uint32_t> alias_;
};

struct Corpus {
  uint32_t num_docs = 0;
  std::vector<std::string> words;  // by frequency rank
  uint64_t raw_bytes = 0;          // text of all fields, words separated by one space
  double add_seconds = 0, serialize_seconds = 0;
  std::shared_ptr<const Segment> segment;
  std::unique_ptr<LexicalSearcher> searcher;
  std::vector<LexicalQuery> queries;
};

std::string MakeWord(std::mt19937_64& rng, uint32_t rank) {
  // Frequent words are short, rare ones longer (English-like lengths, mean ~6 letters).
  const uint32_t len = rank < 100 ? 2 + rng() % 3 : rank < 5000 ? 4 + rng() % 5 : 5 + rng() % 8;
  std::string w;
  for (uint32_t i = 0; i < len; ++i) w.push_back(static_cast<char>('a' + rng() % 26));
  return w + std::to_string(rank % 97);  // keep words distinct
}

uint32_t NumDocs() {
  const char* env = std::getenv("ATTEST_BENCH_DOCS");
  return env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 100000;
}

Corpus& GetCorpus() {
  static Corpus* corpus = [] {
    auto* c = new Corpus();
    c->num_docs = NumDocs();
    std::mt19937_64 rng(42);
    for (uint32_t r = 0; r < kVocab; ++r) c->words.push_back(MakeWord(rng, r));
    std::vector<double> w(kVocab);
    for (uint32_t r = 0; r < kVocab; ++r) w[r] = 1.0 / (r + 1.0);
    AliasSampler zipf(w);
    SegmentWriter writer;
    std::vector<IndexedChunk> batch(10000);
    for (uint32_t done = 0; done < c->num_docs;) {
      const uint32_t n = std::min<uint32_t>(batch.size(), c->num_docs - done);
      for (uint32_t i = 0; i < n; ++i) {
        IndexedChunk& ch = batch[i];
        ch.id = ChunkId(uint64_t(done + i) * 3 + 1);
        static const uint32_t kLens[3] = {6, 6, 108};
        for (int f = 0; f < 3; ++f) {
          AnalyzedField& field = ch.fields[f];
          field.tokens.clear();
          const uint32_t len = kLens[f] / 2 + rng() % (kLens[f] + 1);
          uint32_t pos = 0;
          for (uint32_t t = 0; t < len; ++t) {
            if (rng() % 4 == 0) ++pos;  // a stopword the analyzer dropped
            const std::string& word = c->words[zipf(rng)];
            field.tokens.push_back(Token{word, pos++, 0, 0});
            c->raw_bytes += word.size() + 1;
          }
          field.length = pos;
        }
        ch.attrs.tenant = "t" + std::to_string(rng() % 3);
        ch.attrs.acl_groups = {"g" + std::to_string((done + i) % kGroups)};
        ch.attrs.source_type = "docs";
        ch.attrs.date = 19000 + static_cast<int32_t>(rng() % 1000);
      }
      const double t0 = ThreadCpuSeconds();
      for (uint32_t i = 0; i < n; ++i) {
        Status st = writer.Add(batch[i]);
        if (!st.ok()) std::abort();
      }
      c->add_seconds += ThreadCpuSeconds() - t0;
      done += n;
    }
    const double t0 = ThreadCpuSeconds();
    std::string image = writer.Serialize();
    c->serialize_seconds = ThreadCpuSeconds() - t0;
    auto seg = Segment::FromBytes(std::move(image));
    if (!seg.ok()) std::abort();
    c->segment = *seg;
    c->searcher = std::make_unique<LexicalSearcher>(std::vector<SegmentView>{{SegmentId(1), c->segment, nullptr}});
    // 2-5 term queries from mid-frequency ranks (log-uniform in [50, 20000)).
    std::mt19937_64 qrng(7);
    for (int q = 0; q < 1000; ++q) {
      LexicalQuery query;
      const uint32_t n = 2 + qrng() % 4;
      for (uint32_t i = 0; i < n; ++i) {
        const double u = std::uniform_real_distribution<double>(std::log(50.0), std::log(20000.0))(qrng);
        query.clauses.push_back(QueryClause{Occur::kShould, {c->words[static_cast<uint32_t>(std::exp(u))]}, {0}, false});
      }
      c->queries.push_back(std::move(query));
    }
    return c;
  }();
  return *corpus;
}

void BM_Build(benchmark::State& state) {
  Corpus& c = GetCorpus();
  for (auto _ : state) state.SetIterationTime(c.add_seconds + c.serialize_seconds);
  state.counters["docs"] = c.num_docs;
  state.counters["add_chunks_per_s"] = c.num_docs / c.add_seconds;
  state.counters["build_chunks_per_s"] = c.num_docs / (c.add_seconds + c.serialize_seconds);
  state.counters["serialize_s"] = c.serialize_seconds;
  state.counters["segment_MB"] = c.segment->file_size() / 1e6;
  state.counters["raw_MB"] = c.raw_bytes / 1e6;
  state.counters["bytes_per_raw"] = double(c.segment->file_size()) / double(c.raw_bytes);
  const SegmentImpl& impl = c.segment->impl();
  state.counters["postings_MB"] = impl.section_size(segfmt::kPostings) / 1e6;
  state.counters["positions_MB"] = impl.section_size(segfmt::kPositions) / 1e6;
  state.counters["skips_MB"] = impl.section_size(segfmt::kSkips) / 1e6;
  state.counters["dict_MB"] = (impl.section_size(segfmt::kDict) + impl.section_size(segfmt::kTermBlob)) / 1e6;
  uint64_t attrs = 0;
  for (int s = segfmt::kTenantDict; s < segfmt::kNumSections; ++s) attrs += impl.section_size(s);
  state.counters["attrs_MB"] = attrs / 1e6;
  state.counters["perdoc_MB"] = (impl.section_size(segfmt::kChunkIds) + impl.section_size(segfmt::kFieldLens)) / 1e6;
}
BENCHMARK(BM_Build)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void RunQueries(benchmark::State& state, const ChunkFilter& filter) {
  Corpus& c = GetCorpus();
  std::vector<double> lat, cpu;
  uint64_t results = 0, scored = 0;
  for (auto _ : state) {
    for (const LexicalQuery& q : c.queries) {
      LexicalSearchArgs args;
      args.query = &q;
      args.k = 10;
      args.filter = filter;
      LexicalSearchStats stats;
      const double c0 = ThreadCpuSeconds();
      const auto t0 = std::chrono::steady_clock::now();
      auto r = c.searcher->TopK(args, &stats);
      lat.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      cpu.push_back((ThreadCpuSeconds() - c0) * 1e6);
      benchmark::DoNotOptimize(r.data());
      results += r.size();
      scored += stats.postings_scored;
    }
  }
  std::sort(lat.begin(), lat.end());
  std::sort(cpu.begin(), cpu.end());
  auto pct = [](const std::vector<double>& v, double p) {
    return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
  };
  state.counters["p50_us"] = pct(lat, 0.50);
  state.counters["p95_us"] = pct(lat, 0.95);
  state.counters["cpu_p50_us"] = pct(cpu, 0.50);
  state.counters["cpu_p95_us"] = pct(cpu, 0.95);
  state.counters["cpu_p99_us"] = pct(cpu, 0.99);
  state.counters["mean_results"] = double(results) / lat.size();
  state.counters["mean_scored"] = double(scored) / lat.size();
  state.SetItemsProcessed(static_cast<int64_t>(lat.size()));
}

void BM_Top10(benchmark::State& state) { RunQueries(state, {}); }
BENCHMARK(BM_Top10)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_Top10Acl1Percent(benchmark::State& state) {
  ChunkFilter f;
  f.groups = std::vector<std::string>{"g17"};
  RunQueries(state, f);
}
BENCHMARK(BM_Top10Acl1Percent)->Iterations(3)->Unit(benchmark::kMillisecond);

// ACL filters admitting range(0) percent of the chunks (range(0) of the 100 groups).
void BM_Top10AclPercent(benchmark::State& state) {
  ChunkFilter f;
  f.groups = std::vector<std::string>{};
  for (int64_t g = 0; g < state.range(0); ++g) f.groups->push_back("g" + std::to_string(g * 3 % kGroups));
  RunQueries(state, f);
}
BENCHMARK(BM_Top10AclPercent)->Arg(2)->Arg(5)->Arg(10)->Arg(20)->Arg(40)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_Top10Tenant(benchmark::State& state) {
  ChunkFilter f;
  f.tenant = "t1";  // one third of the chunks
  RunQueries(state, f);
}
BENCHMARK(BM_Top10Tenant)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attest

BENCHMARK_MAIN();
