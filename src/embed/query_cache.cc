#include "embed/query_cache.h"

namespace attest {

std::optional<std::vector<float>> QueryEmbeddingCache::Get(const std::string& embedder_key, const std::string& text) {
  MutexLock lock(mu_);
  auto it = index_.find(Key(embedder_key, text));
  if (it == index_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void QueryEmbeddingCache::Put(const std::string& embedder_key, const std::string& text, std::vector<float> vec) {
  if (capacity_ == 0) return;
  MutexLock lock(mu_);
  std::string key = Key(embedder_key, text);
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->second = std::move(vec);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.emplace_front(key, std::move(vec));
  index_[std::move(key)] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

uint64_t QueryEmbeddingCache::hits() const {
  MutexLock lock(mu_);
  return hits_;
}

uint64_t QueryEmbeddingCache::misses() const {
  MutexLock lock(mu_);
  return misses_;
}

}  // namespace attest
