// Live fetch at question time (docs/answer.md, "Live fetch"). When the plan says a question needs
// current information and the newest source the caller may read is older than the configured age,
// the pages of documents the tenant already has are fetched again through the guarded fetcher
// (crawl/fetcher.h, with its page cache) and put back, so the answer reads them from the index:
//
//   - which pages: the tenant's authoritative version feeds that version resolution read, then the
//     top results of the question, in rank order; only their stored http(s) URLs, only hosts the
//     configuration allows; never a URL found in a page or a question;
//   - how many: ceil(max_urls * over_fetch) fetches start at once, each on its own thread; live
//     fetch goes on as soon as max_urls pages arrived, every fetch finished, or the budget (the
//     per-fetch timeout, and at most 3/4 of the answer's deadline) ran out; late pages are not
//     waited for (their fetches end at the same budget and fill the page cache);
//   - failures (refused by the SSRF guard, network errors, non-2xx answers, pages that cannot be
//     parsed) are notices "live_fetch: <url>: <reason>", never errors, and never touch the stored
//     document.
//
// Putting pages back is the engine's (RefreshPages): it re-reads each document in the latest
// snapshot under its write lock and keeps only those the caller still reads, with the same URL and
// access, so a live fetch can neither widen nor restore access.
//
// Thread-safety: LiveFetcher may be used by any number of answers at once; the confirmations map
// and the list of running fetch threads are guarded by a mutex. Its destructor waits for fetches
// still running (each bounded by its timeout).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "answer/answer_stages.h"
#include "attest/clock.h"
#include "common/thread_annotations.h"
#include "crawl/cached_fetcher.h"

namespace attest {

// Whether the plan asks for current information: "latest"/"current"/"newest" (with or without a
// versioned entity), or a time window that ends now (this year, quarter or month, the last n days,
// since a date).
bool NeedsCurrentInformation(const QueryPlan& plan);

// Whether `host` (normalized, lowercase) may be fetched under `options`: any_public_host, an exact
// entry, or a "*.example.org" entry for its subdomains.
bool HostAllowed(const LiveFetchOptions& options, std::string_view host);

// A document whose page live fetch may refresh.
struct LiveCandidate {
  std::string doc_id;
  std::string url;         // the stored URL
  bool feed = false;       // an authoritative version feed
  int64_t newest_ms = 0;   // its newest date, Unix ms: published, updated (start of day) or fetched_at
};

struct LiveDecisionInput {
  bool needs_current = false;             // NeedsCurrentInformation(plan)
  std::vector<LiveCandidate> candidates;  // feeds first, then results in rank order, one per document
  int64_t now_ms = 0;
  const LiveFetchOptions* options = nullptr;
};

struct LiveDecision {
  std::string decision;                // not_needed, fresh, no_candidates, fetch
  std::string detail;
  std::vector<LiveCandidate> fetch;    // to start, in order: at most ceil(max_urls * over_fetch), and 16
  size_t needed = 0;                   // go on once this many pages arrived
  std::vector<std::string> notices;    // "live_fetch: <url>: <reason>" for candidates refused before fetching
};

// The decision, a pure function: not needed; fresh when the newest candidate is at most
// max_age_seconds old; else the stale candidates whose URL is http(s) on an allowed host, feeds
// first.
LiveDecision DecideLiveFetch(const LiveDecisionInput& in);

struct ArrivedPage {
  LiveCandidate candidate;
  FetchResponse response;
};

struct PageFetchOutcome {
  std::vector<ArrivedPage> arrived;                           // 2xx, in time, in candidate order
  std::vector<std::pair<LiveCandidate, std::string>> failed;  // with the reason
  std::vector<LiveCandidate> late;                            // still running when live fetch went on
};

// What the engine did with the pages that arrived.
struct RefreshOutcome {
  std::vector<std::string> refreshed_ids;  // given a new version
  std::vector<std::string> unchanged_ids;  // already current
  std::vector<std::pair<std::string, std::string>> failed;  // (url, reason): not put
};
using RefreshPages = std::function<RefreshOutcome(const std::vector<ArrivedPage>& pages)>;

struct LiveFetchOutcome {
  LiveFetchReport report;
  std::vector<std::string> notices;  // "live_fetch: <url>: <reason>"
};

class LiveFetcher {
 public:
  // `clock` null = RealClock(); its wall time dates sources, its monotonic time measures the budget.
  LiveFetcher(LiveFetchOptions options, const Clock* clock);
  ~LiveFetcher();
  LiveFetcher(const LiveFetcher&) = delete;
  LiveFetcher& operator=(const LiveFetcher&) = delete;

  bool enabled() const { return options_.fetcher != nullptr && options_.max_urls > 0; }

  // The whole step for one answer over `ctx.snapshot` (the caller's filter already resolved in
  // `options`): plan, candidates, decision, parallel fetch, `refresh`. Never fails: what goes
  // wrong is in the report and the notices.
  LiveFetchOutcome Run(const AnswerContext& ctx, const AskOptions& options, const RefreshPages& refresh);

  // Starts one fetch per page and returns once `needed` pages arrived, all finished, or `budget_ms`
  // passed. Each fetch's own timeout is the budget.
  PageFetchOutcome FetchPages(const std::vector<LiveCandidate>& pages, size_t needed, int64_t budget_ms);

  // A live fetch found document `id` of `tenant` unchanged at `unix_ms`: its fetched_at moves
  // there (in memory; docs/answer.md, "Freshness").
  void Confirm(const std::string& tenant, const std::string& id, int64_t unix_ms);
  int64_t ConfirmedMs(const std::string& tenant, const std::string& id) const;  // 0 = never

  PageCacheStats cache_stats() const;
  const LiveFetchOptions& options() const { return options_; }

 private:
  struct Running {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void ReapFinished() REQUIRES(mu_);
  std::vector<LiveCandidate> Candidates(const AnswerContext& ctx, const AskOptions& options,
                                        const PlannedAnswer& planned) const;

  LiveFetchOptions options_;
  const Clock* clock_;
  mutable Mutex mu_;
  std::vector<Running> running_ GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, int64_t> confirmed_ GUARDED_BY(mu_);
};

// The fetched_at of a document version: when its text was fetched, else the commit of the snapshot
// that created it (SourceRow::fetched_at_ms), or a later confirmation; 0 when unknown.
int64_t FetchedAtMs(const SourceRow& row, const std::string& tenant, const std::string& id, const LiveFetcher* live);

// Sets every source's fetched_at and license (before the sources are announced: the stream's cards
// carry them).
void StampFetchedAt(const AnswerCorpus& corpus, const SearchFilter& who, const LiveFetcher* live,
                    std::vector<AnswerSource>* sources);

// Fills result->freshness from the corpus the answer read and its sources' fetched_at
// (`now_ms` = the clock's wall time).
void FillFreshness(const AnswerCorpus& corpus, const SearchFilter& who, int64_t now_ms, AnswerResult* result);

}  // namespace attest
