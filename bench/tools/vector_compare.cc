// Vector index benchmark: Attest's VectorIndex (HNSW default config, IVF-PQ) side by side with the
// alternatives a user would pick: plain FAISS IndexHNSWFlat (built by FAISS from the same rows, M and
// efC; build time compared) searched with an IDSelector and no fallback, and
// brute force (FAISS IndexFlatIP with an IDSelector). Queries run on ONE thread.
//
//   vector_compare [--n 200000] [--dim 384] [--clusters 1000] [--queries 1000] [--baseline-queries 200]
//                  [--seed 7] [--noise 0.03] [--json FILE] [--no-ivfpq] [--hnsw-m 16] [--hnsw-efc 100] [--hnsw-ef 64]
//                  [--build-threads 2] [--sweep]
//   ATTEST_VECTOR_N overrides --n (quick runs). The JSON report is written only with --json.
//
// Data: `clusters` Gaussian centres (unit), each row = centre + N(0, noise^2 (--noise, default 0.03)) per coordinate,
// normalized (seeded). Queries: a random row + N(0, noise^2 (--noise, default 0.03)), normalized. Filters: a random admitted
// subset of the given fraction (bitmap + sorted list). Ground truth: VectorIndex::Exact (brute force
// over the admitted rows). Recall@10 = |approx ∩ exact| / 10.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/impl/IDSelector.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vector/vector_index.h"

namespace {

using namespace attest;
using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

struct Options {
  uint32_t n = 200000, dim = 384, clusters = 1000, queries = 1000, baseline_queries = 200;
  uint64_t seed = 7;
  float noise = 0.03f;
  std::string json;  // --json FILE; none written without it
  bool ivfpq = true, sweep = false;
  uint32_t m = 16, efc = 100, ef = 64, threads = 2;
};

class SubsetFilter : public VectorFilter {
 public:
  SubsetFilter(uint32_t n, double fraction, uint64_t seed) : bits_(n, 0) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    for (uint32_t i = 0; i < n; ++i) {
      if (u(rng) < fraction) bits_[i] = 1, rows_.push_back(i);
    }
  }
  bool Admits(uint32_t local) const override { return local < bits_.size() && bits_[local]; }
  uint64_t EstimatedCount() const override { return rows_.size(); }
  std::vector<uint32_t> Materialize() const override { return rows_; }
  size_t count() const { return rows_.size(); }

 private:
  std::vector<uint8_t> bits_;
  std::vector<uint32_t> rows_;
};

struct FaissSel : faiss::IDSelector {
  explicit FaissSel(const VectorFilter* f) : f(f) {}
  bool is_member(idx_t id) const override { return f->Admits(static_cast<uint32_t>(id)); }
  const VectorFilter* f;
};

void Normalize(float* v, uint32_t d) {
  double s = 0;
  for (uint32_t i = 0; i < d; ++i) s += double(v[i]) * v[i];
  const float inv = s > 0 ? float(1.0 / std::sqrt(s)) : 0.f;
  for (uint32_t i = 0; i < d; ++i) v[i] *= inv;
}

double Recall(const std::vector<VectorHit>& got, const std::vector<VectorHit>& truth) {
  if (truth.empty()) return 1.0;
  size_t hit = 0;
  for (const auto& t : truth) {
    for (const auto& g : got) hit += g.local == t.local;
  }
  return double(hit) / truth.size();
}

struct Stats {
  double recall = 0, full_k = 0, p50_ms = 0, p95_ms = 0, mean_ms = 0, qps = 0;
  size_t exact_paths = 0, fallbacks = 0;
};

Stats Summarize(std::vector<double> lat_ms, double recall_sum, size_t full, size_t nq) {
  Stats s;
  std::sort(lat_ms.begin(), lat_ms.end());
  double total = 0;
  for (double x : lat_ms) total += x;
  s.recall = recall_sum / nq;
  s.full_k = double(full) / nq;
  s.p50_ms = lat_ms[nq / 2];
  s.p95_ms = lat_ms[std::min(nq - 1, nq * 95 / 100)];
  s.mean_ms = total / nq;
  s.qps = 1000.0 / s.mean_ms;
  return s;
}

nlohmann::json ToJson(const Stats& s) {
  return {{"recall_at_10", s.recall}, {"fraction_full_k", s.full_k}, {"p50_ms", s.p50_ms},
          {"p95_ms", s.p95_ms},       {"mean_ms", s.mean_ms},         {"qps_1thread", s.qps},
          {"exact_paths", s.exact_paths}, {"fallbacks", s.fallbacks}};
}

