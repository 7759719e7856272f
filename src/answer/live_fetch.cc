#include "answer/live_fetch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "common/date.h"
#include "crawl/url.h"
#include "index/document_api.h"

namespace attest {
namespace {

constexpr int64_t kMsPerDay = 86400000;
// Live fetch does not start with less than this left of its budget: a fetch that cannot finish
// only costs a connection.
constexpr int64_t kMinBudgetMs = 50;
// Fetches started by one answer at most, whatever max_urls and over_fetch say (one thread each).
constexpr size_t kMaxStartedFetches = 16;
// Confirmations kept in memory at most (the oldest half is dropped beyond).
constexpr size_t kMaxConfirmations = 100000;

int64_t WallMs(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.WallNow().time_since_epoch()).count();
}

std::string Notice(const std::string& url, const std::string& reason) { return "live_fetch: " + url + ": " + reason; }

std::string DescribeAge(int64_t ms) {
  const int64_t s = ms / 1000;
  if (s < 3600) return std::to_string(s / 60) + " min";
  if (s < 2 * 86400) return std::to_string(s / 3600) + " h";
  return std::to_string(s / 86400) + " days";
}

}  // namespace

bool NeedsCurrentInformation(const QueryPlan& plan) {
  static const std::set<std::string> kNow = {"latest",       "current",    "this_year", "this_quarter",
                                             "this_month",   "last_n_days", "since"};
  return plan.time.needs_current_version || kNow.count(plan.time.relative) > 0;
}

bool HostAllowed(const LiveFetchOptions& options, std::string_view host) {
  if (options.any_public_host) return true;
  for (const std::string& entry : options.allowed_hosts) {
    if (entry.starts_with("*.")) {
      const std::string_view suffix = std::string_view(entry).substr(1);  // ".example.org"
      if (host.size() > suffix.size() && host.ends_with(suffix)) return true;
    } else if (host == entry) {
      return true;
    }
  }
  return false;
}

LiveDecision DecideLiveFetch(const LiveDecisionInput& in) {
  LiveDecision out;
  const LiveFetchOptions& o = *in.options;
  if (!in.needs_current) {
    out.decision = "not_needed";
    out.detail = "the question does not ask for current information";
    return out;
  }
  if (in.candidates.empty()) {
    out.decision = "no_candidates";
    out.detail = "no readable feed or result to refresh";
    return out;
  }
  int64_t newest = 0;
  for (const LiveCandidate& c : in.candidates) newest = std::max(newest, c.newest_ms);
  const int64_t max_age_ms = o.max_age_seconds * 1000;
  // max_age 0 = every source is stale (refresh whenever the question asks for current information).
  if (max_age_ms > 0 && newest > 0 && in.now_ms - newest <= max_age_ms) {
    out.decision = "fresh";
    out.detail = "the newest readable source is " + DescribeAge(std::max<int64_t>(0, in.now_ms - newest)) + " old";
    return out;
  }
  const size_t start = std::min(
      kMaxStartedFetches, static_cast<size_t>(std::ceil(double(o.max_urls) * std::max(1.0, o.over_fetch))));
  for (const LiveCandidate& c : in.candidates) {
    if (out.fetch.size() >= start) break;
    if (max_age_ms > 0 && in.now_ms - c.newest_ms <= max_age_ms) continue;  // fresh: nothing to gain
    UrlParse u = ParseUrl(c.url);
    if (!u.ok()) {
      // Not an absolute http(s) URL (a file path, another scheme, a spelling the guard refuses).
      if (c.url.starts_with("http://") || c.url.starts_with("https://")) {
        out.notices.push_back(Notice(c.url, "invalid_url: " + std::string(UrlErrorName(u.error.code))));
      }
      continue;
    }
    if (!HostAllowed(o, u.url->host)) {
      out.notices.push_back(Notice(c.url, "host_not_allowed"));
      continue;
    }
    out.fetch.push_back(c);
  }
  if (out.fetch.empty()) {
    out.decision = "no_candidates";
    out.detail = "no stale source has an http(s) URL on an allowed host";
    return out;
  }
  out.decision = "fetch";
  out.needed = std::min(o.max_urls, out.fetch.size());
  out.detail = newest == 0 ? "no readable source is dated"
                           : "the newest readable source is " + DescribeAge(in.now_ms - newest) + " old (allowed: " +
                                 DescribeAge(max_age_ms) + ")";
  return out;
}

