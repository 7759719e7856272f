// VectorIndex search paths: exact scans (the oracle and the narrow-filter path), the HNSW walk over
// the FAISS graph, IVF-PQ with a FAISS IDSelector and exact re-scoring, and the fallback logic.
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/utils/distances.h>

#include <algorithm>
#include <cmath>
#include <queue>

#include "vector/inner_product.h"
#include "vector/vector_index.h"

namespace attest {
namespace {

// Score descending, then local ascending.
struct Better {
  bool operator()(const VectorHit& a, const VectorHit& b) const {
    return a.score > b.score || (a.score == b.score && a.local < b.local);
  }
};

// Keeps the best k hits under Better (a strict total order, so the set is unique). Hits go to a
// buffer; when it holds 2k (at least 256), nth_element keeps the best k and the worst of them becomes
// the bar a later hit must beat. Cheaper than a heap when many hits replace kept ones (a scan for
// the several hundred candidates fusion wants). Take() returns them sorted by Better.
class TopK {
 public:
  explicit TopK(size_t k) : k_(k), cap_(std::max<size_t>(2 * k, 256)) {}
  void Push(uint32_t local, float score) {
    if (k_ == 0) return;
    const VectorHit h{local, score};
    // (Most rows of a scan score below the bar and stop at the first comparison.)
    if (has_bar_ && (score < bar_.score || !Better()(h, bar_))) return;
    buf_.push_back(h);
    if (buf_.size() >= cap_) Keep();
  }
  std::vector<VectorHit> Take() {
    if (buf_.size() > k_) Keep();
    std::sort(buf_.begin(), buf_.end(), Better());
    return std::move(buf_);
  }