void PrintRow(const char* what, const char* sel, const Stats& s) {
  std::printf("%-22s %6s  recall@10 %.4f  full-k %.3f  p50 %7.3f ms  p95 %7.3f ms  %8.0f q/s  exact %zu fb %zu\n",
              what, sel, s.recall, s.full_k, s.p50_ms, s.p95_ms, s.qps, s.exact_paths, s.fallbacks);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--n") o.n = std::stoul(next());
    else if (a == "--dim") o.dim = std::stoul(next());
    else if (a == "--clusters") o.clusters = std::stoul(next());
    else if (a == "--queries") o.queries = std::stoul(next());
    else if (a == "--baseline-queries") o.baseline_queries = std::stoul(next());
    else if (a == "--noise") o.noise = std::stof(next());
    else if (a == "--seed") o.seed = std::stoull(next());
    else if (a == "--json") o.json = next();
    else if (a == "--no-ivfpq") o.ivfpq = false;
    else if (a == "--sweep") o.sweep = true;
    else if (a == "--hnsw-m") o.m = std::stoul(next());
    else if (a == "--hnsw-efc") o.efc = std::stoul(next());
    else if (a == "--hnsw-ef") o.ef = std::stoul(next());
    else if (a == "--build-threads") o.threads = std::stoul(next());
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (const char* env = std::getenv("ATTEST_VECTOR_N")) o.n = std::stoul(env);
  o.baseline_queries = std::min(o.baseline_queries, o.queries);
  const uint32_t d = o.dim, n = o.n, k = 10;
  std::printf("vector_compare: n=%u dim=%u clusters=%u queries=%u (baselines %u) seed=%llu\n", n, d, o.clusters,
              o.queries, o.baseline_queries, static_cast<unsigned long long>(o.seed));

  // ---- data
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> g(0, 1), noise(0, o.noise);
  std::vector<float> centres(size_t(o.clusters) * d), x(size_t(n) * d), qs(size_t(o.queries) * d);
  for (auto& v : centres) v = g(rng);
  for (uint32_t c = 0; c < o.clusters; ++c) Normalize(&centres[size_t(c) * d], d);
  for (uint32_t i = 0; i < n; ++i) {
    const float* c = &centres[size_t(rng() % o.clusters) * d];
    float* r = &x[size_t(i) * d];
    for (uint32_t j = 0; j < d; ++j) r[j] = c[j] + noise(rng);
    Normalize(r, d);
  }
  for (uint32_t i = 0; i < o.queries; ++i) {
    const float* r = &x[size_t(rng() % n) * d];
    float* q = &qs[size_t(i) * d];
    for (uint32_t j = 0; j < d; ++j) q[j] = r[j] + noise(rng);
    Normalize(q, d);
  }
  nlohmann::json out = {{"n", n}, {"dim", d}, {"clusters", o.clusters}, {"queries", o.queries}, {"seed", o.seed}};

  // ---- build HNSW (default config unless overridden)
  VectorBuildArgs ba;
  ba.vectors = x.data(), ba.n = n, ba.dim = d;
  ba.config.kind = VectorIndexKind::kHnsw;
  ba.config.hnsw_m = o.m, ba.config.hnsw_ef_construction = o.efc, ba.config.hnsw_ef_search = o.ef;
  ba.config.threads = o.threads;
  auto t0 = Clock::now();
  auto built = VectorIndex::Build(ba);
  if (!built.ok()) {
    std::fprintf(stderr, "build: %s\n", built.status().ToString().c_str());
    return 1;
  }
  const double build_s = Seconds(t0);
  const std::string bytes = (*built)->Serialize();
  auto idx = VectorIndex::FromBytes(bytes);  // search the reopened file
  if (!idx.ok()) {
    std::fprintf(stderr, "reopen: %s\n", idx.status().ToString().c_str());
    return 1;
  }
  const VectorIndex& vi = **idx;
  std::printf("HNSW M=%u efC=%u ef=%u: build %.1f s (%u threads), file %.0f B/vector, memory %.0f B/vector\n", o.m,
              o.efc, o.ef, build_s, o.threads, double(bytes.size()) / n, double(vi.memory_bytes()) / n);
  out["hnsw"] = {{"m", o.m}, {"ef_construction", o.efc}, {"ef_search", o.ef}, {"build_seconds", build_s},
                 {"build_threads", o.threads}, {"file_bytes_per_vector", double(bytes.size()) / n},
                 {"memory_bytes_per_vector", double(vi.memory_bytes()) / n}};

  // Plain FAISS HNSW, built by FAISS itself (IndexHNSWFlat::add, OpenMP on the same threads), searched
  // by FAISS with an IDSelector: the alternative a user would pick, for build time and recall.
  auto plain = std::make_unique<faiss::IndexHNSWFlat>(int(d), int(o.m), faiss::METRIC_INNER_PRODUCT);
  plain->hnsw.efConstruction = int(o.efc);
  plain->hnsw.efSearch = int(o.ef);
  omp_set_num_threads(int(o.threads));
  t0 = Clock::now();
  plain->add(n, x.data());
  const double faiss_build_s = Seconds(t0);
  std::printf("FAISS IndexHNSWFlat::add, same M and efC: build %.1f s (%u threads); attest/faiss build time %.3f\n",
              faiss_build_s, o.threads, build_s / faiss_build_s);
  out["faiss_hnsw_build_seconds"] = faiss_build_s;
  out["build_time_ratio_attest_over_faiss"] = build_s / faiss_build_s;
  faiss::IndexFlatIP brute{static_cast<faiss::Index::idx_t>(d)};
  brute.add(n, x.data());
  omp_set_num_threads(1);

  const double fractions[] = {1.0, 0.1, 0.01, 0.001};
  const char* names[] = {"100%", "10%", "1%", "0.1%"};
  std::printf("\n%-22s %6s\n", "engine", "filter");
  for (int fi = 0; fi < 4; ++fi) {
    std::unique_ptr<SubsetFilter> filter;
    if (fractions[fi] < 1.0) filter = std::make_unique<SubsetFilter>(n, fractions[fi], o.seed + fi);
    const VectorFilter* f = filter.get();
    std::vector<std::vector<VectorHit>> truth(o.queries);
    for (uint32_t qi = 0; qi < o.queries; ++qi) truth[qi] = vi.Exact({&qs[size_t(qi) * d], k, f});

    // Attest HNSW
    std::vector<double> lat;
    double rsum = 0;
    size_t full = 0;
    Stats st;
    for (uint32_t qi = 0; qi < o.queries; ++qi) {
      VectorIndex::SearchTrace tr;
      auto t = Clock::now();
      auto hits = vi.SearchTraced({&qs[size_t(qi) * d], k, f}, &tr);
      lat.push_back(Seconds(t) * 1e3);
      rsum += Recall(hits, truth[qi]);
      full += hits.size() == truth[qi].size();
      st.exact_paths += tr.exact_scan, st.fallbacks += tr.fallback;
    }
    Stats s = Summarize(lat, rsum, full, o.queries);
    s.exact_paths = st.exact_paths, s.fallbacks = st.fallbacks;
    PrintRow("attest-hnsw", names[fi], s);
    out["filters"][names[fi]]["admitted"] = filter ? filter->count() : n;
    out["filters"][names[fi]]["attest_hnsw"] = ToJson(s);

    // Plain FAISS HNSW with IDSelector, no fallback.
    FaissSel sel(f);
    faiss::SearchParametersHNSW hp;
    hp.sel = f ? &sel : nullptr;
    lat.clear(), rsum = 0, full = 0;
    std::vector<float> D(k);
    std::vector<faiss::Index::idx_t> I(k);
    for (uint32_t qi = 0; qi < o.queries; ++qi) {
      auto t = Clock::now();
      plain->search(1, &qs[size_t(qi) * d], k, D.data(), I.data(), &hp);
      lat.push_back(Seconds(t) * 1e3);
      std::vector<VectorHit> hits;
      for (uint32_t j = 0; j < k; ++j) {
        if (I[j] >= 0) hits.push_back({uint32_t(I[j]), D[j]});
      }
      rsum += Recall(hits, truth[qi]);
      full += hits.size() == truth[qi].size();
    }
    s = Summarize(lat, rsum, full, o.queries);
    PrintRow("faiss-hnsw+selector", names[fi], s);
    out["filters"][names[fi]]["faiss_hnsw_selector"] = ToJson(s);

    // Brute force: IndexFlatIP with IDSelector.
    faiss::SearchParameters bp;
    bp.sel = f ? &sel : nullptr;
    lat.clear(), rsum = 0, full = 0;
    for (uint32_t qi = 0; qi < o.baseline_queries; ++qi) {
      auto t = Clock::now();
      brute.search(1, &qs[size_t(qi) * d], k, D.data(), I.data(), f ? &bp : nullptr);
      lat.push_back(Seconds(t) * 1e3);
      std::vector<VectorHit> hits;
      for (uint32_t j = 0; j < k; ++j) {
        if (I[j] >= 0) hits.push_back({uint32_t(I[j]), D[j]});
      }
      rsum += Recall(hits, truth[qi]);
      full += hits.size() == truth[qi].size();
    }
    s = Summarize(lat, rsum, full, o.baseline_queries);
    PrintRow("faiss-flat+selector", names[fi], s);
    out["filters"][names[fi]]["faiss_flat_selector"] = ToJson(s);
  }

  if (o.sweep) {
    std::printf("\nunfiltered ef sweep (%u queries)\n", o.baseline_queries);
    for (uint32_t ef : {16u, 32u, 64u, 128u, 256u}) {
      double ms = 0, rec = 0;
      for (uint32_t qi = 0; qi < o.baseline_queries; ++qi) {
        VectorSearchArgs a{&qs[size_t(qi) * d], k, nullptr};
        a.ef_search = ef;
        auto t = Clock::now();
        auto hits = vi.Search(a);
        ms += Seconds(t) * 1e3;
        rec += Recall(hits, vi.Exact(a));
      }
      std::printf("  ef %4u: recall %.4f  %.3f ms  %.0f q/s\n", ef, rec / o.baseline_queries,
                  ms / o.baseline_queries, 1000.0 * o.baseline_queries / ms);
      out["ef_sweep"].push_back({{"ef", ef}, {"recall_at_10", rec / o.baseline_queries},
                                 {"mean_ms", ms / o.baseline_queries}});
    }
  }

  // Crossover of the narrow-filter exact scan vs the filtered HNSW walk (sets kDefaultExactBelow).
  if (o.sweep) {
    std::printf("\nexact_below sweep (mean ms per query; %u queries)\n", o.baseline_queries);
    nlohmann::json sweep = nlohmann::json::array();
    for (double frac : {0.01, 0.05, 0.1, 0.2, 0.3, 0.5}) {
      SubsetFilter filter(n, frac, o.seed + 99);
      double ms[2] = {0, 0}, rec[2] = {0, 0};
      for (int mode = 0; mode < 2; ++mode) {
        for (uint32_t qi = 0; qi < o.baseline_queries; ++qi) {
          VectorSearchArgs a{&qs[size_t(qi) * d], k, &filter};
          a.exact_below = mode == 0 ? 1u : UINT32_MAX;  // note: the walk's cost cap still applies
          auto t = Clock::now();
          auto hits = vi.Search(a);
          ms[mode] += Seconds(t) * 1e3;
          rec[mode] += Recall(hits, vi.Exact(a));
        }
      }
      const double nq = o.baseline_queries;
      std::printf("  admitted %7zu (%5.1f%%): hnsw walk %.3f ms (recall %.3f)  exact scan %.3f ms\n", filter.count(),
                  frac * 100, ms[0] / nq, rec[0] / nq, ms[1] / nq);
      sweep.push_back({{"admitted", filter.count()}, {"hnsw_ms", ms[0] / nq}, {"hnsw_recall", rec[0] / nq},
                       {"exact_ms", ms[1] / nq}});
    }
    out["exact_below_sweep"] = sweep;
  }

  if (o.ivfpq) {
    VectorBuildArgs pa = ba;
    pa.config = VectorIndexConfig();
    pa.config.kind = VectorIndexKind::kIvfPq;
    pa.config.threads = o.threads;
    t0 = Clock::now();
    auto pq = VectorIndex::Build(pa);
    if (!pq.ok()) {
      std::fprintf(stderr, "ivfpq build: %s\n", pq.status().ToString().c_str());
      return 1;
    }
    const double pq_build = Seconds(t0);
    const std::string pbytes = (*pq)->Serialize();
    std::printf("\nIVF-PQ lists=%u M=%u probe=auto rescore=%u: build %.1f s, file %.0f B/vector, memory %.1f B/vector\n",
                (*pq)->config().ivf_lists, (*pq)->config().pq_subquantizers, (*pq)->config().rescore_factor, pq_build,
                double(pbytes.size()) / n, double((*pq)->memory_bytes()) / n);
    out["ivfpq"] = {{"lists", (*pq)->config().ivf_lists}, {"subquantizers", (*pq)->config().pq_subquantizers},
                    {"build_seconds", pq_build}, {"file_bytes_per_vector", double(pbytes.size()) / n},
                    {"memory_bytes_per_vector", double((*pq)->memory_bytes()) / n}};
    for (int fi : {0, 2}) {
      std::unique_ptr<SubsetFilter> filter;
      if (fractions[fi] < 1.0) filter = std::make_unique<SubsetFilter>(n, fractions[fi], o.seed + fi);
      std::vector<double> lat;
      double rsum = 0;
      size_t full = 0;
      for (uint32_t qi = 0; qi < o.queries; ++qi) {
        VectorSearchArgs a{&qs[size_t(qi) * d], k, filter.get()};
        auto t = Clock::now();
        auto hits = (*pq)->Search(a);
        lat.push_back(Seconds(t) * 1e3);
        auto truth = vi.Exact(a);
        rsum += Recall(hits, truth);
        full += hits.size() == truth.size();
      }
      Stats s = Summarize(lat, rsum, full, o.queries);
      PrintRow("attest-ivfpq", names[fi], s);
      out["ivfpq"]["filters"][names[fi]] = ToJson(s);
    }
  }
  if (!o.json.empty()) {
    std::ofstream(o.json) << out.dump(2) << "\n";
    std::printf("\nwrote %s\n", o.json.c_str());
  }
  return 0;
}
