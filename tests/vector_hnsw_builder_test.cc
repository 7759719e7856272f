// The HNSW builder (vector/hnsw_builder.h): a valid FAISS graph layout, deterministic on one thread,
// connected, and at least as good as FAISS's own construction when both graphs are searched by
// FAISS's own search with the same parameters (recall@10 against a brute force).
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>

#include <gtest/gtest.h>

#include <iostream>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "vector/hnsw_builder.h"

namespace attest {
namespace {

struct Rows {
  uint32_t n = 0, dim = 0;
  std::vector<float> x;
};

void Normalize(float* v, uint32_t d) {
  double s = 0;
  for (uint32_t i = 0; i < d; ++i) s += double(v[i]) * v[i];
  for (uint32_t i = 0; i < d; ++i) v[i] = float(v[i] / std::sqrt(s));
}

Rows Clustered(uint32_t n, uint32_t dim, uint32_t clusters, uint64_t seed) {
  Rows r{n, dim, std::vector<float>(size_t(n) * dim)};
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0, 1), e(0, 0.2f);
  std::vector<float> c(size_t(clusters) * dim);
  for (auto& v : c) v = g(rng);
  for (uint32_t i = 0; i < n; ++i) {
    const float* cc = &c[size_t(rng() % clusters) * dim];
    for (uint32_t j = 0; j < dim; ++j) r.x[size_t(i) * dim + j] = cc[j] + e(rng);
    Normalize(&r.x[size_t(i) * dim], dim);
  }
  return r;
}

std::unique_ptr<faiss::IndexHNSWFlat> OurIndex(const Rows& r, uint32_t m, uint32_t efc, uint32_t threads) {
  auto idx = std::make_unique<faiss::IndexHNSWFlat>(int(r.dim), int(m), faiss::METRIC_INNER_PRODUCT);
  idx->storage->add(r.n, r.x.data());
  idx->ntotal = r.n;
  HnswBuildArgs a;
  a.vectors = r.x.data();
  a.n = r.n;
  a.dim = r.dim;
  a.ef_construction = efc;
  a.threads = threads;
  const Status s = BuildHnswGraph(a, &idx->hnsw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return idx;
}

// Every list is a prefix of valid, distinct, non-self ids followed by -1 padding.
void ExpectValidLayout(const faiss::HNSW& h, uint32_t n) {
  ASSERT_EQ(h.levels.size(), n);
  ASSERT_EQ(h.offsets.size(), size_t(n) + 1);
  ASSERT_EQ(h.offsets[n], h.neighbors.size());
  ASSERT_GE(h.entry_point, 0);
  ASSERT_EQ(h.levels[h.entry_point], h.max_level + 1) << "the entry point is on the top level";
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_GE(h.levels[i], 1);
    ASSERT_LE(h.levels[i], h.max_level + 1);
    for (int l = 0; l < h.levels[i]; ++l) {
      size_t b, e;
      h.neighbor_range(i, l, &b, &e);
      std::set<int> seen;
      bool padding = false;
      for (size_t j = b; j < e; ++j) {
        const int v = h.neighbors[j];
        if (v < 0) {
          padding = true;
          continue;
        }
        ASSERT_FALSE(padding) << "a link after the padding, node " << i << " level " << l;
        ASSERT_LT(v, int(n));
        ASSERT_NE(v, int(i)) << "self link";
        ASSERT_TRUE(seen.insert(v).second) << "duplicate link, node " << i << " level " << l;
        ASSERT_GE(h.levels[v], l + 1) << "a link to a node that is not on this level";
      }
    }
  }
}

double Recall(faiss::IndexHNSWFlat& idx, const Rows& r, const std::vector<float>& qs, uint32_t nq, int ef) {
  faiss::IndexFlatIP brute(int(r.dim));
  brute.add(r.n, r.x.data());
  const int k = 10;
  std::vector<float> d1(size_t(nq) * k), d2(size_t(nq) * k);
  std::vector<faiss::Index::idx_t> i1(size_t(nq) * k), i2(size_t(nq) * k);
  brute.search(nq, qs.data(), k, d1.data(), i1.data());
  idx.hnsw.efSearch = ef;  // (FAISS 1.7.3's search ignores SearchParametersHNSW::efSearch)
  idx.search(nq, qs.data(), k, d2.data(), i2.data());
  size_t hit = 0;
  for (uint32_t q = 0; q < nq; ++q) {
    std::set<faiss::Index::idx_t> truth(i1.begin() + q * k, i1.begin() + (q + 1) * k);
    for (int j = 0; j < k; ++j) hit += truth.count(i2[size_t(q) * k + j]);
  }
  return double(hit) / (double(nq) * k);
}

std::vector<float> Queries(const Rows& r, uint32_t nq, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> e(0, 0.1f);
  std::vector<float> qs(size_t(nq) * r.dim);
  for (uint32_t q = 0; q < nq; ++q) {
    const float* row = &r.x[size_t(rng() % r.n) * r.dim];
    for (uint32_t j = 0; j < r.dim; ++j) qs[size_t(q) * r.dim + j] = row[j] + e(rng);
    Normalize(&qs[size_t(q) * r.dim], r.dim);
  }
  return qs;
}

TEST(HnswBuilderTest, ValidLayoutAndDeterministicOnOneThread) {
  const Rows r = Clustered(4000, 24, 40, 3);
  auto a = OurIndex(r, 8, 40, 1);
  auto b = OurIndex(r, 8, 40, 1);
  ExpectValidLayout(a->hnsw, r.n);
  EXPECT_EQ(a->hnsw.neighbors, b->hnsw.neighbors);
  EXPECT_EQ(a->hnsw.levels, b->hnsw.levels);
  EXPECT_EQ(a->hnsw.entry_point, b->hnsw.entry_point);
  EXPECT_GE(a->hnsw.max_level, 1) << "4,000 rows with M=8 should reach level 1";
}

TEST(HnswBuilderTest, ConcurrentBuildIsValidAndConnected) {
  const Rows r = Clustered(12000, 32, 60, 4);
  auto idx = OurIndex(r, 12, 60, 4);
  const faiss::HNSW& h = idx->hnsw;
  ExpectValidLayout(h, r.n);
  // Level 0 reachable from the entry point: every row can be found by the walk.
  std::vector<char> seen(r.n, 0);
  std::vector<int> todo{h.entry_point};
  seen[h.entry_point] = 1;
  size_t reached = 1;
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    size_t b, e;
    h.neighbor_range(v, 0, &b, &e);
    for (size_t j = b; j < e && h.neighbors[j] >= 0; ++j) {
      if (!seen[h.neighbors[j]]) seen[h.neighbors[j]] = 1, ++reached, todo.push_back(h.neighbors[j]);
    }
  }
  EXPECT_GE(double(reached) / r.n, 0.999) << reached << " of " << r.n << " rows reachable on level 0";
}

