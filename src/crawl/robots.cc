#include "crawl/robots.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "crawl/robots_match.h"

namespace attest {
namespace {

enum class Key { kUserAgent, kAllow, kDisallow, kSitemap, kCrawlDelay, kUnknown };

struct Record {
  Key key = Key::kUnknown;
  std::string_view value;
};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// "http://" or "https://" (any case) followed by a host character: a Sitemap value that can be
// fetched as it is (relative values name no origin and are dropped).
bool IsAbsoluteHttpUrl(std::string_view v) {
  auto starts = [&](std::string_view prefix) {
    if (v.size() <= prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(v[i])) != prefix[i]) return false;
    }
    const char next = v[prefix.size()];
    return next != '/' && next != '?' && next != '#' && !IsBlank(next);
  };
  return starts("http://") || starts("https://");
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

Key KeyOf(std::string_view key) {
  struct Name {
    std::string_view name;
    Key key;
  };
  // The RFC's keys, the crawl-delay extension, and the misspellings seen often enough in the wild
  // that Google's parser accepts them.
  static constexpr Name kNames[] = {
      {"user-agent", Key::kUserAgent}, {"useragent", Key::kUserAgent},
      {"user agent", Key::kUserAgent}, {"allow", Key::kAllow},
      {"disallow", Key::kDisallow},    {"dissallow", Key::kDisallow},
      {"dissalow", Key::kDisallow},    {"disalow", Key::kDisallow},
      {"diasllow", Key::kDisallow},    {"disallaw", Key::kDisallow},
      {"sitemap", Key::kSitemap},      {"site-map", Key::kSitemap},
      {"crawl-delay", Key::kCrawlDelay},
  };
  for (const Name& n : kNames) {
    if (EqualsIgnoreCase(key, n.name)) return n.key;
  }
  return Key::kUnknown;
}

// One line, comment removed and trimmed, as a record; nullopt when it is not a "key: value" line
// (or the tolerated "key value" with a known key and a one-word value).
std::optional<Record> ReadRecord(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    return Record{KeyOf(Trim(line.substr(0, colon))), Trim(line.substr(colon + 1))};
  }
  const size_t blank = line.find_first_of(" \t");
  if (blank == std::string_view::npos) return std::nullopt;
  const Key key = KeyOf(line.substr(0, blank));
  const std::string_view value = Trim(line.substr(blank));
  if (key == Key::kUnknown || value.find_first_of(" \t") != std::string_view::npos) {
    return std::nullopt;
  }
  return Record{key, value};
}

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

// "*" (alone or followed by blanks) names every crawler.
bool IsGlobalAgent(std::string_view value) {
  return !value.empty() && value.front() == '*' && Trim(value.substr(1)).empty();
}

std::string_view ProductToken(std::string_view value) {
  size_t n = 0;
  while (n < value.size() && IsTokenChar(value[n])) ++n;
  return value.substr(0, n);
}

std::optional<double> ReadDelay(std::string_view value) {
  if (value.empty() || value.size() > 32) return std::nullopt;
  const std::string text(value);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(seconds) || seconds < 0) {
    return std::nullopt;
  }
  return seconds;
}

