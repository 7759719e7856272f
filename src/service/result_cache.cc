// Byte-bounded LRU caches with TTL. One unsynchronized LRU core (a list in recency order plus a hash
// index) is shared by the two caches:
//   - LruCache splits the key space over N shards (std::hash of the key), each a core behind its
//     own mutex with max_bytes / N of the budget, so concurrent lookups of different keys rarely
//     contend. The shard count is lowered for small budgets (at least 1 KiB per shard) so that a
//     small cache is not cut into slivers too small to hold an entry.
//   - AnswerCache is a single core behind one mutex (answers are few and large; its reverse
//     indexes, chunk id -> keys and answer id -> keys, must change atomically with the entries).
//
// An entry's charge is its key + value bytes (AnswerCache adds 8 bytes per cited chunk id and the
// answer id, since it stores them for the indexes). An entry larger than the (shard) budget is not
// stored. Expired entries are removed when touched by Get and count as a miss and an eviction.
#include "service/result_cache.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <list>
#include <unordered_map>
#include <unordered_set>

#include "common/thread_annotations.h"

namespace attest::service {
namespace {

using Clock = std::chrono::steady_clock;

// Not thread-safe: the owner holds a mutex around every call.
class LruCore {
 public:
  LruCore(size_t max_bytes, std::chrono::milliseconds ttl) : max_bytes_(max_bytes), ttl_(ttl) {}

  // Keys removed by eviction or expiry are reported through `on_removed` (for reverse indexes).
  using Removed = std::function<void(const std::string& key)>;

  std::optional<std::string> Get(const std::string& key, Clock::time_point now, const Removed& on_removed) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    auto entry = it->second;
    if (ttl_.count() > 0 && now >= entry->expires) {
      ++stats_.misses;
      ++stats_.evictions;
      if (on_removed) on_removed(key);
      Remove(entry);
      return std::nullopt;
    }
    order_.splice(order_.begin(), order_, entry);
    ++stats_.hits;
    return entry->value;
  }

  // Returns false when the entry alone exceeds the budget (nothing is stored; an older entry
  // under the same key is removed, since it is now stale).
  bool Put(const std::string& key, std::string value, size_t extra_charge, Clock::time_point now,
           const Removed& on_removed) {
    size_t charge = key.size() + value.size() + extra_charge;
    auto it = index_.find(key);
    if (it != index_.end()) {
      if (on_removed) on_removed(key);
      Remove(it->second);
    }
    if (charge > max_bytes_) return false;
    while (bytes_ + charge > max_bytes_ && !order_.empty()) {
      auto victim = std::prev(order_.end());
      ++stats_.evictions;
      if (on_removed) on_removed(victim->key);
      Remove(victim);
    }
    order_.push_front(Entry{key, std::move(value), charge, now + ttl_});
    index_.emplace(key, order_.begin());
    bytes_ += charge;
    ++stats_.inserts;
    return true;
  }

  // Explicit removal (invalidation); the caller updates its own indexes.
  bool Erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    Remove(it->second);
    ++stats_.invalidations;
    return true;
  }

  void Clear() {
    stats_.invalidations += index_.size();
    index_.clear();
    order_.clear();
    bytes_ = 0;
  }

  CacheStats stats() const {
    CacheStats s = stats_;
    s.entries = index_.size();
    s.bytes = bytes_;
    return s;
  }

 private:
  struct Entry {
    std::string key;
    std::string value;
    size_t charge;
    Clock::time_point expires;
  };
  using Iter = std::list<Entry>::iterator;

  void Remove(Iter entry) {
    bytes_ -= entry->charge;
    index_.erase(entry->key);
    order_.erase(entry);
  }

  const size_t max_bytes_;
  const std::chrono::milliseconds ttl_;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<std::string, Iter> index_;
  size_t bytes_ = 0;
  CacheStats stats_;
};

void AddStats(CacheStats& into, const CacheStats& s) {
  into.hits += s.hits;
  into.misses += s.misses;
  into.inserts += s.inserts;
  into.evictions += s.evictions;
  into.invalidations += s.invalidations;
  into.entries += s.entries;
  into.bytes += s.bytes;
}

constexpr size_t kMinShardBytes = 1024;

}  // namespace

// ---- LruCache -----------------------------------------------------------------------------

struct LruCache::Impl {
  struct Shard {
    Shard(size_t bytes, std::chrono::milliseconds ttl) : core(bytes, ttl) {}
    mutable Mutex mu;
    LruCore core GUARDED_BY(mu);
  };
  std::vector<std::unique_ptr<Shard>> shards;

  Shard& For(const std::string& key) { return *shards[std::hash<std::string>{}(key) % shards.size()]; }
};

LruCache::LruCache(size_t max_bytes, std::chrono::milliseconds ttl, size_t shards)
    : impl_(std::make_unique<Impl>()) {
  size_t n = std::clamp<size_t>(std::min(shards, max_bytes / kMinShardBytes), 1, 1024);
  for (size_t i = 0; i < n; ++i) impl_->shards.push_back(std::make_unique<Impl::Shard>(max_bytes / n, ttl));
}

LruCache::~LruCache() = default;

std::optional<std::string> LruCache::Get(const std::string& key) {
  auto& shard = impl_->For(key);
  MutexLock lock(shard.mu);
  return shard.core.Get(key, Clock::now(), nullptr);
}

void LruCache::Put(const std::string& key, std::string value) {
  auto& shard = impl_->For(key);
  MutexLock lock(shard.mu);
  shard.core.Put(key, std::move(value), 0, Clock::now(), nullptr);
}

