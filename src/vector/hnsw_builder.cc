#include "vector/hnsw_builder.h"

#include <faiss/impl/HNSW.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "vector/inner_product.h"

namespace attest {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
constexpr size_t kLockStripes = 1 << 14;  // node i is guarded by lock i % kLockStripes

struct Cand {
  float s;  // similarity to the node being inserted (higher = closer)
  uint32_t id;
};
struct WorseFirst {  // heap order keeping the worst candidate on top
  bool operator()(const Cand& a, const Cand& b) const { return a.s > b.s || (a.s == b.s && a.id < b.id); }
};
struct BestFirst {
  bool operator()(const Cand& a, const Cand& b) const { return a.s < b.s || (a.s == b.s && a.id > b.id); }
};

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// One thread's reusable state.
struct Scratch {
  std::vector<uint32_t> mark;
  uint32_t gen = 0;
  std::vector<Cand> cand, top, pool;
  std::vector<uint32_t> links;
  std::vector<Cand> kept, chosen;

  void Begin(size_t n) {
    if (mark.size() < n) mark.assign(n, 0);
    if (++gen == 0) {
      std::fill(mark.begin(), mark.end(), 0);
      gen = 1;
    }
  }
  bool Visit(uint32_t i) {
    if (mark[i] == gen) return false;
    mark[i] = gen;
    return true;
  }
};

class Builder {
 public:
  Builder(const HnswBuildArgs& a, faiss::HNSW* h) : a_(a), h_(*h), locks_(kLockStripes) {}

  void PrepareLevels() {
    h_.levels.resize(a_.n);
    h_.offsets.assign(1, 0);
    h_.offsets.reserve(size_t(a_.n) + 1);
    const double kScale = 1.0 / 9007199254740992.0;  // 2^-53
    for (uint32_t i = 0; i < a_.n; ++i) {
      double f = double(SplitMix64(a_.seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ULL)) >> 11) * kScale;
      int level = int(h_.assign_probas.size()) - 1;
      for (size_t l = 0; l < h_.assign_probas.size(); ++l) {
        if (f < h_.assign_probas[l]) {
          level = int(l);
          break;
        }
        f -= h_.assign_probas[l];
      }
      h_.levels[i] = level + 1;
      h_.offsets.push_back(h_.offsets.back() + size_t(h_.cum_nb_neighbors(level + 1)));
    }
    h_.neighbors.assign(h_.offsets.back(), -1);
  }

  void Run() {
    if (a_.n == 0) return;
    entry_ = 0;
    max_level_ = h_.levels[0] - 1;
    const uint32_t threads = std::max<uint32_t>(1, std::min<uint32_t>(a_.threads, a_.n));
    std::atomic<uint32_t> next{1};
    auto work = [&] {
      Scratch s;
      for (uint32_t q = next.fetch_add(1); q < a_.n; q = next.fetch_add(1)) Insert(q, s);
    };
    std::vector<std::thread> pool;
    for (uint32_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    h_.entry_point = static_cast<faiss::HNSW::storage_idx_t>(entry_);
    h_.max_level = max_level_;
  }

 private:
  const float* row(uint32_t i) const { return a_.vectors + size_t(i) * a_.dim; }
  float Sim(uint32_t x, uint32_t y) const { return InnerProduct(row(x), row(y), a_.dim); }
  // Starts loading a row into the cache.
  void Prefetch(const float* r) const {
    const char* p = reinterpret_cast<const char*>(r);
    const size_t bytes = size_t(a_.dim) * sizeof(float);
    for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o);
  }
  std::mutex& LockOf(uint32_t i) { return locks_[i % kLockStripes]; }
  int* Slots(uint32_t node, int level, size_t* count) {
    size_t b, e;
    h_.neighbor_range(node, level, &b, &e);
    *count = e - b;
    return h_.neighbors.data() + b;
  }

  // Copies node's links on `level` (under its lock).
  void ReadLinks(uint32_t node, int level, std::vector<uint32_t>* out) {
    out->clear();
    size_t cap;
    const int* slots = Slots(node, level, &cap);
    std::lock_guard<std::mutex> g(LockOf(node));
    for (size_t j = 0; j < cap && slots[j] >= 0; ++j) out->push_back(static_cast<uint32_t>(slots[j]));
  }

  // Beam search for q on `level` from the entry candidates already in s.top (best ef kept in s.top).
  void SearchLayer(uint32_t q, int level, Scratch& s) {
    const size_t ef = std::max<size_t>(a_.ef_construction, 1);
    s.cand = s.top;
    std::make_heap(s.cand.begin(), s.cand.end(), BestFirst());
    std::make_heap(s.top.begin(), s.top.end(), WorseFirst());
    while (!s.cand.empty()) {
      const Cand c = s.cand.front();
      if (s.top.size() >= ef && c.s < s.top.front().s) break;
      std::pop_heap(s.cand.begin(), s.cand.end(), BestFirst());
      s.cand.pop_back();
      ReadLinks(c.id, level, &s.links);
      size_t fresh = 0;  // the unvisited links, compacted; the next one's row is fetched ahead
      for (uint32_t v : s.links) {
        if (s.Visit(v)) s.links[fresh++] = v;
      }
      for (size_t j = 0; j < fresh && j < 2; ++j) Prefetch(row(s.links[j]));
      for (size_t j = 0; j < fresh; ++j) {
        const uint32_t v = s.links[j];
        if (j + 2 < fresh) Prefetch(row(s.links[j + 2]));
        const float vs = Sim(q, v);
        if (s.top.size() < ef || vs > s.top.front().s) {
          s.cand.push_back({vs, v});
          std::push_heap(s.cand.begin(), s.cand.end(), BestFirst());
          s.top.push_back({vs, v});
          std::push_heap(s.top.begin(), s.top.end(), WorseFirst());
          if (s.top.size() > ef) {
            std::pop_heap(s.top.begin(), s.top.end(), WorseFirst());
            s.top.pop_back();
          }
        }
      }
    }
  }

