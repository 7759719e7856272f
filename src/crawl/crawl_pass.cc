#include "crawl/crawl_pass.h"

#include <algorithm>
#include <thread>

#include "crawl/http_dates.h"
#include "crawl/url.h"
#include "ingest/provenance.h"

namespace attest {

using std::chrono::milliseconds;

namespace {

// Network failures worth another attempt in the same pass.
bool Transient(std::string_view reason) {
  return reason == "timeout" || reason == "too_slow" || reason == "connect_failed" || reason == "dns_failure" ||
         reason == "transfer_failed" || reason == "fetch_failed" || reason == "tls_failure";
}

// A Retry-After longer than this fails the page for this pass (it is due again after the wait).
constexpr std::chrono::seconds kMaxWaitInPass{300};

}  // namespace

std::string OriginOf(std::string_view url) {
  UrlParse parsed = ParseUrl(url);
  if (!parsed.ok()) return "";
  return parsed.url->scheme + "://" + parsed.url->Authority();
}

CrawlPass::CrawlPass(const CrawlOptions& options, Engine& engine, Frontier& frontier, const Fetcher& fetcher,
                     const Clock& clock, const std::atomic<bool>& stop)
    : options_(options),
      engine_(engine),
      frontier_(frontier),
      fetcher_(fetcher),
      clock_(clock),
      stop_(stop),
      scheduler_(options.politeness, clock) {}

// Never before the pass's start (which may be 1 ms past the clock: see Frontier::BeginPass), so
// everything stamped in this pass counts as done in it.
int64_t CrawlPass::WallMs() const {
  const int64_t now = std::chrono::duration_cast<milliseconds>(clock_.WallNow().time_since_epoch()).count();
  return std::max(now, pass_started_ms_);
}

Status CrawlPass::FirstError() {
  MutexLock lock(mu_);
  return error_;
}

void CrawlPass::SetError(const Status& status) {
  MutexLock lock(mu_);
  if (error_.ok()) error_ = status;
  failed_.store(true);
}

Result<CrawlReport> CrawlPass::Run() {
  const auto t0 = clock_.Now();
  if (options_.seeds.empty() && options_.sitemaps.empty() && options_.feeds.empty()) {
    return Status::InvalidArgument("crawl: no seed, sitemap or feed URL");
  }
  if (!options_.documents.license.empty()) ATTEST_RETURN_IF_ERROR(CheckLicense(options_.documents.license, "license"));
  std::vector<std::string> seed_urls;
  for (const auto* list : {&options_.seeds, &options_.sitemaps, &options_.feeds}) {
    for (const std::string& s : *list) {
      UrlParse parsed = ParseUrl(s);
      if (!parsed.ok()) return Status::InvalidArgument("seed URL '" + s + "': " + parsed.error.ToString());
      seed_urls.push_back(s);
    }
  }
  ATTEST_ASSIGN_OR_RETURN(CrawlScope scope, CrawlScope::Make(options_.scope, seed_urls));
  scope_ = std::move(scope);
  ATTEST_ASSIGN_OR_RETURN(PassInfo info, frontier_.BeginPass(WallMs()));
  pass_started_ms_ = info.started_at_ms;
  {
    MutexLock lock(mu_);
    report_.recovered_fetching = frontier_.recovered_fetching();
    report_.resumed = info.resumed;
  }
  ATTEST_RETURN_IF_ERROR(LoadHosts());
  ATTEST_RETURN_IF_ERROR(LoadFrontier());
  EnqueueSeeds();
  ExpandSitemapsAndFeeds();
  if (failed_) return FirstError();

  const unsigned workers = std::max(1u, options_.workers);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < workers; ++i) threads.emplace_back([this] { Worker(); });
  for (std::thread& t : threads) t.join();
  std::vector<PendingPage> rest;
  {
    MutexLock lock(mu_);
    rest.swap(batch_);
  }
  if (!failed_) {
    Status s = Flush(std::move(rest));
    if (!s.ok()) SetError(s);
  }
  if (failed_) return FirstError();
  MutexLock lock(mu_);
  report_.completed = !stop_.load() && !budget_reached_;
  report_.ended_at_ms = WallMs();
  // A pass that ran out of work or of its page budget is over (the pages it did not reach stay
  // queued for the next); a stopped one stays open and the next run continues it.
  if (!stop_.load()) ATTEST_RETURN_IF_ERROR(frontier_.EndPass(report_.ended_at_ms));
  report_.seconds = std::chrono::duration<double>(clock_.Now() - t0).count();
  report_.pages_per_second = report_.seconds > 0 ? static_cast<double>(report_.fetched) / report_.seconds : 0;
  return report_;
}

bool CrawlPass::Due(const PageRecord& page) const {
  if (page.state == PageState::kQueued || page.state == PageState::kFetching) return true;
  if (page.fetched_at_ms >= pass_started_ms_ && page.fetched_at_ms != 0) return false;  // done in this pass
  if (options_.revisit_all) return true;
  return page.next_visit_ms <= WallMs();
}

