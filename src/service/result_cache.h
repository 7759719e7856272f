// Bounded LRU caches for the server's stages, with hit/miss counts and TTL (docs/http_api.md,
// "Caches"). Keys are opaque strings that the caller builds from everything that changes the
// result (for retrieval: normalized query, plan, snapshot, permission scope, pipeline version).
//
// The answer cache also indexes each entry by the chunk ids it cites and by its answer id, so that
// a changed chunk or a feedback flag removes every answer that depends on it.
//
// Thread-safety: all methods are safe from any thread (sharded mutexes).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attest::service {

struct CacheStats {
  uint64_t hits = 0, misses = 0, inserts = 0, evictions = 0, invalidations = 0, entries = 0, bytes = 0;
};

class LruCache {
 public:
  // `max_bytes` bounds key + value bytes; `ttl` 0 = entries never expire by age. Each shard gets
  // max_bytes / shards; the shard count is lowered so that every shard has at least 1 KiB.
  LruCache(size_t max_bytes, std::chrono::milliseconds ttl, size_t shards = 16);
  ~LruCache();
  std::optional<std::string> Get(const std::string& key);
  void Put(const std::string& key, std::string value);
  void Erase(const std::string& key);
  void Clear();
  CacheStats stats() const;
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class AnswerCache {
 public:
  AnswerCache(size_t max_bytes, std::chrono::milliseconds ttl);
  ~AnswerCache();
  std::optional<std::string> Get(const std::string& key);
  // `cited_chunks`: the chunk ids the answer cites; `answer_id`: its id (for feedback).
  void Put(const std::string& key, std::string value, const std::vector<uint64_t>& cited_chunks,
           const std::string& answer_id);
  // Removes every entry citing any of `chunks` (a document changed or was deleted); returns count.
  size_t InvalidateChunks(const std::vector<uint64_t>& chunks);
  // Removes the entry of this answer id (feedback flagged it) and remembers the id so the same
  // answer is not cached again; returns whether an entry was removed.
  bool InvalidateAnswer(const std::string& answer_id);
  bool Flagged(const std::string& answer_id) const;
  CacheStats stats() const;
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attest::service
