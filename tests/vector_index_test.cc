// VectorIndex: exactness of flat against an independent double-precision oracle, recall of HNSW
// and IVF-PQ against Exact(), filters at several selectivities, tiny indexes, zero queries, the file
// round trip, corruption handling and concurrent searches.
#include "vector/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "common/checksum.h"

namespace attest {
namespace {

struct Data {
  uint32_t n = 0, dim = 0;
  std::vector<float> x;
  const float* row(uint32_t i) const { return &x[size_t(i) * dim]; }
};

void Normalize(float* v, uint32_t d) {
  double s = 0;
  for (uint32_t i = 0; i < d; ++i) s += double(v[i]) * v[i];
  for (uint32_t i = 0; i < d; ++i) v[i] = float(v[i] / std::sqrt(s));
}

// `clusters` == 0: isotropic random unit vectors; otherwise Gaussian clusters.
Data MakeData(uint32_t n, uint32_t dim, uint32_t clusters, uint64_t seed, float noise = 0.15f) {
  Data d{n, dim, std::vector<float>(size_t(n) * dim)};
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0, 1), e(0, noise);
  std::vector<float> c(size_t(std::max(1u, clusters)) * dim);
  for (auto& v : c) v = g(rng);
  for (uint32_t i = 0; i < n; ++i) {
    float* r = &d.x[size_t(i) * dim];
    const float* cc = &c[size_t(rng() % std::max(1u, clusters)) * dim];
    for (uint32_t j = 0; j < dim; ++j) r[j] = clusters ? cc[j] + e(rng) : g(rng);
    Normalize(r, dim);
  }
  return d;
}

std::vector<std::vector<float>> MakeQueries(const Data& d, uint32_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> e(0, 0.1f);
  std::vector<std::vector<float>> qs(count, std::vector<float>(d.dim));
  for (auto& q : qs) {
    const float* r = d.row(uint32_t(rng() % d.n));
    for (uint32_t j = 0; j < d.dim; ++j) q[j] = r[j] + e(rng);
    Normalize(q.data(), d.dim);
  }
  return qs;
}

class BitmapFilter : public VectorFilter {
 public:
  BitmapFilter(uint32_t n, double fraction, uint64_t seed, uint64_t overestimate = 0) : bits_(n, 0), extra_(overestimate) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    for (uint32_t i = 0; i < n; ++i) {
      if (u(rng) < fraction) bits_[i] = 1, rows_.push_back(i);
    }
  }
  bool Admits(uint32_t local) const override { return local < bits_.size() && bits_[local]; }
  uint64_t EstimatedCount() const override { return rows_.size() + extra_; }
  std::vector<uint32_t> Materialize() const override { return rows_; }
  size_t count() const { return rows_.size(); }

 private:
  std::vector<uint8_t> bits_;
  std::vector<uint32_t> rows_;
  uint64_t extra_;
};

