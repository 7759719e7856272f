// An LRU cache of query embeddings keyed by (embedder identity key, query text): repeated and
// follow-up queries skip the embedder (a network round trip for a remote one).
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"

namespace attest {

class QueryEmbeddingCache {
 public:
  explicit QueryEmbeddingCache(size_t capacity = 32768) : capacity_(capacity) {}

  std::optional<std::vector<float>> Get(const std::string& embedder_key, const std::string& text);
  void Put(const std::string& embedder_key, const std::string& text, std::vector<float> vec);

  uint64_t hits() const;
  uint64_t misses() const;

 private:
  using Entry = std::pair<std::string, std::vector<float>>;
  // Length-prefixed, so no (identity, text) pair can collide with another.
  static std::string Key(const std::string& embedder_key, const std::string& text) {
    return std::to_string(embedder_key.size()) + ':' + embedder_key + text;
  }
  const size_t capacity_;
  mutable Mutex mu_;
  std::list<Entry> lru_ GUARDED_BY(mu_);  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_ GUARDED_BY(mu_);
  uint64_t hits_ GUARDED_BY(mu_) = 0;
  uint64_t misses_ GUARDED_BY(mu_) = 0;
};

}  // namespace attest