TEST(HnswBuilderTest, RecallAtLeastFaissOwnConstruction) {
  const Rows r = Clustered(10000, 32, 100, 5);
  const std::vector<float> qs = Queries(r, 300, 6);
  auto ours = OurIndex(r, 16, 100, 2);
  faiss::IndexHNSWFlat theirs(int(r.dim), 16, faiss::METRIC_INNER_PRODUCT);
  theirs.hnsw.efConstruction = 100;
  theirs.add(r.n, r.x.data());
  for (int ef : {16, 64}) {
    const double ro = Recall(*ours, r, qs, 300, ef), rt = Recall(theirs, r, qs, 300, ef);
    EXPECT_GE(ro, rt - 0.01) << "efSearch " << ef << ": ours " << ro << ", FAISS's " << rt;
    if (ef == 64) EXPECT_GE(ro, 0.9) << "FAISS's: " << rt;
    std::cout << "efSearch " << ef << ": recall@10 ours " << ro << ", FAISS's construction " << rt << "\n";
  }
}

TEST(HnswBuilderTest, RejectsAGraphThatIsNotFresh) {
  const Rows r = Clustered(100, 8, 4, 7);
  auto idx = OurIndex(r, 8, 20, 1);
  HnswBuildArgs a;
  a.vectors = r.x.data();
  a.n = r.n;
  a.dim = r.dim;
  EXPECT_EQ(BuildHnswGraph(a, &idx->hnsw).code(), StatusCode::kInvalidArgument);
  a.vectors = nullptr;
  faiss::HNSW fresh(8);
  EXPECT_EQ(BuildHnswGraph(a, &fresh).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace attest
