// What computing BM25 statistics over what the caller may read costs (docs/security.md,
// "Tenant-private statistics"). A synthetic tenant of N chunks (Zipfian vocabulary, ~60 tokens per
// chunk) whose chunks carry one of G groups and one of 4 access labels (4G visibility classes),
// split over S segments. For each caller, per query (12 random terms, like SciFact's long
// queries): thread CPU of the whole top-100 search, and of the statistics part alone (class masks
// of every segment and the per-class document frequency of every term). Callers: an admin (every
// class: the statistics are the stored totals, what the engine did before), a reader of 1 group at
// the lowest label, a reader of half the groups at the second label.
//
//   ./build/bench/scoped_stats_bench [N=200000] [groups=16] [segments=8] [queries=300]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "lexical/lexical_searcher.h"
#include "lexical/segment_writer.h"
#include "lexical/visibility.h"

namespace attest {
namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string Word(uint32_t i) { return "w" + std::to_string(i); }

int Main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? uint32_t(std::atoi(argv[1])) : 200000;
  const uint32_t groups = argc > 2 ? uint32_t(std::atoi(argv[2])) : 16;
  const uint32_t segments = argc > 3 ? uint32_t(std::atoi(argv[3])) : 8;
  const uint32_t queries = argc > 4 ? uint32_t(std::atoi(argv[4])) : 300;
  const std::vector<std::string> labels = {"", "internal", "confidential", "restricted"};
  std::mt19937_64 rng(7);
  std::vector<double> cdf(50000);
  double sum = 0;
  for (size_t i = 0; i < cdf.size(); ++i) cdf[i] = sum += 1.0 / std::pow(double(i + 1), 1.05);
  auto zipf = [&] {
    const double x = std::uniform_real_distribution<double>(0, sum)(rng);
    return uint32_t(std::lower_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
  };
  std::vector<SegmentView> views;
  const double t_build = CpuSeconds();
  for (uint32_t s = 0; s < segments; ++s) {
    SegmentWriter w;
    const uint32_t lo = uint64_t(n) * s / segments, hi = uint64_t(n) * (s + 1) / segments;
    for (uint32_t d = lo; d < hi; ++d) {
      IndexedChunk c;
      c.id = ChunkId(d + 1);
      for (uint32_t p = 0; p < 60; ++p) c.fields[2].tokens.push_back(Token{Word(zipf()), p});
      c.fields[2].length = 60;
      c.attrs.tenant = "acme";
      c.attrs.acl_groups = {"g" + std::to_string(rng() % groups)};
      c.attrs.access_label = labels[rng() % labels.size()];
      if (!w.Add(c).ok()) return 1;
    }
    auto seg = Segment::FromBytes(w.Serialize(), SegmentOpenOptions{.deep = false});
    if (!seg.ok()) {
      std::fprintf(stderr, "%s\n", seg.status().ToString().c_str());
      return 1;
    }
    views.push_back({SegmentId(s + 1), *seg, nullptr});
  }
  std::printf("corpus: %u chunks, %u visibility classes per segment (%u groups x %zu labels), %u segments; built in "
              "%.1f s CPU\n",
              n, groups * uint32_t(labels.size()), groups, labels.size(), segments, CpuSeconds() - t_build);
  LexicalSearcher searcher(views);
  std::vector<LexicalQuery> qs(queries);
  for (auto& q : qs) {
    for (int t = 0; t < 12; ++t) q.clauses.push_back(QueryClause{Occur::kShould, {Word(zipf() % 5000)}, {0}, false});
  }
  struct Caller {
    const char* name;
    ChunkFilter filter;
  };
  std::vector<Caller> callers(3);
  callers[0] = {"admin (all classes)", {}};
  callers[0].filter.tenant = "acme";
  callers[1] = {"reader: 1 group, lowest label", {}};
  callers[1].filter.tenant = "acme";
  callers[1].filter.groups = std::vector<std::string>{"g0"};
  callers[1].filter.labels = std::vector<std::string>{""};
  callers[2] = {"reader: half the groups, 2 labels", {}};
  callers[2].filter.tenant = "acme";
  callers[2].filter.groups = std::vector<std::string>{};
  for (uint32_t g = 0; g < groups / 2; ++g) callers[2].filter.groups->push_back("g" + std::to_string(g));
  callers[2].filter.labels = std::vector<std::string>{"", "internal"};
  std::printf("%-36s %12s %12s %14s %10s\n", "caller", "search us/q", "stats us/q", "stats share", "hits/q");
  for (const Caller& c : callers) {
    double search = 0, stats = 0;
    uint64_t hits = 0;
    for (int round = 0; round < 3; ++round) {
      for (const LexicalQuery& q : qs) {
        LexicalSearchArgs args;
        args.query = &q;
        args.filter = c.filter;
        args.k = 100;
        double t0 = CpuSeconds();
        hits += searcher.TopK(args).size();
        double t1 = CpuSeconds();
        ScopedStats scoped(views, c.filter);
        uint64_t df = 0;
        for (const QueryClause& cl : q.clauses) df += scoped.DocFreq(cl.terms[0]);
        double t2 = CpuSeconds();
        if (df == UINT64_MAX) std::printf("?");
        search += t1 - t0;
        stats += t2 - t1;
      }
    }
    const double per = 1e6 / (3.0 * qs.size());
    std::printf("%-36s %12.1f %12.1f %13.1f%% %10.1f\n", c.name, search * per, stats * per, 100.0 * stats / search,
                double(hits) / (3.0 * qs.size()));
  }
  return 0;
}

}  // namespace
}  // namespace attest

int main(int argc, char** argv) { return attest::Main(argc, argv); }