// The text the parser reads: at most `limit` octets, ending at the last line break inside them
// when the file is longer (a line cut in two is not read as a shorter rule), without a BOM.
std::string_view ParsedPart(std::string_view text, size_t limit) {
  if (text.size() > limit) {
    text = text.substr(0, limit);
    const size_t last_break = text.find_last_of("\r\n");
    text = last_break == std::string_view::npos ? std::string_view() : text.substr(0, last_break);
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

struct Applying {
  std::vector<RobotsRule> rules;
  std::optional<double> delay;

  void AddDelay(double seconds) { delay = delay ? std::max(*delay, seconds) : seconds; }
};

}  // namespace

RobotsRules RobotsRules::AllowAll() { return RobotsRules(); }

RobotsRules RobotsRules::DisallowAll() {
  RobotsRules r;
  r.rules_.push_back(RobotsRule{false, "/"});
  return r;
}

RobotsRules RobotsRules::Parse(std::string_view robots_txt, std::string_view crawler_token,
                               size_t parse_limit_bytes) {
  RobotsRules out;
  Applying specific;
  Applying global;
  bool in_agent_run = false;  // the last record was a user-agent line
  bool group_specific = false;
  bool group_global = false;

  std::string_view text = ParsedPart(robots_txt, parse_limit_bytes);
  while (!text.empty()) {
    size_t end = text.find_first_of("\r\n");
    std::string_view line = text.substr(0, end);
    if (end == std::string_view::npos) {
      text = {};
    } else {
      if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
      text.remove_prefix(end + 1);
    }
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const std::optional<Record> record = ReadRecord(line);
    if (!record) continue;

    switch (record->key) {
      case Key::kUserAgent: {
        if (!in_agent_run) group_specific = group_global = false;
        in_agent_run = true;
        if (IsGlobalAgent(record->value)) {
          group_global = true;
        } else {
          const std::string_view token = ProductToken(record->value);
          if (!token.empty() && EqualsIgnoreCase(token, crawler_token)) {
            group_specific = true;
            out.matched_specific_ = true;
          }
        }
        break;
      }
      case Key::kAllow:
      case Key::kDisallow: {
        in_agent_run = false;
        if (record->value.empty() || !(group_specific || group_global)) break;
        RobotsRule rule{record->key == Key::kAllow,
                        NormalizeRobotsPattern(record->value.substr(0, kRobotsMaxValueBytes))};
        if (group_specific) specific.rules.push_back(rule);
        if (group_global) global.rules.push_back(std::move(rule));
        break;
      }
      case Key::kCrawlDelay: {
        in_agent_run = false;
        const std::optional<double> delay = ReadDelay(record->value);
        if (!delay) break;
        if (group_specific) specific.AddDelay(*delay);
        if (group_global) global.AddDelay(*delay);
        break;
      }
      case Key::kSitemap: {
        const std::string value(record->value.substr(0, kRobotsMaxValueBytes));
        if (IsAbsoluteHttpUrl(value) && out.sitemaps_.size() < kRobotsMaxSitemaps &&
            std::find(out.sitemaps_.begin(), out.sitemaps_.end(), value) == out.sitemaps_.end()) {
          out.sitemaps_.push_back(value);
        }
        break;
      }
      case Key::kUnknown:
        break;
    }
  }
  Applying& chosen = out.matched_specific_ ? specific : global;
  out.rules_ = std::move(chosen.rules);
  out.crawl_delay_seconds_ = chosen.delay;
  return out;
}

namespace {

// The longest matching pattern, an allow winning a tie; `path` is in normal form.
const RobotsRule* MostSpecific(const std::vector<RobotsRule>& rules, std::string_view path) {
  const RobotsRule* best = nullptr;
  for (const RobotsRule& rule : rules) {
    if (best != nullptr && (rule.pattern.size() < best->pattern.size() ||
                            (rule.pattern.size() == best->pattern.size() && !rule.allow))) {
      continue;
    }
    if (!RobotsPatternMatches(rule.pattern, path)) continue;
    best = &rule;
  }
  return best;
}

}  // namespace

const RobotsRule* RobotsRules::DecidingRule(std::string_view path_and_query) const {
  return MostSpecific(rules_, NormalizeRobotsPath(RobotsPathOf(path_and_query)));
}

bool RobotsRules::Allowed(std::string_view path_and_query) const {
  const std::string path = NormalizeRobotsPath(RobotsPathOf(path_and_query));
  if (path.substr(0, path.find('?')) == "/robots.txt") return true;
  const RobotsRule* rule = MostSpecific(rules_, path);
  return rule == nullptr || rule->allow;
}

std::string_view RobotsStatusName(RobotsStatus status) {
  switch (status) {
    case RobotsStatus::kParsed:
      return "parsed";
    case RobotsStatus::kUnavailable:
      return "unavailable";
    case RobotsStatus::kUnreachable:
      return "unreachable";
  }
  return "unreachable";
}

RobotsDecision DecideRobots(const RobotsFetchResult& fetched, const RobotsPolicy& policy) {
  const RobotsDecision unreachable{RobotsStatus::kUnreachable, RobotsRules::DisallowAll()};
  const RobotsDecision unavailable{RobotsStatus::kUnavailable, RobotsRules::AllowAll()};
  if (fetched.kind == RobotsFetchResult::Kind::kNetworkError) return unreachable;
  const int status = fetched.http_status;
  // A final 3xx is a redirect the caller did not follow: no robots.txt was reached, as when there
  // are more redirects than the policy follows.
  if (fetched.redirects > policy.max_redirects || (status >= 300 && status <= 399)) {
    return policy.too_many_redirects_is_unavailable ? unavailable : unreachable;
  }
  if (status >= 200 && status <= 299) {
    return RobotsDecision{RobotsStatus::kParsed,
                          RobotsRules::Parse(fetched.body, policy.crawler_token,
                                             policy.parse_limit_bytes)};
  }
  if (status >= 400 && status <= 499) return unavailable;
  return unreachable;
}

bool RobotsCacheEntry::FreshAt(const Clock& clock, std::chrono::seconds max_age) const {
  const auto limit = std::min<std::chrono::seconds>(max_age, kRobotsMaxCacheAge);
  const auto age = clock.Now() - decided_at;
  return age >= std::chrono::steady_clock::duration::zero() && age < limit;
}

RobotsCacheEntry MakeRobotsCacheEntry(RobotsDecision decision, const Clock& clock) {
  return RobotsCacheEntry{std::move(decision), clock.Now()};
}

}  // namespace attest
