#include "crawl/crawl_scope.h"

#include <algorithm>

namespace attest {

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matching with one backtrack point (the last '*'): each '*' only ever extends, so the
  // work is bounded by pattern length x text length.
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<CrawlScope> CrawlScope::Make(const ScopeRules& rules, const std::vector<std::string>& seed_urls) {
  CrawlScope scope;
  scope.rules_ = rules;
  for (const auto* list : {&rules.include, &rules.exclude}) {
    for (const std::string& p : *list) {
      if (p.empty()) return Status::InvalidArgument("scope pattern: empty");
      if (p.size() > kMaxScopePatternBytes) {
        return Status::InvalidArgument("scope pattern '" + p.substr(0, 40) + "...': longer than " +
                                       std::to_string(kMaxScopePatternBytes) + " bytes");
      }
    }
  }
  for (const std::string& prefix : rules.path_prefixes) {
    if (prefix.empty() || prefix[0] != '/') {
      return Status::InvalidArgument("path prefix '" + prefix + "': must start with '/'");
    }
  }
  for (std::string& h : scope.rules_.hosts) {
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
    if (h.empty()) return Status::InvalidArgument("scope host: empty");
  }
  if (scope.rules_.hosts.empty()) {
    for (const std::string& seed : seed_urls) {
      UrlParse parsed = ParseUrl(seed);
      if (!parsed.ok()) return Status::InvalidArgument("seed '" + seed + "': " + parsed.error.ToString());
      const std::string authority = parsed.url->Authority();
      if (std::find(scope.rules_.hosts.begin(), scope.rules_.hosts.end(), authority) == scope.rules_.hosts.end()) {
        scope.rules_.hosts.push_back(authority);
      }
    }
  }
  return scope;
}

std::string_view CrawlScope::Check(const Url& url, std::string_view canonical) const {
  const std::string authority = url.Authority();
  bool host_ok = false;
  for (const std::string& h : rules_.hosts) host_ok |= (h == url.host || h == authority);
  if (!host_ok) return "host";
  if (!rules_.path_prefixes.empty()) {
    bool prefix_ok = false;
    for (const std::string& p : rules_.path_prefixes) prefix_ok |= url.path.starts_with(p);
    if (!prefix_ok) return "prefix";
  }
  if (!rules_.include.empty()) {
    bool any = false;
    for (const std::string& g : rules_.include) any |= GlobMatch(g, canonical);
    if (!any) return "include";
  }
  for (const std::string& g : rules_.exclude) {
    if (GlobMatch(g, canonical)) return "exclude";
  }
  return "";
}

}  // namespace attest