 private:
  void Keep() {
    std::nth_element(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(k_ - 1), buf_.end(), Better());
    buf_.resize(k_);
    bar_ = buf_[k_ - 1];  // the k-th best: every kept hit is at least as good
    has_bar_ = true;
  }
  size_t k_, cap_;
  std::vector<VectorHit> buf_;
  VectorHit bar_{};
  bool has_bar_ = false;
};

// Adapts a VectorFilter to FAISS (used by IVF-PQ through SearchParametersIVF::sel).
struct FilterSelector : faiss::IDSelector {
  FilterSelector(const VectorFilter* f, uint32_t n) : filter(f), n(n) {}
  bool is_member(idx_t id) const override {
    return id >= 0 && id < static_cast<idx_t>(n) && filter->Admits(static_cast<uint32_t>(id));
  }
  const VectorFilter* filter;
  uint32_t n;
};

// Per-thread visited marks (generation-stamped, so no clearing between queries).
struct Visited {
  std::vector<uint32_t> mark;
  uint32_t gen = 0;
  void Begin(size_t n) {
    if (mark.size() < n) mark.resize(n, 0);
    if (++gen == 0) {
      std::fill(mark.begin(), mark.end(), 0);
      gen = 1;
    }
  }
  bool TestAndSet(size_t i) {
    if (mark[i] == gen) return true;
    mark[i] = gen;
    return false;
  }
};

}  // namespace

std::vector<VectorHit> VectorIndex::ScanRows(const float* q, size_t k, const std::vector<uint32_t>& rows) const {
  TopK top(k);
  for (const uint32_t r : rows) {
    if (r < n_) top.Push(r, InnerProduct(q, row(r), dim_));
  }
  return top.Take();
}

std::vector<VectorHit> VectorIndex::ScanAll(const float* q, size_t k, const VectorFilter* filter) const {
  TopK top(k);
  for (uint32_t r = 0; r < n_; ++r) {
    if (filter == nullptr || filter->Admits(r)) top.Push(r, InnerProduct(q, row(r), dim_));
  }
  return top.Take();
}

std::vector<VectorHit> VectorIndex::ExactFallback(const float* q, size_t k, const VectorFilter* filter) const {
  if (filter != nullptr && filter->EstimatedCount() <= static_cast<uint64_t>(n_) / 4) {
    return ScanRows(q, k, filter->Materialize());
  }
  return ScanAll(q, k, filter);
}

std::vector<VectorHit> VectorIndex::Exact(const VectorSearchArgs& args) const {
  if (args.query == nullptr || args.k == 0 || n_ == 0) return {};
  if (faiss::fvec_norm_L2sqr(args.query, dim_) == 0.0f) return {};
  return ScanAll(args.query, std::min<size_t>(args.k, n_), args.filter);
}

std::vector<VectorHit> VectorIndex::Search(const VectorSearchArgs& args) const {
  return SearchTraced(args, nullptr);
}

std::vector<VectorHit> VectorIndex::SearchTraced(const VectorSearchArgs& args, SearchTrace* trace) const {
  SearchTrace local_trace;
  SearchTrace& t = trace ? *trace : local_trace;
  t = SearchTrace();
  if (args.query == nullptr || args.k == 0 || n_ == 0) return {};
  const float norm2 = faiss::fvec_norm_L2sqr(args.query, dim_);
  if (!(norm2 > 0.0f) || !std::isfinite(norm2)) return {};  // zero (or non-finite) query
  const float* q = args.query;
  const size_t k = std::min<size_t>(args.k, n_);
  const VectorFilter* f = args.filter;
  uint64_t admitted = n_;
  if (f != nullptr) {
    admitted = std::min<uint64_t>(f->EstimatedCount(), n_);
    if (admitted == 0) return {};
    if (admitted <= exact_below(args)) {
      t.exact_scan = true;
      return ScanRows(q, k, f->Materialize());
    }
  }
  std::vector<VectorHit> hits;
  if (hnsw_ != nullptr) {
    // The walk counts only admitted rows toward ef, so a filter makes it explore further. Its
    // cost is capped: once it has computed more distances than the admitted rows it stops and the
    // exact scan (cheaper by then) answers instead.
    const size_t ef = std::max<size_t>(k, args.ef_search ? args.ef_search : config_.hnsw_ef_search);
    hits = HnswSearch(q, k, ef, f, f != nullptr ? std::max<uint64_t>(admitted, 4096) : UINT64_MAX);
  } else if (ivfpq_ != nullptr) {
    hits = IvfPqSearch(q, k, f);
  } else {
    t.exact_scan = true;
    return ScanAll(q, k, f);
  }
  if (hits.size() < k) {
    t.fallback = true;
    return ExactFallback(q, k, f);
  }
  return hits;
}

std::vector<VectorHit> VectorIndex::HnswSearch(const float* q, size_t k, size_t ef, const VectorFilter* f,
                                               uint64_t budget) const {
  const faiss::HNSW& h = hnsw_->hnsw;
  thread_local Visited visited;
  visited.Begin(n_);
  auto ip = [&](int v) { return InnerProduct(q, row(static_cast<uint32_t>(v)), dim_); };

  // Greedy descent through the upper levels.
  int cur = h.entry_point;
  float cur_s = ip(cur);
  for (int level = h.max_level; level >= 1; --level) {
    bool changed = true;
    while (changed) {
      changed = false;
      size_t b, e;
      h.neighbor_range(cur, level, &b, &e);
      for (size_t j = b; j < e; ++j) {
        const int v = h.neighbors[j];
        if (v < 0) break;
        const float s = ip(v);
        if (s > cur_s) cur = v, cur_s = s, changed = true;
      }
    }
  }

  // Beam search on level 0; rejected rows are walked through but never enter `top`.
  using Node = std::pair<float, int>;
  std::priority_queue<Node> cand;                                        // best first
  std::priority_queue<Node, std::vector<Node>, std::greater<Node>> top;  // worst first
  visited.TestAndSet(cur);
  cand.emplace(cur_s, cur);
  if (f == nullptr || f->Admits(cur)) top.emplace(cur_s, cur);
  while (!cand.empty()) {
    const auto [s, c] = cand.top();
    if (top.size() >= ef && s < top.top().first) break;
    cand.pop();
    size_t b, e;
    h.neighbor_range(c, 0, &b, &e);
    for (size_t j = b; j < e; ++j) {
      const int v = h.neighbors[j];
      if (v < 0) break;
      if (visited.TestAndSet(v)) continue;
      if (--budget == 0) return {};  // too expensive for this filter: the caller scans exactly
      const float vs = ip(v);
      if (top.size() < ef || vs > top.top().first) {
        cand.emplace(vs, v);
        if (f == nullptr || f->Admits(v)) {
          top.emplace(vs, v);
          if (top.size() > ef) top.pop();
        }
      }
    }
  }
  TopK best(k);
  while (!top.empty()) {
    best.Push(static_cast<uint32_t>(top.top().second), top.top().first);
    top.pop();
  }
  return best.Take();
}

std::vector<VectorHit> VectorIndex::IvfPqSearch(const float* q, size_t k, const VectorFilter* f) const {
  FilterSelector sel(f, n_);
  const size_t nlist = ivfpq_->nlist;
  size_t probe = config_.ivf_probe ? config_.ivf_probe : std::max<size_t>(8, nlist / 16);
  const size_t want = std::min<size_t>(n_, k * std::max<uint32_t>(1, config_.rescore_factor));
  std::vector<float> dist(want);
  std::vector<faiss::Index::idx_t> labels(want);
  for (;;) {
    faiss::SearchParametersIVF params;
    params.nprobe = std::min(probe, nlist);
    params.sel = f ? &sel : nullptr;
    try {
      ivfpq_->search(1, q, static_cast<faiss::Index::idx_t>(want), dist.data(), labels.data(), &params);
    } catch (const std::exception&) {
      return {};  // the caller falls back to the exact scan
    }
    TopK top(k);
    size_t found = 0;
    for (const auto l : labels) {
      if (l < 0 || l >= static_cast<faiss::Index::idx_t>(n_)) continue;
      ++found;
      top.Push(static_cast<uint32_t>(l), InnerProduct(q, row(static_cast<uint32_t>(l)), dim_));
    }
    if (found >= k || probe >= nlist) return top.Take();
    probe *= 4;  // a selective filter left too few candidates in the probed lists
  }
}

}  // namespace attest
