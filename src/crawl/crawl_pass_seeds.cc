// CrawlPass: loading the frontier, robots.txt per origin, and the seeds (URLs, sitemaps, feeds).
#include <algorithm>
#include <deque>
#include <set>

#include "crawl/crawl_pass.h"
#include "crawl/feed.h"
#include "crawl/sitemap.h"
#include "crawl/url.h"

namespace attest {

using std::chrono::milliseconds;

namespace {

constexpr size_t kMaxSitemapFiles = 1000;  // sitemap and index files fetched per pass

std::optional<std::string> Canonical(std::string_view url) {
  UrlParse parsed = ParseUrl(url);
  if (!parsed.ok()) return std::nullopt;
  return CanonicalUrl(*parsed.url);
}

// Refusals of the SSRF guard (crawl/fetcher.h) as opposed to network failures.
bool IsGuardRefusal(std::string_view reason) {
  return reason.starts_with("address_not_global") || reason == "port_not_allowed" ||
         reason == "scheme_not_allowed" || reason == "userinfo_not_allowed" || reason == "invalid_url";
}

}  // namespace

Status CrawlPass::LoadHosts() {
  ATTEST_ASSIGN_OR_RETURN(std::vector<HostRecord> hosts, frontier_.AllHosts());
  const int64_t now_ms = WallMs();
  const auto steady_now = clock_.Now();
  MutexLock lock(mu_);
  for (HostRecord& h : hosts) {
    const int64_t age_ms = now_ms - h.robots_fetched_at_ms;
    // An "unreachable" robots.txt (5xx, network error) is not reused by a later run: it excludes
    // the whole origin, and a transient failure should not do so for a day.
    const bool reusable = !h.robots_kind.empty() && h.robots_outcome != "unreachable";
    if (reusable && age_ms >= 0 && age_ms < std::chrono::duration_cast<milliseconds>(kRobotsMaxCacheAge).count()) {
      origins_[h.origin].robots = RulesFromHost(h);
      if (h.crawl_delay_ms > 0) scheduler_.SetCrawlDelay(h.origin, milliseconds{h.crawl_delay_ms});
    }
    if (h.next_allowed_ms > now_ms) scheduler_.DeferUntil(h.origin, steady_now + milliseconds{h.next_allowed_ms - now_ms});
    hosts_[h.origin] = std::move(h);
  }
  return Status::Ok();
}

Status CrawlPass::LoadFrontier() {
  ATTEST_ASSIGN_OR_RETURN(std::vector<PageRecord> pages, frontier_.AllPages());
  MutexLock lock(mu_);
  for (PageRecord& p : pages) {
    if (p.state == PageState::kDone && p.simhash && *p.simhash != 0 && !p.doc_id.empty()) {
      near_dups_.Add(fingerprint_urls_.size(), *p.simhash);
      fingerprint_urls_.push_back(p.url);
    }
    if (p.fetched_at_ms != 0 && p.fetched_at_ms >= pass_started_ms_) ++budget_used_;
    const std::string url = p.url;
    const bool due = Due(p);
    pages_[url] = std::move(p);
    if (due) Schedule(url);
  }
  return Status::Ok();
}

void CrawlPass::EnqueueSeeds() {
  std::vector<PageRecord> discovered;
  {
    MutexLock lock(mu_);
    for (const std::string& seed : options_.seeds) {
      std::optional<std::string> c = Canonical(seed);
      if (c) Discover(*c, 0, "seed", &discovered);
    }
  }
  FrontierWrite w;
  w.discovered = std::move(discovered);
  Status s = frontier_.Apply(w);
  if (!s.ok()) SetError(s);
}

RobotsRules CrawlPass::RulesFromHost(const HostRecord& host) const {
  RobotsFetchResult fetched;
  fetched.kind = host.robots_kind == "network_error" ? RobotsFetchResult::Kind::kNetworkError
                                                     : RobotsFetchResult::Kind::kResponse;
  fetched.http_status = host.robots_http_status;
  fetched.redirects = host.robots_redirects;
  fetched.body = host.robots_body;
  RobotsPolicy policy;
  policy.crawler_token = options_.crawler_token;
  return DecideRobots(fetched, policy).rules;
}

void CrawlPass::FetchRobots(const std::string& origin) {
  FetchRequest request;
  request.url = origin + "/robots.txt";
  const auto t0 = clock_.Now();
  Result<FetchResponse> response = fetcher_.Fetch(request);
  RequestOutcome outcome;
  outcome.latency = std::chrono::duration_cast<milliseconds>(clock_.Now() - t0);
  RobotsFetchResult fetched;
  if (response.ok()) {
    outcome.status = response->status;
    fetched.http_status = response->status;
    fetched.redirects = static_cast<int>(response->redirects.size());
    fetched.body = response->body;
  } else if (FetchErrorReason(response.status()) == "too_many_redirects") {
    fetched.http_status = 301;
    fetched.redirects = fetcher_.options().max_redirects + 1;
  } else if (IsGuardRefusal(FetchErrorReason(response.status()))) {
    // The guard refuses the origin itself: nothing there will be connected to. The pages are
    // tried (and refused, each with the guard's reason) rather than reported as robots-denied;
    // nothing is cached, so a later run with another policy fetches robots.txt.
    scheduler_.Finish(origin, outcome);
    MutexLock lock(mu_);
    origins_[origin].robots = RobotsRules::AllowAll();
    return;
  } else {
    fetched.kind = RobotsFetchResult::Kind::kNetworkError;
  }
  scheduler_.Finish(origin, outcome);
  RobotsPolicy policy;
  policy.crawler_token = options_.crawler_token;
  RobotsDecision decision = DecideRobots(fetched, policy);
  MutexLock lock(mu_);
  ++report_.robots_fetches;
  HostRecord& h = hosts_[origin];
  h.origin = origin;
  h.robots_kind = fetched.kind == RobotsFetchResult::Kind::kNetworkError ? "network_error" : "response";
  h.robots_http_status = fetched.http_status;
  h.robots_redirects = fetched.redirects;
  h.robots_body = fetched.body;
  h.robots_outcome = std::string(RobotsStatusName(decision.status));
  h.robots_fetched_at_ms = WallMs();
  h.crawl_delay_ms = 0;
  if (std::optional<double> delay = decision.rules.CrawlDelay()) {
    h.crawl_delay_ms = static_cast<int64_t>(*delay * 1000);
    scheduler_.SetCrawlDelay(origin, milliseconds{h.crawl_delay_ms});
  }
  dirty_hosts_.insert(origin);
  origins_[origin].robots = std::move(decision.rules);
}

bool CrawlPass::AwaitRobots(const std::string& origin) {
  while (true) {
    {
      MutexLock lock(mu_);
      if (origins_[origin].robots.has_value()) return true;
    }
    if (stop_.load()) return false;
    if (scheduler_.TryStart(origin)) {
      FetchRobots(origin);
      return true;
    }
    clock_.SleepFor(milliseconds{5});
  }
}

std::vector<std::string> CrawlPass::RobotsSitemaps() {
  std::vector<std::string> origins;
  for (const auto* list : {&options_.seeds, &options_.sitemaps, &options_.feeds}) {
    for (const std::string& s : *list) {
      const std::string origin = OriginOf(s);
      if (!origin.empty() && std::find(origins.begin(), origins.end(), origin) == origins.end()) {
        origins.push_back(origin);
      }
    }
  }
  std::vector<std::string> out;
  for (const std::string& origin : origins) {
    if (!AwaitRobots(origin)) break;
    std::vector<std::string> listed;
    {
      MutexLock lock(mu_);
      listed = origins_[origin].robots->Sitemaps();
    }
    for (const std::string& s : listed) {
      UrlParse parsed = ParseUrl(s);
      if (!parsed.ok()) continue;
      const std::string c = CanonicalUrl(*parsed.url);
      // The sitemap file itself may sit outside the path prefixes (/sitemap.xml for /docs/); its
      // host must be in scope, and every page it lists is checked like any other.
      if (scope_->Check(*parsed.url, c) == "host") continue;
      out.push_back(c);
    }
  }
  return out;
}

std::optional<FetchResponse> CrawlPass::FetchSeedDocument(const std::string& url) {
  const std::string origin = OriginOf(url);
  if (origin.empty()) return std::nullopt;
  // Robots first (fetched now when the origin has none yet), then the origin's turn.
  if (!AwaitRobots(origin)) return std::nullopt;
  {
    MutexLock lock(mu_);
    if (!origins_[origin].robots->Allowed(url)) {
      ++report_.robots_denied;
      return std::nullopt;
    }
  }
  while (!scheduler_.TryStart(origin)) {
    if (stop_.load()) return std::nullopt;
    clock_.SleepFor(milliseconds{5});
  }
  const auto t0 = clock_.Now();
  FetchRequest request;
  request.url = url;
  Result<FetchResponse> response = fetcher_.Fetch(request);
  RequestOutcome outcome;
  outcome.latency = std::chrono::duration_cast<milliseconds>(clock_.Now() - t0);
  outcome.status = response.ok() ? response->status : 0;
  scheduler_.Finish(origin, outcome);
  MutexLock lock(mu_);
  ++report_.sitemap_fetches;
  if (!response.ok() || response->status != 200) {
    const std::string reason = response.ok() ? "seed_http_" + std::to_string(response->status)
                                             : "seed_" + std::string(FetchErrorReason(response.status()));
    ++report_.errors;
    ++report_.errors_by_reason[reason];
    return std::nullopt;
  }
  return std::move(*response);
}

void CrawlPass::ExpandSitemapsAndFeeds() {
  std::vector<PageRecord> discovered;
  // A listed page whose date is newer than its last fetch is due now.
  auto list_page = [&](const std::string& loc, const std::string& base, const std::optional<SeedDate>& date,
                       const std::string& from) {
    UrlParse resolved = ParseUrl(base);
    if (!resolved.ok()) return;
    UrlParse parsed = ResolveUrl(*resolved.url, loc);
    if (!parsed.ok()) return;
    const std::string c = CanonicalUrl(*parsed.url);
    MutexLock lock(mu_);
    if (Discover(c, 0, from, &discovered)) return;
    auto it = pages_.find(c);
    if (it == pages_.end() || !date) return;
    const int64_t listed_ms = date->unix_seconds ? *date->unix_seconds * 1000 : int64_t{date->day} * 86400000;
    if (listed_ms > it->second.fetched_at_ms && it->second.fetched_at_ms < pass_started_ms_) {
      it->second.next_visit_ms = 0;
      Schedule(c);
    }
  };
  std::deque<std::string> sitemaps;
  for (const std::string& s : options_.sitemaps) {
    if (std::optional<std::string> c = Canonical(s)) sitemaps.push_back(*c);
  }
  if (options_.sitemaps_from_robots) {
    for (std::string& s : RobotsSitemaps()) sitemaps.push_back(std::move(s));
  }
  std::set<std::string> seen;
  while (!sitemaps.empty() && seen.size() < kMaxSitemapFiles && !stop_.load()) {
    const std::string url = sitemaps.front();
    sitemaps.pop_front();
    if (!seen.insert(url).second) continue;
    std::optional<FetchResponse> response = FetchSeedDocument(url);
    if (!response) continue;
    SitemapResult sitemap = ParseSitemap(response->body, url);
    for (const SitemapRef& ref : sitemap.sitemaps) {
      UrlParse base = ParseUrl(url);
      UrlParse parsed = base.ok() ? ResolveUrl(*base.url, ref.loc) : UrlParse{};
      if (parsed.ok()) sitemaps.push_back(CanonicalUrl(*parsed.url));
    }
    for (const SitemapUrl& entry : sitemap.urls) list_page(entry.loc, url, entry.lastmod, url);
  }
  for (const std::string& feed_url : options_.feeds) {
    if (stop_.load()) break;
    std::optional<std::string> c = Canonical(feed_url);
    if (!c) continue;
    std::optional<FetchResponse> response = FetchSeedDocument(*c);
    if (!response) continue;
    FeedResult feed = ParseFeed(response->body, *c);
    for (const FeedEntry& entry : feed.entries) {
      if (entry.link.empty()) continue;
      list_page(entry.link, *c, entry.updated ? entry.updated : entry.published, *c);
    }
  }
  FrontierWrite w;
  w.discovered = std::move(discovered);
  MutexLock lock(mu_);
  for (const std::string& origin : dirty_hosts_) w.hosts.push_back(hosts_[origin]);
  dirty_hosts_.clear();
  Status s = frontier_.Apply(w);
  if (!s.ok()) {
    if (error_.ok()) error_ = s;
    failed_.store(true);
  }
}

}  // namespace attest