  // The paper's neighbour heuristic over `pool` (similarities to `base`), best first: keeps a
  // candidate only if it is more similar to base than to every candidate kept before it.
  void SelectNeighbors(std::vector<Cand>* pool, size_t max, std::vector<Cand>* kept) {
    std::sort(pool->begin(), pool->end(), [](const Cand& x, const Cand& y) { return BestFirst()(y, x); });
    kept->clear();
    for (const Cand& c : *pool) {
      if (kept->size() >= max) break;
      bool good = true;
      for (const Cand& r : *kept) {
        if (Sim(c.id, r.id) > c.s) {
          good = false;
          break;
        }
      }
      if (good) kept->push_back(c);
    }
  }

  void Link(uint32_t q, int level, Scratch& s) {
    size_t cap;
    int* mine = Slots(q, level, &cap);
    s.pool = s.top;
    SelectNeighbors(&s.pool, cap, &s.kept);
    s.chosen = s.kept;
    {
      // Threads inserting q's neighbours may already have linked back to q on this level: keep
      // their links too, re-selecting when the union does not fit.
      std::lock_guard<std::mutex> g(LockOf(q));
      size_t count = 0;
      while (count < cap && mine[count] >= 0) ++count;
      if (count > 0) {
        s.pool = s.chosen;
        for (size_t j = 0; j < count; ++j) {
          const uint32_t v = static_cast<uint32_t>(mine[j]);
          bool known = false;
          for (const Cand& c : s.chosen) known = known || c.id == v;
          if (!known) s.pool.push_back({Sim(q, v), v});
        }
        if (s.pool.size() > cap) SelectNeighbors(&s.pool, cap, &s.kept); else s.kept = s.pool;
      }
      for (size_t j = 0; j < cap; ++j) mine[j] = j < s.kept.size() ? static_cast<int>(s.kept[j].id) : -1;
    }
    for (const Cand& nb : s.chosen) {
      size_t ncap;
      int* theirs = Slots(nb.id, level, &ncap);
      std::lock_guard<std::mutex> g(LockOf(nb.id));
      size_t count = 0;
      bool present = false;
      for (; count < ncap && theirs[count] >= 0; ++count) {
        if (theirs[count] == static_cast<int>(q)) present = true;
      }
      if (present) continue;
      if (count < ncap) {
        theirs[count] = static_cast<int>(q);
        continue;
      }
      // Full: re-select among the current links and q, by similarity to the neighbour.
      s.pool.clear();
      s.pool.push_back({nb.s, q});
      for (size_t j = 0; j < ncap; ++j) {
        const uint32_t v = static_cast<uint32_t>(theirs[j]);
        if (j + 2 < ncap) Prefetch(row(static_cast<uint32_t>(theirs[j + 2])));
        s.pool.push_back({Sim(nb.id, v), v});
      }
      SelectNeighbors(&s.pool, ncap, &s.kept);
      for (size_t j = 0; j < ncap; ++j) theirs[j] = j < s.kept.size() ? static_cast<int>(s.kept[j].id) : -1;
    }
  }

  void Insert(uint32_t q, Scratch& s) {
    const int level = h_.levels[q] - 1;
    uint32_t ep;
    int top_level;
    {
      std::lock_guard<std::mutex> g(entry_mu_);
      ep = entry_;
      top_level = max_level_;
    }
    float ep_s = Sim(q, ep);
    for (int l = top_level; l > level; --l) {  // greedy descent above q's own levels
      for (bool moved = true; moved;) {
        moved = false;
        ReadLinks(ep, l, &s.links);
        for (uint32_t v : s.links) {
          const float vs = Sim(q, v);
          if (vs > ep_s) ep = v, ep_s = vs, moved = true;
        }
      }
    }
    s.top.assign(1, {ep_s, ep});
    for (int l = std::min(level, top_level); l >= 0; --l) {
      s.Begin(a_.n);
      s.Visit(q);
      for (const Cand& c : s.top) s.Visit(c.id);
      SearchLayer(q, l, s);
      Link(q, l, s);
    }
    if (level > top_level) {
      std::lock_guard<std::mutex> g(entry_mu_);
      if (level > max_level_) {
        entry_ = q;
        max_level_ = level;
      }
    }
  }

  const HnswBuildArgs& a_;
  faiss::HNSW& h_;
  std::vector<std::mutex> locks_;
  std::mutex entry_mu_;
  uint32_t entry_ = kNone;
  int max_level_ = -1;
};

}  // namespace

Status BuildHnswGraph(const HnswBuildArgs& args, faiss::HNSW* hnsw) {
  if (hnsw == nullptr || (args.n > 0 && args.vectors == nullptr) || args.dim == 0) {
    return Status::InvalidArgument("hnsw build: vectors, dim and an output graph are required");
  }
  if (!hnsw->levels.empty() || hnsw->offsets.size() != 1 || hnsw->cum_nneighbor_per_level.size() < 2) {
    return Status::InvalidArgument("hnsw build: the output graph must be freshly constructed");
  }
  if (args.n > uint32_t(INT32_MAX)) return Status::InvalidArgument("hnsw build: too many rows for FAISS's ids");
  Builder b(args, hnsw);
  b.PrepareLevels();
  b.Run();
  return Status::Ok();
}

}  // namespace attest
