// The --live-fetch flags of `ask` and `serve` (docs/answer.md, "Live fetch"; docs/cli.md).
#include <algorithm>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "crawl/cached_fetcher.h"
#include "crawl/url.h"

namespace attest::cli {

void AddLiveFetchFlags(CLI::App& command, LiveFetchArgs& a) {
  command.add_flag("--live-fetch", a.enabled,
                   "refresh stale pages of the tenant's version feed and top results at question time when the "
                   "question asks for current information (needs --live-fetch-hosts)");
  command.add_option("--live-fetch-hosts", a.hosts,
                     "hosts whose pages may be fetched: comma-separated names, *.domain for subdomains, or 'any' "
                     "(any public host; the SSRF guard still refuses internal addresses)");
  command.add_option("--live-fetch-max-urls", a.max_urls, "pages refreshed per answer at most")
      ->check(CLI::Range(size_t{1}, size_t{20}))
      ->capture_default_str();
  command.add_option("--live-fetch-over-fetch", a.over_fetch,
                     "fetches started per page needed (2 = start 6 for 3, go on when 3 arrived)")
      ->check(CLI::Range(1.0, 5.0))
      ->capture_default_str();
  command.add_option("--live-fetch-timeout-ms", a.timeout_ms,
                     "per-fetch timeout, and the longest an answer waits for pages (within its deadline)")
      ->check(CLI::Range(uint32_t{50}, uint32_t{60000}))
      ->capture_default_str();
  command.add_option("--live-fetch-max-age", a.max_age_seconds,
                     "seconds: when the newest readable source is at most this old, nothing is fetched (0 = always fetch)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

Result<LiveFetchOptions> MakeLiveFetchOptions(const LiveFetchArgs& a) {
  LiveFetchOptions out;
  if (!a.enabled) {
    if (!a.hosts.empty()) return Status::InvalidArgument("--live-fetch-hosts is given without --live-fetch");
    return out;
  }
  for (std::string host : SplitList(a.hosts)) {
    if (host == "any") {
      out.any_public_host = true;
      continue;
    }
    const bool wildcard = host.starts_with("*.");
    // A host is checked as the URL parser normalizes it, so the list compares with parsed URLs.
    UrlParse u = ParseUrl("http://" + (wildcard ? host.substr(2) : host) + "/");
    if (!u.ok() || u.url->port) {
      return Status::InvalidArgument("--live-fetch-hosts: '" + host + "' is not a host name");
    }
    out.allowed_hosts.push_back(wildcard ? "*." + u.url->host : u.url->host);
  }
  if (out.allowed_hosts.empty() && !out.any_public_host) {
    return Status::InvalidArgument("--live-fetch needs --live-fetch-hosts (host names, *.domain, or 'any')");
  }
  out.max_urls = a.max_urls;
  out.over_fetch = a.over_fetch;
  out.timeout_ms = a.timeout_ms;
  out.max_age_seconds = a.max_age_seconds;
  FetcherOptions fo;  // the default SSRF policy: public addresses, ports 80 and 443
  fo.timeout_ms = a.timeout_ms;
  fo.connect_timeout_ms = std::min<int64_t>(a.timeout_ms, fo.connect_timeout_ms);
  out.fetcher = MakeCachedFetcher(fo, PageCacheOptions{});
  return out;
}

}  // namespace attest::cli