void LruCache::Erase(const std::string& key) {
  auto& shard = impl_->For(key);
  MutexLock lock(shard.mu);
  shard.core.Erase(key);
}

void LruCache::Clear() {
  for (auto& shard : impl_->shards) {
    MutexLock lock(shard->mu);
    shard->core.Clear();
  }
}

CacheStats LruCache::stats() const {
  CacheStats total;
  for (const auto& shard : impl_->shards) {
    MutexLock lock(shard->mu);
    AddStats(total, shard->core.stats());
  }
  return total;
}

// ---- AnswerCache --------------------------------------------------------------------------

namespace {
constexpr size_t kMaxFlagged = 100000;  // the most recent flagged answer ids remembered
}  // namespace

struct AnswerCache::Impl {
  Impl(size_t max_bytes, std::chrono::milliseconds ttl) : core(max_bytes, ttl) {}

  struct Meta {
    std::vector<uint64_t> chunks;
    std::string answer_id;
  };

  mutable Mutex mu;
  LruCore core GUARDED_BY(mu);
  std::unordered_map<std::string, Meta> meta GUARDED_BY(mu);  // cache key -> what it is indexed under
  std::unordered_map<uint64_t, std::unordered_set<std::string>> by_chunk GUARDED_BY(mu);
  std::unordered_map<std::string, std::unordered_set<std::string>> by_answer GUARDED_BY(mu);
  std::unordered_set<std::string> flagged GUARDED_BY(mu);
  std::deque<std::string> flagged_order GUARDED_BY(mu);  // oldest first, for the bound

  // Drops `key` from the reverse indexes (the core entry is removed by the caller / the core).
  void Unindex(const std::string& key) REQUIRES(mu) {
    auto it = meta.find(key);
    if (it == meta.end()) return;
    for (uint64_t c : it->second.chunks) {
      auto b = by_chunk.find(c);
      if (b == by_chunk.end()) continue;
      b->second.erase(key);
      if (b->second.empty()) by_chunk.erase(b);
    }
    if (!it->second.answer_id.empty()) {
      auto a = by_answer.find(it->second.answer_id);
      if (a != by_answer.end()) {
        a->second.erase(key);
        if (a->second.empty()) by_answer.erase(a);
      }
    }
    meta.erase(it);
  }

  // Removes `key` from the core and the indexes; returns whether it was present.
  bool EraseKey(const std::string& key) REQUIRES(mu) {
    Unindex(key);
    return core.Erase(key);
  }

  void Flag(const std::string& answer_id) REQUIRES(mu) {
    if (!flagged.insert(answer_id).second) return;
    flagged_order.push_back(answer_id);
    while (flagged_order.size() > kMaxFlagged) {
      flagged.erase(flagged_order.front());
      flagged_order.pop_front();
    }
  }
};

AnswerCache::AnswerCache(size_t max_bytes, std::chrono::milliseconds ttl)
    : impl_(std::make_unique<Impl>(max_bytes, ttl)) {}

AnswerCache::~AnswerCache() = default;

std::optional<std::string> AnswerCache::Get(const std::string& key) {
  Impl& m = *impl_;
  MutexLock lock(m.mu);
  return m.core.Get(key, Clock::now(), [&m](const std::string& k) REQUIRES(m.mu) { m.Unindex(k); });
}

void AnswerCache::Put(const std::string& key, std::string value, const std::vector<uint64_t>& cited_chunks,
                      const std::string& answer_id) {
  Impl& m = *impl_;
  MutexLock lock(m.mu);
  if (!answer_id.empty() && m.flagged.count(answer_id)) {
    // Flagged by feedback: never cached again; drop any stale entry under this key too.
    m.EraseKey(key);
    return;
  }
  std::vector<uint64_t> chunks = cited_chunks;
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  size_t extra = chunks.size() * sizeof(uint64_t) + answer_id.size();
  bool stored = m.core.Put(key, std::move(value), extra, Clock::now(), [&m](const std::string& k) REQUIRES(m.mu) { m.Unindex(k); });
  if (!stored) return;
  for (uint64_t c : chunks) m.by_chunk[c].insert(key);
  if (!answer_id.empty()) m.by_answer[answer_id].insert(key);
  m.meta[key] = Impl::Meta{std::move(chunks), answer_id};
}

size_t AnswerCache::InvalidateChunks(const std::vector<uint64_t>& chunks) {
  Impl& m = *impl_;
  MutexLock lock(m.mu);
  std::unordered_set<std::string> keys;
  for (uint64_t c : chunks) {
    auto it = m.by_chunk.find(c);
    if (it != m.by_chunk.end()) keys.insert(it->second.begin(), it->second.end());
  }
  size_t removed = 0;
  for (const auto& k : keys) removed += m.EraseKey(k) ? 1 : 0;
  return removed;
}

bool AnswerCache::InvalidateAnswer(const std::string& answer_id) {
  Impl& m = *impl_;
  MutexLock lock(m.mu);
  if (answer_id.empty()) return false;
  m.Flag(answer_id);
  auto it = m.by_answer.find(answer_id);
  if (it == m.by_answer.end()) return false;
  std::vector<std::string> keys(it->second.begin(), it->second.end());  // EraseKey edits the set
  bool removed = false;
  for (const auto& k : keys) removed = m.EraseKey(k) || removed;
  return removed;
}

bool AnswerCache::Flagged(const std::string& answer_id) const {
  MutexLock lock(impl_->mu);
  return impl_->flagged.count(answer_id) > 0;
}

CacheStats AnswerCache::stats() const {
  MutexLock lock(impl_->mu);
  return impl_->core.stats();
}

}  // namespace attest::service