void CrawlPass::Schedule(const std::string& url) {
  if (!scheduled_.insert(url).second) return;
  origins_[OriginOf(url)].queue.push_back(url);
}

bool CrawlPass::Discover(const std::string& link, int depth, const std::string& from, std::vector<PageRecord>* out) {
  UrlParse parsed = ParseUrl(link);
  if (!parsed.ok()) return false;
  if (depth > options_.max_depth || !scope_->Check(*parsed.url, link).empty()) {
    ++report_.out_of_scope;
    return false;
  }
  auto it = pages_.find(link);
  if (it != pages_.end()) {
    if (depth < it->second.depth) {
      it->second.depth = depth;
      out->push_back(it->second);
    }
    return false;
  }
  PageRecord p;
  p.url = link;
  p.depth = depth;
  p.discovered_from = from;
  pages_[link] = p;
  out->push_back(p);
  ++report_.discovered;
  Schedule(link);
  return true;
}

bool CrawlPass::Finished() {
  if (stop_.load() || failed_.load()) return true;
  if (in_flight_ > 0) return false;
  if (budget_reached_) return true;
  for (const auto& [origin, st] : origins_) {
    if (!st.queue.empty()) return false;
  }
  return true;
}

bool CrawlPass::Claim(std::string* url, std::string* origin, bool* fetch_robots) {
  const int64_t now_ms = WallMs();
  for (auto& [o, st] : origins_) {
    if (st.queue.empty()) continue;
    if (!st.robots) {
      if (st.robots_fetching || !scheduler_.TryStart(o)) continue;
      st.robots_fetching = true;
      *origin = o;
      *fetch_robots = true;
      ++in_flight_;
      return true;
    }
    while (!st.queue.empty()) {
      const std::string u = st.queue.front();
      PageRecord& rec = pages_[u];
      if (!Due(rec)) {
        scheduled_.erase(u);
        st.queue.pop_front();
        continue;
      }
      if (!st.robots->Allowed(u)) {
        PendingPage pp;
        pp.before = rec;
        rec.state = PageState::kExcluded;
        rec.error = "robots_denied";
        rec.next_visit_ms = now_ms + std::chrono::duration_cast<milliseconds>(options_.revisit.min).count();
        pp.after = rec;
        batch_.push_back(std::move(pp));
        ++report_.robots_denied;
        scheduled_.erase(u);
        st.queue.pop_front();
        continue;
      }
      break;
    }
    if (st.queue.empty()) continue;
    if (options_.max_pages != 0 && budget_used_ >= options_.max_pages) {
      budget_reached_ = true;
      return false;
    }
    if (!scheduler_.TryStart(o)) continue;
    *url = st.queue.front();
    st.queue.pop_front();
    scheduled_.erase(*url);
    *origin = o;
    *fetch_robots = false;
    ++in_flight_;
    ++budget_used_;
    return true;
  }
  return false;
}

void CrawlPass::Worker() {
  for (;;) {
    std::string url, origin;
    bool robots = false;
    milliseconds wait{2};
    {
      MutexLock lock(mu_);
      if (!Claim(&url, &origin, &robots)) {
        if (Finished()) return;
        // Sleep until the earliest origin with work may be asked again (at most 50 ms, so that
        // links found meanwhile are picked up).
        const auto now = clock_.Now();
        std::optional<std::chrono::steady_clock::time_point> earliest;
        for (const auto& [o, st] : origins_) {
          if (st.queue.empty() || st.robots_fetching || scheduler_.InFlight(o)) continue;
          const auto at = scheduler_.NextAllowed(o);
          if (!earliest || at < *earliest) earliest = at;
        }
        if (earliest && *earliest > now) wait = std::chrono::ceil<milliseconds>(*earliest - now);
        wait = std::clamp(wait, milliseconds{1}, milliseconds{50});
        url.clear();
        origin.clear();
      }
    }
    if (origin.empty()) {
      clock_.SleepFor(wait);
      continue;
    }
    if (robots) {
      FetchRobots(origin);
      MutexLock lock(mu_);
      origins_[origin].robots_fetching = false;
      --in_flight_;
      continue;
    }
    ProcessPage(url, origin);
    MutexLock lock(mu_);
    --in_flight_;
  }
}

