// CachedFetcher: a page cache in front of the guarded Fetcher, so repeated live fetches of the same
// URL within one answer or across answers cost nothing or a revalidation.
//
// - Keyed by the URL as given (callers pass the canonical URL). Only 200 responses are stored,
//   never one marked "Cache-Control: no-store" or larger than the cache itself.
// - Fresh for a TTL chosen by content type (the first matching media-type prefix of
//   PageCacheOptions::ttl_by_type, else default_ttl), shortened by "Cache-Control: max-age" when
//   the server asks for less; "no-cache" makes an entry stale at once.
// - A stale entry with an ETag or Last-Modified is revalidated: the request carries If-None-Match /
//   If-Modified-Since, a 304 refreshes the entry and serves its body (CacheUse::kRevalidated), a 200
//   replaces it. A stale entry without validators is fetched again.
// - Bounded by the bytes of the bodies and URLs it holds, least recently used evicted first.
// - A request that carries its own validators bypasses the cache (the caller runs its own
//   revalidation, e.g. the crawler's per-page state) and is passed through unchanged.
// - Errors are never cached: a failed fetch of a stale URL returns the error.
//
// Thread-safety: Fetch() may be called from any number of threads at once; the cache map is
// guarded by a mutex held only around lookups and updates, never during a fetch (two threads
// missing the same URL both fetch it; the later store wins).
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attest/clock.h"
#include "common/thread_annotations.h"
#include "crawl/fetcher.h"

namespace attest {

struct PageCacheOptions {
  size_t max_bytes = size_t{64} << 20;
  // Media-type prefixes (lowercase) and their freshness, first match wins.
  std::vector<std::pair<std::string, std::chrono::seconds>> ttl_by_type = {
      {"application/rss+xml", std::chrono::seconds(300)},
      {"application/atom+xml", std::chrono::seconds(300)},
      {"text/html", std::chrono::seconds(600)},
      {"application/xhtml+xml", std::chrono::seconds(600)},
      {"text/plain", std::chrono::seconds(3600)},
      {"application/pdf", std::chrono::seconds(86400)},
  };
  std::chrono::seconds default_ttl{300};
  const Clock* clock = nullptr;  // nullptr = RealClock()
};

struct PageCacheStats {
  uint64_t hits = 0;
  uint64_t revalidated = 0;  // 304 answers that refreshed an entry
  uint64_t misses = 0;       // fetched in full (absent, stale without validators, or changed)
  uint64_t evictions = 0;
  size_t entries = 0;
  size_t bytes = 0;
};

class CachedFetcher {
 public:
  CachedFetcher(const Fetcher& fetcher, PageCacheOptions options = {});

  Result<FetchResponse> Fetch(const FetchRequest& request);
  PageCacheStats stats() const;

 private:
  struct Entry {
    FetchResponse response;
    std::chrono::steady_clock::time_point expires;
    size_t bytes = 0;
  };
  using Lru = std::list<std::string>;  // most recently used first

  std::chrono::seconds TtlFor(const FetchResponse& response) const;
  void Store(const std::string& key, FetchResponse response) REQUIRES(mu_);
  void Erase(const std::string& key) REQUIRES(mu_);

  const Fetcher& fetcher_;
  PageCacheOptions options_;
  const Clock* clock_;
  mutable Mutex mu_;
  std::unordered_map<std::string, std::pair<Entry, Lru::iterator>> entries_ GUARDED_BY(mu_);
  Lru lru_ GUARDED_BY(mu_);
  PageCacheStats stats_ GUARDED_BY(mu_);
};

// A CachedFetcher that owns its Fetcher (what the adapters hand to the engine as
// EngineOptions::live_fetch.fetcher): the Fetcher lives as long as the last copy of the pointer.
std::shared_ptr<CachedFetcher> MakeCachedFetcher(FetcherOptions fetcher_options, PageCacheOptions cache_options = {});

}  // namespace attest