// HNSW indexes of the tests below get their graph from 256 rows on (the default, kDefaultExactBelow,
// is larger than most test data); `exact_below` = 0 keeps the default.
std::unique_ptr<VectorIndex> BuildOrDie(const Data& d, VectorIndexKind kind, std::string tag = "t",
                                        uint32_t exact_below = 256) {
  VectorBuildArgs a;
  a.vectors = d.x.data(), a.n = d.n, a.dim = d.dim, a.tag = std::move(tag);
  a.config.kind = kind;
  a.config.threads = 2;
  a.config.exact_below = exact_below;
  auto r = VectorIndex::Build(a);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

double Recall(const std::vector<VectorHit>& got, const std::vector<VectorHit>& truth) {
  if (truth.empty()) return 1.0;
  size_t hit = 0;
  for (const auto& t : truth) {
    for (const auto& g : got) hit += g.local == t.local;
  }
  return double(hit) / truth.size();
}

void ExpectSorted(const std::vector<VectorHit>& hits) {
  for (size_t i = 1; i < hits.size(); ++i) {
    ASSERT_TRUE(hits[i - 1].score > hits[i].score ||
                (hits[i - 1].score == hits[i].score && hits[i - 1].local < hits[i].local));
  }
}

// Every admitted row as (-score, row), scores in double precision, sorted: best first, ties by row.
std::vector<std::pair<double, uint32_t>> BruteForce(const Data& d, const std::vector<float>& q, const VectorFilter* f) {
  std::vector<std::pair<double, uint32_t>> all;
  for (uint32_t i = 0; i < d.n; ++i) {
    if (f && !f->Admits(i)) continue;
    double s = 0;
    for (uint32_t j = 0; j < d.dim; ++j) s += double(q[j]) * d.row(i)[j];
    all.push_back({-s, i});
  }
  std::sort(all.begin(), all.end());
  return all;
}

// Many equal scores (rows copied from 40 distinct vectors) and a k large enough for the top-k to
// drop and keep hits many times: the exact paths return the best k by score, ties by row, as a
// double-precision brute force orders them (copies score exactly alike; the 40 distinct scores are
// far apart compared with float rounding).
TEST(VectorIndexTest, ExactTopKWithManyTiesEqualsSortedBruteForce) {
  Data d = MakeData(3000, 16, 0, 71);
  for (uint32_t i = 40; i < d.n; ++i) std::memcpy(&d.x[size_t(i) * d.dim], d.row(i % 40), sizeof(float) * d.dim);
  BitmapFilter some(d.n, 0.6, 72);
  for (auto kind : {VectorIndexKind::kFlat, VectorIndexKind::kHnsw}) {
    auto idx = BuildOrDie(d, kind, "t", /*exact_below=*/0);  // HNSW of 3,000 rows: no graph, exact
    for (const auto& q : MakeQueries(d, 8, 73)) {
      for (const VectorFilter* f : {static_cast<const VectorFilter*>(nullptr), static_cast<const VectorFilter*>(&some)}) {
        const std::vector<std::pair<double, uint32_t>> all = BruteForce(d, q, f);
        for (size_t k : {size_t{1}, size_t{10}, size_t{129}, size_t{300}, size_t{2999}}) {
          const size_t want = std::min(k, all.size());
          for (const auto& hits : {idx->Search({q.data(), k, f}), idx->Exact({q.data(), k, f})}) {
            ASSERT_EQ(hits.size(), want) << VectorIndexKindName(kind) << " k " << k;
            for (size_t r = 0; r < want; ++r) {
              ASSERT_EQ(hits[r].local, all[r].second) << VectorIndexKindName(kind) << " k " << k << " rank " << r;
              ASSERT_NEAR(hits[r].score, -all[r].first, 1e-5);
            }
            ExpectSorted(hits);
          }
        }
      }
    }
  }
}

TEST(VectorIndexTest, FlatMatchesDoublePrecisionBruteForce) {
  const Data d = MakeData(1500, 24, 0, 1);
  auto idx = BuildOrDie(d, VectorIndexKind::kFlat);
  BitmapFilter half(d.n, 0.5, 3);
  for (const auto& q : MakeQueries(d, 30, 2)) {
    for (const VectorFilter* f : {static_cast<const VectorFilter*>(nullptr), static_cast<const VectorFilter*>(&half)}) {
      const std::vector<std::pair<double, uint32_t>> all = BruteForce(d, q, f);
      const auto hits = idx->Search({q.data(), 10, f});
      ASSERT_EQ(hits.size(), 10u);
      for (size_t r = 0; r < 10; ++r) {
        EXPECT_EQ(hits[r].local, all[r].second);
        EXPECT_NEAR(hits[r].score, -all[r].first, 1e-5);
      }
      EXPECT_EQ(hits, idx->Exact({q.data(), 10, f}));
    }
  }
}

TEST(VectorIndexTest, ApproximateKindsReachRecallBar) {
  const Data d = MakeData(6000, 32, 60, 5);
  const auto qs = MakeQueries(d, 100, 6);
  for (auto kind : {VectorIndexKind::kHnsw, VectorIndexKind::kIvfPq}) {
    auto idx = BuildOrDie(d, kind);
    EXPECT_FALSE(idx->exact_only());
    for (double frac : {1.0, 0.3, 0.05}) {
      BitmapFilter filter(d.n, frac, 9);
      const VectorFilter* f = frac < 1.0 ? &filter : nullptr;
      double sum = 0;
      for (const auto& q : qs) {
        VectorSearchArgs a{q.data(), 10, f};
        a.exact_below = 1;  // force the approximate path even for narrow filters
        const auto hits = idx->Search(a);
        ExpectSorted(hits);
        sum += Recall(hits, idx->Exact(a));
      }
      EXPECT_GE(sum / qs.size(), 0.95) << VectorIndexKindName(kind) << " at " << frac;
    }
  }
}

TEST(VectorIndexTest, FiltersNeverLeakAndReturnKWhenAdmitted) {
  const Data d = MakeData(5000, 16, 40, 11);
  const auto qs = MakeQueries(d, 20, 12);
  for (auto kind : {VectorIndexKind::kFlat, VectorIndexKind::kHnsw, VectorIndexKind::kIvfPq}) {
    auto idx = BuildOrDie(d, kind);
    for (double frac : {0.9, 0.2, 0.01, 0.002, 0.0005}) {
      for (uint64_t over : {uint64_t{0}, uint64_t{100000}}) {  // exact and badly overestimated counts
        BitmapFilter f(d.n, frac, 13, over);
        for (uint32_t eb : {0u, 1u}) {
          for (const auto& q : qs) {
            VectorSearchArgs a{q.data(), 10, &f};
            a.exact_below = eb;
            const auto hits = idx->Search(a);
            ASSERT_EQ(hits.size(), std::min<size_t>(10, f.count())) << VectorIndexKindName(kind) << " " << frac;
            for (const auto& h : hits) ASSERT_TRUE(f.Admits(h.local));
            ExpectSorted(hits);
          }
        }
      }
    }
  }
}

TEST(VectorIndexTest, TinyIndexesAndZeroQuery) {
  for (auto kind : {VectorIndexKind::kFlat, VectorIndexKind::kHnsw, VectorIndexKind::kIvfPq}) {
    for (uint32_t n : {0u, 1u, 9u}) {
      const Data d = MakeData(n, 8, 0, 21 + n);
      auto idx = BuildOrDie(d, kind);
      auto re = VectorIndex::FromBytes(idx->Serialize());
      ASSERT_TRUE(re.ok()) << re.status().ToString();
      std::vector<float> q(8, 0.f);
      q[0] = 1;
      for (const VectorIndex* v : {idx.get(), re->get()}) {
        EXPECT_EQ(v->size(), n);
        const auto hits = v->Search({q.data(), 10, nullptr});
        EXPECT_EQ(hits.size(), n) << VectorIndexKindName(kind);
        EXPECT_EQ(hits, v->Exact({q.data(), 10, nullptr}));
        std::vector<float> zero(8, 0.f);
        EXPECT_TRUE(v->Search({zero.data(), 10, nullptr}).empty());
        EXPECT_TRUE(v->Exact({zero.data(), 10, nullptr}).empty());
      }
      if (kind != VectorIndexKind::kFlat) {
        EXPECT_TRUE(idx->exact_only());  // too small for IVF, and at most exact_below rows: no graph
        EXPECT_TRUE(re.value()->exact_only());
      }
    }
  }
}

TEST(VectorIndexTest, RoundTripGivesIdenticalResults) {
  const Data d = MakeData(4500, 16, 30, 31);
  const auto qs = MakeQueries(d, 25, 32);
  const auto dir = std::filesystem::temp_directory_path() / ("attest_vec_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  BitmapFilter f(d.n, 0.2, 33);
  for (auto kind : {VectorIndexKind::kFlat, VectorIndexKind::kHnsw, VectorIndexKind::kIvfPq}) {
    auto idx = BuildOrDie(d, kind, "embedder=x;crc=1234");
    const auto path = dir / (std::string(VectorIndexKindName(kind)) + ".vec");
    ASSERT_TRUE(idx->Write(path).ok());
    auto opened = VectorIndex::Open(path);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto from = VectorIndex::FromBytes(idx->Serialize());
    ASSERT_TRUE(from.ok());
    EXPECT_EQ((*opened)->Serialize(), idx->Serialize());
    for (const VectorIndex* v : {opened->get(), from->get()}) {
      EXPECT_EQ(v->tag(), "embedder=x;crc=1234");
      EXPECT_EQ(v->kind(), kind);
      EXPECT_EQ(v->dim(), 16u);
      std::vector<float> a(16), b(16);
      v->Vector(77, a.data());
      EXPECT_EQ(0, std::memcmp(a.data(), d.row(77), sizeof(float) * 16));
      for (const auto& q : qs) {
        EXPECT_EQ(v->Search({q.data(), 10, nullptr}), idx->Search({q.data(), 10, nullptr}));
        EXPECT_EQ(v->Search({q.data(), 7, &f}), idx->Search({q.data(), 7, &f}));
      }
    }
  }
  std::filesystem::remove_all(dir);
}

void ExpectCorrupt(std::string bytes, const std::string& what) {
  auto r = VectorIndex::FromBytes(std::move(bytes));
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << what << ": " << r.status().ToString();
}

void FixCrc(std::string* s) {
  const uint32_t crc = Crc32c(s->data(), s->size() - 8);
  std::memcpy(&(*s)[s->size() - 8], &crc, 4);
}

TEST(VectorIndexTest, CorruptBytesAreRejected) {
  const Data d = MakeData(300, 8, 5, 41);
  for (auto kind : {VectorIndexKind::kFlat, VectorIndexKind::kHnsw}) {
    const std::string good = BuildOrDie(d, kind)->Serialize();
    ASSERT_TRUE(VectorIndex::FromBytes(good).ok());
    std::mt19937_64 rng(42);
    for (int i = 0; i < 300; ++i) {
      std::string s = good;
      s[rng() % s.size()] ^= static_cast<char>(1 + rng() % 255);
      ExpectCorrupt(s, "flipped byte");
    }
    for (size_t len : {size_t{0}, size_t{7}, size_t{100}, good.size() / 2, good.size() - 1}) {
      ExpectCorrupt(good.substr(0, len), "truncated");
    }
    std::string magic = good;
    magic[0] = 'X';
    FixCrc(&magic);
    ExpectCorrupt(magic, "wrong magic");
    std::string version = good;
    version[8] = 9;
    FixCrc(&version);
    ExpectCorrupt(version, "wrong version");
    // Structural edits with a valid checksum: n, dim, section offsets, and the FAISS blob itself.
    for (size_t at : {size_t{16}, size_t{20}, size_t{72}, size_t{80}, size_t{88}, size_t{96}, size_t{13}}) {
      std::string s = good;
      s[at] ^= 0x5a;
      FixCrc(&s);
      ExpectCorrupt(s, "header field " + std::to_string(at));
    }
    if (kind == VectorIndexKind::kHnsw) {
      uint64_t foff;
      std::memcpy(&foff, good.data() + 88, 8);
      int rejected = 0;
      for (int i = 0; i < 200; ++i) {  // edits inside the FAISS blob: rejected or still valid, never a crash
        std::string s = good;
        const size_t at = foff + rng() % (s.size() - 8 - foff);
        s[at] = static_cast<char>(rng());
        FixCrc(&s);
        auto r = VectorIndex::FromBytes(s);
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
          ++rejected;
        } else {
          std::vector<float> q(8, 0.5f);
          EXPECT_LE((*r)->Search({q.data(), 5, nullptr}).size(), 5u);
        }
      }
      EXPECT_GT(rejected, 0);
    }
  }
}

// A segment whose filtered searches are all exact scans (n <= exact_below) gets no graph: the file
// keeps kind HNSW and the raw rows, every search is exact, and a file of the format before graph-less
// HNSW files existed (version 1) may not claim one.
TEST(VectorIndexTest, HnswBelowTheExactThresholdBuildsNoGraph) {
  const Data d = MakeData(3000, 16, 30, 61);
  const auto qs = MakeQueries(d, 20, 62);
  BitmapFilter f(d.n, 0.3, 63);
  auto small = BuildOrDie(d, VectorIndexKind::kHnsw, "t", /*exact_below=*/0);  // default 16,384 >= 3,000
  auto graph = BuildOrDie(d, VectorIndexKind::kHnsw, "t", /*exact_below=*/2999);
  EXPECT_TRUE(small->exact_only());
  EXPECT_FALSE(graph->exact_only());
  EXPECT_EQ(small->kind(), VectorIndexKind::kHnsw);
  const std::string bytes = small->Serialize();
  auto re = VectorIndex::FromBytes(bytes);
  ASSERT_TRUE(re.ok()) << re.status().ToString();
  EXPECT_TRUE((*re)->exact_only());
  EXPECT_EQ((*re)->Serialize(), bytes);
  for (const auto& q : qs) {
    for (const VectorFilter* filter : {static_cast<const VectorFilter*>(nullptr), static_cast<const VectorFilter*>(&f)}) {
      VectorSearchArgs a{q.data(), 10, filter};
      VectorIndex::SearchTrace trace;
      EXPECT_EQ(small->SearchTraced(a, &trace), small->Exact(a));
      EXPECT_TRUE(trace.exact_scan);
      EXPECT_EQ((*re)->Search(a), small->Exact(a));
    }
  }
  std::vector<float> row(16);
  (*re)->Vector(1234, row.data());
  EXPECT_EQ(0, std::memcmp(row.data(), d.row(1234), sizeof(float) * 16));

  std::string v1 = bytes;  // the same graph-less file claiming version 1
  v1[8] = 1;
  FixCrc(&v1);
  ExpectCorrupt(v1, "graph-less HNSW in a version-1 file");
  std::string v1_graph = graph->Serialize();  // a version-1 file with its graph still opens
  v1_graph[8] = 1;
  FixCrc(&v1_graph);
  auto old = VectorIndex::FromBytes(v1_graph);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_FALSE((*old)->exact_only());
  EXPECT_EQ((*old)->Search({qs[0].data(), 10, nullptr}), graph->Search({qs[0].data(), 10, nullptr}));
}

TEST(VectorIndexTest, ConcurrentSearchesAgreeWithSingleThread) {
  const Data d = MakeData(5000, 16, 40, 51);
  const auto qs = MakeQueries(d, 40, 52);
  BitmapFilter f(d.n, 0.1, 53);
  for (auto kind : {VectorIndexKind::kHnsw, VectorIndexKind::kIvfPq}) {
    auto idx = BuildOrDie(d, kind);
    std::vector<std::vector<VectorHit>> expected;
    for (const auto& q : qs) {
      expected.push_back(idx->Search({q.data(), 10, nullptr}));
      VectorSearchArgs a{q.data(), 10, &f};
      a.exact_below = 1;
      expected.push_back(idx->Search(a));
    }
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int rep = 0; rep < 3; ++rep) {
          for (size_t i = 0; i < qs.size(); ++i) {
            mismatches[t] += idx->Search({qs[i].data(), 10, nullptr}) != expected[2 * i];
            VectorSearchArgs a{qs[i].data(), 10, &f};
            a.exact_below = 1;
            mismatches[t] += idx->Search(a) != expected[2 * i + 1];
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int m : mismatches) EXPECT_EQ(m, 0) << VectorIndexKindName(kind);
  }
}

TEST(VectorIndexTest, BuildRejectsBadArguments) {
  VectorBuildArgs a;
  a.dim = 0;
  EXPECT_EQ(VectorIndex::Build(a).status().code(), StatusCode::kInvalidArgument);
  a.dim = 8, a.n = 3;
  EXPECT_EQ(VectorIndex::Build(a).status().code(), StatusCode::kInvalidArgument);  // null vectors
  std::vector<float> x(24, 0.1f);
  a.vectors = x.data();
  a.config.kind = VectorIndexKind::kIvfPq;
  a.config.pq_subquantizers = 3;
  EXPECT_EQ(VectorIndex::Build(a).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace attest