void CrawlPass::ProcessPage(const std::string& url, const std::string& origin) {
  PageRecord record;
  {
    MutexLock lock(mu_);
    record = pages_[url];
  }
  if (options_.mark_fetching) {
    Status s = frontier_.SetStates({url}, PageState::kFetching);
    if (!s.ok()) {
      SetError(s);
      return;
    }
  }
  FetchRequest request;
  request.url = url;
  if (!record.sha256.empty()) {
    request.if_none_match = record.etag;
    request.if_modified_since = record.last_modified;
  }
  const auto t0 = clock_.Now();
  Result<FetchResponse> response = fetcher_.Fetch(request);
  const auto latency = std::chrono::duration_cast<milliseconds>(clock_.Now() - t0);
  const int64_t now_ms = WallMs();
  RequestOutcome outcome;
  outcome.latency = latency;
  outcome.status = response.ok() ? response->status : 0;
  if (outcome.status == 429 || outcome.status == 503) {
    outcome.retry_after = ParseRetryAfter(response->retry_after(), clock_.WallNow());
  }
  scheduler_.Finish(origin, outcome);
  if (!response.ok()) {
    const std::string reason(FetchErrorReason(response.status()));
    if (Transient(reason)) {
      Retry(url, std::move(record), reason, now_ms);
    } else {
      Fail(std::move(record), reason.empty() ? "fetch_failed" : reason, now_ms);
    }
    return;
  }
  {
    MutexLock lock(mu_);
    ++report_.fetched;
  }
  const int status = response->status;
  if (status == 304) {
    PendingPage pp;
    pp.before = record;
    // Not modified: the page stays what its content made it (indexed, a duplicate, noindex).
    const bool noindex = record.state == PageState::kExcluded && record.error == "noindex";
    record.state = !record.duplicate_of.empty() ? PageState::kDuplicate
                   : noindex                    ? PageState::kExcluded
                                                : PageState::kDone;
    record.fetched_at_ms = now_ms;
    record.last_status = 304;
    record.attempts = 0;
    if (!noindex) record.error.clear();
    const auto interval = NextRevisitInterval(std::chrono::seconds{record.revisit_interval_s}, false, options_.revisit);
    record.revisit_interval_s = interval.count();
    record.next_visit_ms = now_ms + interval.count() * 1000;
    pp.after = record;
    {
      MutexLock lock(mu_);
      ++report_.not_modified;
    }
    Submit(std::move(pp));
    return;
  }
  if (status >= 200 && status < 300) {
    HandleOk(url, *response, std::move(record), now_ms);
    return;
  }
  if (status == 404 || status == 410) {
    PendingPage pp;
    pp.before = record;
    {
      MutexLock lock(mu_);
      bool shared = false;
      for (const auto& [u, p] : pages_) {
        shared |= (u != url && p.state == PageState::kDone && p.doc_id == record.doc_id);
      }
      if (!record.doc_id.empty() && !shared) pp.delete_doc = record.doc_id;
    }
    record.state = PageState::kGone;
    record.doc_id.clear();
    record.sha256.clear();
    record.etag.clear();
    record.last_modified.clear();
    record.simhash.reset();
    record.fetched_at_ms = now_ms;
    record.last_status = status;
    record.error = "http_" + std::to_string(status);
    record.next_visit_ms = now_ms + std::chrono::duration_cast<milliseconds>(options_.revisit.max).count();
    pp.after = record;
    Submit(std::move(pp));
    return;
  }
  record.last_status = status;
  if (status == 429 || status == 503) {
    const auto wait = outcome.retry_after.value_or(std::chrono::seconds{0});
    if (outcome.retry_after) {
      MutexLock lock(mu_);
      HostRecord& h = hosts_[origin];
      h.origin = origin;
      h.next_allowed_ms = std::max(h.next_allowed_ms, now_ms + wait.count() * 1000);
      dirty_hosts_.insert(origin);
    }
    if (wait > kMaxWaitInPass) {
      record.next_visit_ms = now_ms + wait.count() * 1000;
      Fail(std::move(record), "http_" + std::to_string(status), now_ms);
    } else {
      Retry(url, std::move(record), "http_" + std::to_string(status), now_ms);
    }
    return;
  }
  Fail(std::move(record), "http_" + std::to_string(status), now_ms);
}

void CrawlPass::Retry(const std::string& url, PageRecord record, const std::string& reason, int64_t now_ms) {
  MutexLock lock(mu_);
  if (++attempts_[url] >= options_.max_attempts) {
    lock.Unlock();
    Fail(std::move(record), reason, now_ms);
    return;
  }
  ++report_.retries;
  record.state = PageState::kQueued;
  record.error = reason;
  pages_[url] = record;
  Schedule(url);
}

void CrawlPass::Fail(PageRecord record, const std::string& reason, int64_t now_ms, const std::string& detail) {
  PendingPage pp;
  pp.before = record;
  record.state = PageState::kFailed;
  record.error = detail.empty() ? reason : detail;
  ++record.attempts;
  const int64_t retry_at = now_ms + std::chrono::duration_cast<milliseconds>(options_.revisit.min).count();
  record.next_visit_ms = std::max(record.next_visit_ms, retry_at);
  pp.after = record;
  {
    MutexLock lock(mu_);
    ++report_.errors;
    ++report_.errors_by_reason[reason];
  }
  Submit(std::move(pp));
}

void CrawlPass::Submit(PendingPage page) {
  std::vector<PendingPage> full;
  {
    MutexLock lock(mu_);
    pages_[page.after.url] = page.after;
    for (const PageRecord& p : page.also) pages_[p.url] = p;
    batch_.push_back(std::move(page));
    size_t docs = 0;
    for (const PendingPage& p : batch_) docs += p.doc ? 1 : 0;
    if (docs < options_.batch_pages && batch_.size() < 4 * options_.batch_pages) return;
    full.swap(batch_);
  }
  Status s = Flush(std::move(full));
  if (!s.ok()) SetError(s);
}

}  // namespace attest
