#include "crawl/cached_fetcher.h"

#include <algorithm>
#include <cctype>

namespace attest {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct CacheControl {
  bool no_store = false;
  bool no_cache = false;
  int64_t max_age = -1;  // seconds; -1 = absent
};

// The directives of a Cache-Control header (RFC 9111 §5.2) that matter to a private page cache.
CacheControl ParseCacheControl(std::string_view value) {
  CacheControl cc;
  const std::string v = Lower(value);
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t comma = v.find(',', pos);
    if (comma == std::string::npos) comma = v.size();
    std::string_view d(v.data() + pos, comma - pos);
    while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
    while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
    if (d == "no-store") cc.no_store = true;
    if (d == "no-cache" || d.starts_with("no-cache=")) cc.no_cache = true;
    if (d.starts_with("max-age=")) {
      std::string_view n = d.substr(8);
      if (!n.empty() && n.front() == '"') n.remove_prefix(1);
      int64_t age = 0;
      size_t digits = 0;
      while (digits < n.size() && std::isdigit(static_cast<unsigned char>(n[digits])) && age < (int64_t{1} << 40)) {
        age = age * 10 + (n[digits] - '0');
        ++digits;
      }
      if (digits > 0) cc.max_age = age;
    }
    pos = comma + 1;
  }
  return cc;
}

}  // namespace

CachedFetcher::CachedFetcher(const Fetcher& fetcher, PageCacheOptions options)
    : fetcher_(fetcher), options_(std::move(options)), clock_(options_.clock != nullptr ? options_.clock : RealClock()) {}

std::chrono::seconds CachedFetcher::TtlFor(const FetchResponse& response) const {
  const std::string type = Lower(response.content_type());
  std::chrono::seconds ttl = options_.default_ttl;
  for (const auto& [prefix, seconds] : options_.ttl_by_type) {
    if (type.starts_with(prefix)) {
      ttl = seconds;
      break;
    }
  }
  const CacheControl cc = ParseCacheControl(response.Header("Cache-Control").value_or(""));
  if (cc.no_cache) return std::chrono::seconds(0);
  if (cc.max_age >= 0) ttl = std::min(ttl, std::chrono::seconds(cc.max_age));
  return ttl;
}

void CachedFetcher::Erase(const std::string& key) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return;
  stats_.bytes -= it->second.first.bytes;
  lru_.erase(it->second.second);
  entries_.erase(it);
}

void CachedFetcher::Store(const std::string& key, FetchResponse response) {
  Erase(key);
  if (ParseCacheControl(response.Header("Cache-Control").value_or("")).no_store) return;
  size_t bytes = key.size() + response.body.size();
  for (const HttpHeader& h : response.headers) bytes += h.name.size() + h.value.size();
  if (bytes > options_.max_bytes) return;
  while (stats_.bytes + bytes > options_.max_bytes && !lru_.empty()) {
    Erase(lru_.back());
    ++stats_.evictions;
  }
  Entry entry;
  entry.expires = clock_->Now() + TtlFor(response);
  entry.bytes = bytes;
  entry.response = std::move(response);
  entry.response.cache = CacheUse::kNone;
  lru_.push_front(key);
  entries_.emplace(key, std::make_pair(std::move(entry), lru_.begin()));
  stats_.bytes += bytes;
}

Result<FetchResponse> CachedFetcher::Fetch(const FetchRequest& request) {
  if (!request.if_none_match.empty() || !request.if_modified_since.empty()) return fetcher_.Fetch(request);
  FetchRequest conditional = request;
  bool have_stale = false;
  {
    MutexLock lock(mu_);
    const auto it = entries_.find(request.url);
    if (it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.second);
      const Entry& e = it->second.first;
      if (clock_->Now() < e.expires) {
        ++stats_.hits;
        FetchResponse hit = e.response;
        hit.cache = CacheUse::kHit;
        return hit;
      }
      conditional.if_none_match = std::string(e.response.etag());
      conditional.if_modified_since = std::string(e.response.last_modified());
      have_stale = !conditional.if_none_match.empty() || !conditional.if_modified_since.empty();
    }
  }
  ATTEST_ASSIGN_OR_RETURN(FetchResponse fresh, fetcher_.Fetch(conditional));
  if (fresh.not_modified && have_stale) {
    MutexLock lock(mu_);
    const auto it = entries_.find(request.url);
    if (it != entries_.end()) {
      Entry& e = it->second.first;
      // RFC 9111 §4.3.4: the 304's headers update the stored ones (ETag, Cache-Control, dates).
      for (const HttpHeader& h : fresh.headers) {
        auto same = [&](const HttpHeader& old) { return Lower(old.name) == Lower(h.name); };
        const auto old = std::find_if(e.response.headers.begin(), e.response.headers.end(), same);
        if (old != e.response.headers.end()) old->value = h.value;
      }
      e.expires = clock_->Now() + TtlFor(e.response);
      ++stats_.revalidated;
      FetchResponse served = e.response;
      served.cache = CacheUse::kRevalidated;
      served.remote_address = fresh.remote_address;
      return served;
    }
    // Evicted while we were fetching: the 304 has no body to serve; fetch it whole.
  }
  if (fresh.not_modified) {
    ATTEST_ASSIGN_OR_RETURN(fresh, fetcher_.Fetch(request));
  }
  MutexLock lock(mu_);
  ++stats_.misses;
  if (fresh.status == 200) {
    Store(request.url, fresh);
  } else {
    Erase(request.url);
  }
  return fresh;
}

PageCacheStats CachedFetcher::stats() const {
  MutexLock lock(mu_);
  PageCacheStats s = stats_;
  s.entries = entries_.size();
  return s;
}

std::shared_ptr<CachedFetcher> MakeCachedFetcher(FetcherOptions fetcher_options, PageCacheOptions cache_options) {
  auto fetcher = std::make_shared<Fetcher>(std::move(fetcher_options));
  // The deleter holds the Fetcher the cache refers to, so both go together.
  return std::shared_ptr<CachedFetcher>(new CachedFetcher(*fetcher, std::move(cache_options)),
                                        [fetcher](CachedFetcher* cache) { delete cache; });
}

}  // namespace attest
