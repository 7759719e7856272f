// CrawlScope: which URLs a crawl source may fetch (hosts, path prefixes, include / exclude
// patterns) and the glob the patterns are written in.
//
// Patterns are globs over the whole canonical URL: `*` matches any run of characters (slashes
// included), `?` any one character, everything else itself (case-sensitive). No regular
// expressions: a pattern comes from configuration and is matched against URLs from the web, and a
// glob matches in O(pattern x URL) time whatever it is (no catastrophic backtracking).
//
// Thread-safety: immutable after construction; Check() may be called concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "crawl/url.h"

namespace attest {

inline constexpr size_t kMaxScopePatternBytes = 1024;

// Whether `text` matches the glob `pattern` (see above).
bool GlobMatch(std::string_view pattern, std::string_view text);

struct ScopeRules {
  std::vector<std::string> hosts;          // "host" or "host:port"; empty = the seeds' hosts
  std::vector<std::string> path_prefixes;  // a URL's path must start with one (empty = any)
  std::vector<std::string> include;        // globs; a URL must match one (empty = any)
  std::vector<std::string> exclude;        // globs; a URL matching one is out
};

class CrawlScope {
 public:
  // `seed_urls` give the default hosts. kInvalidArgument names a bad pattern, prefix or host.
  static Result<CrawlScope> Make(const ScopeRules& rules, const std::vector<std::string>& seed_urls);

  // "" when `url` is in scope, else the reason: "host", "prefix", "include", "exclude".
  std::string_view Check(const Url& url, std::string_view canonical) const;
  const std::vector<std::string>& hosts() const { return rules_.hosts; }

 private:
  ScopeRules rules_;
};

}  // namespace attest
