// robots.txt per RFC 9309 (the Robots Exclusion Protocol): the rules one crawler must follow on one
// origin, and the policy that turns the outcome of fetching /robots.txt into those rules.
//
// Parsing (RobotsRules::Parse), RFC 9309 §2.1-2.2 and §2.5:
// - lines end at CR, LF or CR LF; a UTF-8 byte order mark at the start is skipped; '#' starts a
//   comment; keys are case-insensitive and whitespace around keys and values is ignored;
// - a line without ':' is read as "key value" when the key is a known one and the value is one
//   word ("disallow /"), as Google's parser tolerates; the frequent misspellings "useragent",
//   "user agent", "dissallow", "dissalow", "disalow", "diasllow", "disallaw" and "site-map" are
//   accepted too;
// - a group starts with one or more consecutive user-agent lines (blank, comment and unknown lines
//   do not break the run) and holds the allow/disallow/crawl-delay lines after them; rules before
//   the first user-agent line are ignored; every group naming the same agent is merged;
// - a user-agent value's product token is its prefix of [A-Za-z_-] ("FooBot/2.1" -> "FooBot"),
//   compared case-insensitively with the crawler's token; the "*" groups apply only when no group
//   names the crawler;
// - sitemap lines are collected wherever they appear; crawl-delay (not in the RFC, a common
//   extension) is read from the groups that apply;
// - only the first 500 KiB are parsed (the RFC's minimum), up to the last line break inside them;
//   a rule value is cut at 16,664 octets (Google's line limit), which keeps matching bounded.
//
// Matching (Allowed): the most specific rule wins, i.e. the longest pattern in octets of its normal
// form (see robots_match.h); an allow wins a tie with a disallow; no matching rule means allowed;
// an empty allow/disallow value is no rule; "/robots.txt" is always allowed.
//
// Fetch outcome (DecideRobots), RFC 9309 §2.3.1 and §2.4: 2xx -> parse the body; 4xx (401 and 403
// included) -> "unavailable", everything allowed; 5xx, network errors and any other status ->
// "unreachable", everything disallowed; more redirects than the policy follows (5) -> unreachable
// by default. §2.3.1.2 lets a crawler treat that case as unavailable instead; the conservative
// reading is ours, and RobotsPolicy::too_many_redirects_is_unavailable switches it. A decision may
// be reused for at most 24 h (RobotsCacheEntry), measured on an injected clock.
//
// Thread-safety: RobotsRules is immutable after construction and may be shared between threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/clock.h"

namespace attest {

// RFC 9309 §2.5: a parsing limit of at least 500 kibibytes.
inline constexpr size_t kRobotsParseLimitBytes = 500 * 1024;
// Google's robots.txt parser cuts longer lines at 8 × 2083 octets (the longest URL IE accepted).
inline constexpr size_t kRobotsMaxValueBytes = 8 * 2083;
// Sitemap records kept per file (a hostile robots.txt cannot queue unbounded sitemap fetches).
inline constexpr size_t kRobotsMaxSitemaps = 100;
// RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours.
inline constexpr std::chrono::hours kRobotsMaxCacheAge{24};

struct RobotsRule {
  bool allow = false;
  std::string pattern;  // normal form (robots_match.h)
};

class RobotsRules {
 public:
  // Nothing is excluded (no robots.txt, or an "unavailable" one).
  static RobotsRules AllowAll();
  // Everything but /robots.txt is excluded (an "unreachable" robots.txt).
  static RobotsRules DisallowAll();
  // The rules of `robots_txt` for the crawler whose product token is `crawler_token` (e.g.
  // "AttestBot"; matched case-insensitively). Never fails: what cannot be read is ignored.
  static RobotsRules Parse(std::string_view robots_txt, std::string_view crawler_token,
                           size_t parse_limit_bytes = kRobotsParseLimitBytes);

  // Whether the crawler may fetch the URL whose path and query are `path_and_query` (a full URL
  // is accepted too: its scheme, authority and fragment are dropped).
  bool Allowed(std::string_view path_and_query) const;
  // The rule that decides `path_and_query`, or none when no rule matches (for explanations).
  const RobotsRule* DecidingRule(std::string_view path_and_query) const;

  // Crawl-delay of the applying groups in seconds (the largest when several are given).
  std::optional<double> CrawlDelay() const { return crawl_delay_seconds_; }
  // The Sitemap values of the file (RFC 9309 §2.3.5; records of no group), in order, duplicates
  // removed: absolute http(s) URLs only (sitemaps.org requires the full URL), the first
  // kRobotsMaxSitemaps.
  const std::vector<std::string>& Sitemaps() const { return sitemaps_; }
  // The rules of the applying groups, merged, in file order.
  const std::vector<RobotsRule>& Rules() const { return rules_; }
  // True when a group named the crawler (false: the "*" groups, or no group, applied).
  bool MatchedSpecificGroup() const { return matched_specific_; }

 private:
  std::vector<RobotsRule> rules_;
  std::vector<std::string> sitemaps_;
  std::optional<double> crawl_delay_seconds_;
  bool matched_specific_ = false;
  bool disallow_all_ = false;
};

// What fetching /robots.txt gave (the caller follows redirects and counts them).
struct RobotsFetchResult {
  enum class Kind { kResponse, kNetworkError };
  Kind kind = Kind::kResponse;
  int http_status = 0;    // the final response's status (kResponse)
  int redirects = 0;      // consecutive redirects followed to reach it
  std::string body;       // the final response's body (kResponse)
};

struct RobotsPolicy {
  std::string crawler_token = "AttestBot";
  int max_redirects = 5;  // RFC 9309 §2.3.1.2: follow at least five
  bool too_many_redirects_is_unavailable = false;
  size_t parse_limit_bytes = kRobotsParseLimitBytes;
};

enum class RobotsStatus {
  kParsed,       // 2xx: the file's rules apply
  kUnavailable,  // 4xx (or too many redirects, when so configured): everything allowed
  kUnreachable,  // 5xx, network error, other statuses, too many redirects: everything disallowed
};

std::string_view RobotsStatusName(RobotsStatus status);

struct RobotsDecision {
  RobotsStatus status = RobotsStatus::kUnreachable;
  RobotsRules rules = RobotsRules::DisallowAll();
};

// The rules a crawler must follow given the outcome of its /robots.txt request. Pure.
RobotsDecision DecideRobots(const RobotsFetchResult& fetched, const RobotsPolicy& policy);

// A decision with the time it was made, for the caller's per-origin cache.
struct RobotsCacheEntry {
  RobotsDecision decision;
  std::chrono::steady_clock::time_point decided_at;

  // Fresh while younger than min(max_age, 24 h) on `clock`.
  bool FreshAt(const Clock& clock, std::chrono::seconds max_age = kRobotsMaxCacheAge) const;
};

RobotsCacheEntry MakeRobotsCacheEntry(RobotsDecision decision, const Clock& clock);

}  // namespace attest