LiveFetcher::LiveFetcher(LiveFetchOptions options, const Clock* clock)
    : options_(std::move(options)), clock_(clock != nullptr ? clock : RealClock()) {}

LiveFetcher::~LiveFetcher() {
  std::vector<Running> running;
  {
    MutexLock lock(mu_);
    running.swap(running_);
  }
  for (Running& r : running) r.thread.join();
}

void LiveFetcher::ReapFinished() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
}

PageFetchOutcome LiveFetcher::FetchPages(const std::vector<LiveCandidate>& pages, size_t needed, int64_t budget_ms) {
  // What the fetch threads report into; shared with them, since late ones outlive this call.
  struct Shared {
    Mutex mu;
    CondVar cv;
    std::vector<std::optional<Result<FetchResponse>>> results GUARDED_BY(mu);
    size_t finished GUARDED_BY(mu) = 0;
    size_t arrived GUARDED_BY(mu) = 0;
  };
  auto shared = std::make_shared<Shared>();
  {
    MutexLock lock(shared->mu);
    shared->results.resize(pages.size());
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
  {
    MutexLock lock(mu_);
    ReapFinished();
    for (size_t i = 0; i < pages.size(); ++i) {
      auto done = std::make_shared<std::atomic<bool>>(false);
      FetchRequest request{pages[i].url, "", "", std::max<int64_t>(1, budget_ms)};
      std::shared_ptr<CachedFetcher> fetcher = options_.fetcher;
      std::thread t([shared, fetcher, request, done, i] {
        Result<FetchResponse> r = fetcher->Fetch(request);
        {
          MutexLock lock(shared->mu);
          const bool ok = r.ok() && r->status >= 200 && r->status < 300;
          shared->results[i].emplace(std::move(r));
          ++shared->finished;
          if (ok) ++shared->arrived;
        }
        shared->cv.NotifyAll();
        done->store(true);
      });
      running_.push_back(Running{std::move(t), std::move(done)});
    }
  }
  PageFetchOutcome out;
  MutexLock lock(shared->mu);
  while (shared->arrived < needed && shared->finished < pages.size()) {
    if (shared->cv.WaitUntil(lock, deadline) == std::cv_status::timeout) break;
  }
  for (size_t i = 0; i < pages.size(); ++i) {
    const std::optional<Result<FetchResponse>>& r = shared->results[i];
    if (!r) {
      out.late.push_back(pages[i]);
    } else if (!r->ok()) {
      std::string reason(FetchErrorReason(r->status()));
      out.failed.emplace_back(pages[i], reason.empty() ? "fetch_failed" : reason);
    } else if ((*r)->status < 200 || (*r)->status >= 300) {
      out.failed.emplace_back(pages[i], "http_" + std::to_string((*r)->status));
    } else {
      out.arrived.push_back(ArrivedPage{pages[i], **r});
    }
  }
  return out;
}

void LiveFetcher::Confirm(const std::string& tenant, const std::string& id, int64_t unix_ms) {
  MutexLock lock(mu_);
  if (confirmed_.size() >= kMaxConfirmations) {
    // Forget the older half: a forgotten confirmation costs at most one more fetch (or cache hit).
    std::vector<int64_t> times;
    for (const auto& [key, ms] : confirmed_) times.push_back(ms);
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    const int64_t cut = times[times.size() / 2];
    std::erase_if(confirmed_, [cut](const auto& kv) { return kv.second < cut; });
  }
  int64_t& at = confirmed_[{tenant, id}];
  at = std::max(at, unix_ms);
}

int64_t LiveFetcher::ConfirmedMs(const std::string& tenant, const std::string& id) const {
  MutexLock lock(mu_);
  auto it = confirmed_.find({tenant, id});
  return it == confirmed_.end() ? 0 : it->second;
}

PageCacheStats LiveFetcher::cache_stats() const {
  return options_.fetcher ? options_.fetcher->stats() : PageCacheStats{};
}

int64_t FetchedAtMs(const SourceRow& row, const std::string& tenant, const std::string& id, const LiveFetcher* live) {
  int64_t at = row.fetched_at_ms;
  if (live != nullptr) at = std::max(at, live->ConfirmedMs(tenant, id));
  return at;
}

std::vector<LiveCandidate> LiveFetcher::Candidates(const AnswerContext& ctx, const AskOptions& options,
                                                   const PlannedAnswer& planned) const {
  std::vector<std::pair<std::string, bool>> ids;  // (doc id, feed), feeds first
  for (const std::string& id : planned.feed_docs) ids.emplace_back(id, true);
  SearchOptions so;
  so.query = planned.plan.standalone;
  so.k = std::max<size_t>(10, options_.max_urls * 4);
  so.filter = planned.filter;
  so.mode = SearchMode::kBm25;
  so.with_snippets = false;
  if (auto r = ctx.corpus->Search(*ctx.analyzer, so, VectorLegInput{}); r.ok()) {
    for (const SearchHit& h : r->hits) ids.emplace_back(h.doc_id, h.feed == "versions");
  }
  std::vector<LiveCandidate> out;
  std::set<std::string> seen;
  for (const auto& [id, feed] : ids) {
    if (!seen.insert(id).second) continue;
    // Only what this caller reads: the search was filtered already; the row is checked again.
    auto rec = ctx.corpus->Source(options.filter, id);
    if (!rec.ok()) continue;
    LiveCandidate c{id, rec->url, feed, FetchedAtMs(*rec, options.filter.tenant, id, this)};
    if (rec->published) c.newest_ms = std::max(c.newest_ms, int64_t{*rec->published} * kMsPerDay);
    if (rec->updated) c.newest_ms = std::max(c.newest_ms, int64_t{*rec->updated} * kMsPerDay);
    out.push_back(std::move(c));
  }
  return out;
}

LiveFetchOutcome LiveFetcher::Run(const AnswerContext& ctx, const AskOptions& options, const RefreshPages& refresh) {
  LiveFetchOutcome out;
  LiveFetchReport& rep = out.report;
  const auto t0 = clock_->Now();
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_->Now() - t0).count();
  };
  if (!enabled() || !options.live_fetch) {
    rep.detail = enabled() ? "not asked for this answer" : "not configured";
    return out;
  }
  // The budget: the per-fetch timeout, and at most three quarters of the answer's deadline (the
  // rest is for retrieval and reranking, which read what arrived).
  int64_t budget_ms = options_.timeout_ms;
  if (options.deadline_ms > 0) budget_ms = std::min<int64_t>(budget_ms, int64_t{options.deadline_ms} * 3 / 4);
  auto planned = PlanForAnswer(ctx, options);
  if (!planned.ok() || !planned->plan.needs_search) {
    rep.decision = "not_needed";
    rep.detail = planned.ok() ? "the question needs no search" : "the question could not be planned";
    rep.ms = double(elapsed_ms());
    return out;
  }
  LiveDecisionInput in;
  in.needs_current = NeedsCurrentInformation(planned->plan);
  if (in.needs_current) in.candidates = Candidates(ctx, options, *planned);
  in.now_ms = WallMs(*clock_);
  in.options = &options_;
  LiveDecision d = DecideLiveFetch(in);
  out.notices = std::move(d.notices);
  rep.detail = d.detail;
  if (d.decision != "fetch") {
    rep.decision = d.decision;
    rep.ms = double(elapsed_ms());
    return out;
  }
  const int64_t left = budget_ms - elapsed_ms();
  if (left < kMinBudgetMs) {
    rep.decision = "no_budget";
    rep.detail = "the deadline left " + std::to_string(std::max<int64_t>(0, left)) + " ms";
    rep.ms = double(elapsed_ms());
    return out;
  }
  rep.decision = "fetched";
  for (const LiveCandidate& c : d.fetch) rep.urls.push_back(c.url);
  rep.attempted = static_cast<uint32_t>(d.fetch.size());
  if (options.events && options.events->on_progress) options.events->on_progress("live_fetch", rep.urls);
  PageFetchOutcome got = FetchPages(d.fetch, d.needed, left);
  auto fail = [&](const std::string& url, const std::string& reason) {
    ++rep.failed;
    // Counted by code: the fetcher's reasons are codes ("address_not_global:loopback"); others
    // are "code: detail".
    ++rep.failures[reason.substr(0, reason.find(": "))];
    out.notices.push_back(Notice(url, reason));
  };
  for (const auto& [c, reason] : got.failed) fail(c.url, reason);
  for (const LiveCandidate& c : got.late) {
    out.notices.push_back(Notice(c.url, "not_waited_for (" + std::to_string(got.arrived.size()) + " of " +
                                            std::to_string(d.needed) + " pages arrived within " +
                                            std::to_string(left) + " ms)"));
  }
  // A redirect may have led to another host: the host list holds for where the page came from.
  std::erase_if(got.arrived, [&](const ArrivedPage& p) {
    const std::string& where = p.response.final_url.empty() ? p.candidate.url : p.response.final_url;
    UrlParse u = ParseUrl(where);
    if (u.ok() && HostAllowed(options_, u.url->host)) return false;
    fail(p.candidate.url, "redirect_host_not_allowed: " + where);
    return true;
  });
  rep.succeeded = static_cast<uint32_t>(got.arrived.size());
  if (!got.arrived.empty() && refresh) {
    RefreshOutcome put = refresh(got.arrived);
    const int64_t now = WallMs(*clock_);
    for (const std::string& id : put.unchanged_ids) Confirm(options.filter.tenant, id, now);
    rep.refreshed = static_cast<uint32_t>(put.refreshed_ids.size());
    rep.unchanged = static_cast<uint32_t>(put.unchanged_ids.size());
    rep.refreshed_ids = std::move(put.refreshed_ids);
    for (const auto& [url, reason] : put.failed) fail(url, reason);
  }
  rep.detail += "; " + std::to_string(rep.succeeded) + " of " + std::to_string(rep.attempted) + " pages arrived";
  rep.ms = double(elapsed_ms());
  return out;
}

