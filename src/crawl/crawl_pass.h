// CrawlPass: the state of one running pass of the Crawler (internal to src/crawl; crawler.h is
// the interface). crawl_pass.cc holds the fetch loop and the commits, crawl_pass_seeds.cc the
// robots.txt cache and the sitemap and feed seeds.
//
// Thread-safety: the workers share one CrawlPass; mu_ guards the pass state (checked by Clang's
// thread-safety analysis). The engine and the frontier are thread-safe themselves.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/thread_annotations.h"
#include "crawl/crawler.h"
#include "crawl/robots.h"
#include "text/analyzer.h"
#include "text/near_duplicate_index.h"

namespace attest {

// One page's result, waiting for its batch's commit.
struct PendingPage {
  PageRecord before;                  // the record as it was, with the write-ahead intent set
  PageRecord after;                   // the record once the batch is committed
  std::optional<DocumentSpec> doc;    // to index
  std::string delete_doc;             // a document to delete ("" = none)
  std::vector<PageRecord> discovered; // links new to the frontier
  std::vector<PageRecord> also;       // other records written with it (a redirect's target)
};

struct OriginState {
  std::deque<std::string> queue;      // canonical URLs to fetch in this pass
  std::optional<RobotsRules> robots;  // known rules (nullopt = not fetched yet)
  bool robots_fetching = false;
};

class CrawlPass {
 public:
  CrawlPass(const CrawlOptions& options, Engine& engine, Frontier& frontier, const Fetcher& fetcher,
            const Clock& clock, const std::atomic<bool>& stop);

  Result<CrawlReport> Run();

 private:
  // Setup (crawl_pass_seeds.cc).
  Status LoadFrontier() EXCLUDES(mu_);
  Status LoadHosts() EXCLUDES(mu_);
  void EnqueueSeeds();
  void ExpandSitemapsAndFeeds();
  // Waits until `origin`'s robots.txt is known, fetching it when no one else is; false when stopped.
  bool AwaitRobots(const std::string& origin);
  // The Sitemap URLs listed in the robots.txt of the seeds' origins whose host is in scope.
  std::vector<std::string> RobotsSitemaps();
  // Fetches `url` for seeds: waits for the origin's turn and its robots.txt; nullopt on failure.
  std::optional<FetchResponse> FetchSeedDocument(const std::string& url);
  // Fetches and records robots.txt of `origin` (the caller holds the origin's request slot).
  void FetchRobots(const std::string& origin);
  RobotsRules RulesFromHost(const HostRecord& host) const;

  // The loop (crawl_pass.cc).
  void Worker();
  // Claims the next page to fetch (under mu_): its URL and origin; false when there is none now.
  bool Claim(std::string* url, std::string* origin, bool* fetch_robots) REQUIRES(mu_);
  bool Finished() REQUIRES(mu_);  // nothing queued and nothing in flight (or stopped)
  void ProcessPage(const std::string& url, const std::string& origin);
  void HandleOk(const std::string& url, const FetchResponse& response, PageRecord record, int64_t now_ms);
  void Retry(const std::string& url, PageRecord record, const std::string& reason, int64_t now_ms);
  // Counts the failure under `reason`; the page records `detail` when given (e.g.
  // "unsupported_charset:koi8-x", counted as "unsupported_charset").
  void Fail(PageRecord record, const std::string& reason, int64_t now_ms, const std::string& detail = "");
  void Submit(PendingPage page);  // adds to the batch; flushes a full batch
  Status Flush(std::vector<PendingPage> batch);
  // Under mu_: records a link found on a page; true when it is new.
  bool Discover(const std::string& link, int depth, const std::string& from, std::vector<PageRecord>* out)
      REQUIRES(mu_);
  bool Due(const PageRecord& page) const;
  void Schedule(const std::string& url) REQUIRES(mu_);
  void SetError(const Status& status) EXCLUDES(mu_);
  Status FirstError() EXCLUDES(mu_);
  // Whether `doc_id` (the previous document of `url`) is held by no other live page.
  bool SoleOwner(const std::string& url, const std::string& doc_id) REQUIRES(mu_);
  int64_t WallMs() const;

  const CrawlOptions& options_;
  Engine& engine_;
  Frontier& frontier_;
  const Fetcher& fetcher_;
  const Clock& clock_;
  const std::atomic<bool>& stop_;
  Analyzer analyzer_;
  std::optional<CrawlScope> scope_;
  PolitenessScheduler scheduler_;
  int64_t pass_started_ms_ = 0;

  Mutex mu_;
  std::map<std::string, PageRecord> pages_ GUARDED_BY(mu_);      // every known page
  std::map<std::string, OriginState> origins_ GUARDED_BY(mu_);
  std::set<std::string> scheduled_ GUARDED_BY(mu_);               // URLs in some queue
  std::map<std::string, HostRecord> hosts_ GUARDED_BY(mu_);
  std::set<std::string> dirty_hosts_ GUARDED_BY(mu_);             // to write with the next batch
  NearDuplicateIndex near_dups_ GUARDED_BY(mu_);
  std::vector<std::string> fingerprint_urls_ GUARDED_BY(mu_);     // near_dups_ id -> URL
  std::map<std::string, int> attempts_ GUARDED_BY(mu_);           // per URL in this pass
  std::vector<PendingPage> batch_ GUARDED_BY(mu_);
  int in_flight_ GUARDED_BY(mu_) = 0;                              // claimed pages
  uint64_t budget_used_ GUARDED_BY(mu_) = 0;                       // page fetches in this pass
  bool budget_reached_ GUARDED_BY(mu_) = false;
  CrawlReport report_ GUARDED_BY(mu_);
  Status error_ GUARDED_BY(mu_);                                   // the first engine / frontier failure
  std::atomic<bool> failed_{false};
};

// The origin ("scheme://authority") of a canonical URL, or "" when it does not parse.
std::string OriginOf(std::string_view url);

}  // namespace attest