void StampFetchedAt(const AnswerCorpus& corpus, const SearchFilter& who, const LiveFetcher* live,
                    std::vector<AnswerSource>* sources) {
  // doc id -> (fetched_at, license): passages share documents
  std::map<std::string, std::pair<std::string, std::string>> fetched;
  std::vector<std::string> ids;
  for (const AnswerSource& s : *sources) {
    if (std::find(ids.begin(), ids.end(), s.doc_id) == ids.end()) ids.push_back(s.doc_id);
  }
  corpus.PrefetchSources(who, ids);
  for (AnswerSource& s : *sources) {
    auto it = fetched.find(s.doc_id);
    if (it == fetched.end()) {
      std::pair<std::string, std::string> known;
      if (auto rec = corpus.Source(who, s.doc_id); rec.ok()) {
        const int64_t ms = FetchedAtMs(*rec, who.tenant, s.doc_id, live);
        if (ms > 0) known.first = FormatUtcTimestamp(ms);
        known.second = rec->license;
      }
      it = fetched.emplace(s.doc_id, std::move(known)).first;
    }
    s.fetched_at = it->second.first;
    s.license = it->second.second;
  }
}

void FillFreshness(const AnswerCorpus& corpus, const SearchFilter& who, int64_t now_ms, AnswerResult* result) {
  AnswerFreshness& f = result->freshness;
  if (auto committed = corpus.CommittedAtUnixMs(); committed.ok() && *committed > 0) {
    f.index_lag_seconds = std::max<int64_t>(0, (now_ms - *committed) / 1000);
  }
  std::optional<DayNumber> newest_day;
  std::set<std::string> seen;
  for (const AnswerSource& s : result->sources) {
    if (!s.cited) continue;
    // One format (FormatUtcTimestamp): the text order is the time order.
    f.newest_fetched_at = std::max(f.newest_fetched_at, s.fetched_at);
    if (!seen.insert(s.doc_id).second) continue;
    auto rec = corpus.Source(who, s.doc_id);
    if (!rec.ok()) continue;
    for (const std::optional<DayNumber>& day : {rec->published, rec->updated}) {
      if (day && (!newest_day || *day > *newest_day)) {
        newest_day = day;
        f.newest_source = s.id;
      }
    }
  }
  if (newest_day) f.newest_source_date = FormatDate(*newest_day);
}

}  // namespace attest
