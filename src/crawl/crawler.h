// Crawler: one pass of a crawl source (docs/crawling.md, "The crawl loop").
//
// A pass loads the frontier, enqueues the seeds (URLs, sitemap entries, feed entries) and every
// known page that is due (next_visit reached, or all of them with revisit_all), then fetches with
// several workers: robots.txt per origin first (cached in the frontier for at most 24 h), one
// request at a time per origin with the politeness delay, conditional requests from the page's
// validators. 304 = only the schedule changes; 404/410 = the document is deleted; 429/503 = the
// origin backs off and the page is retried; a 200 is prepared (crawl_page.h), checked against the
// near-duplicate index, and indexed through Engine::PutDocuments in batches. Crash order: the
// documents are committed to the engine first, then their pages are marked in the frontier in one
// transaction, so after a kill -9 the unmarked pages are fetched again and the engine finds them
// unchanged: a page is never lost nor indexed twice.
//
// Thread-safety: one RunPass at a time per Crawler (and per frontier file); RequestStop may be
// called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "attest/status.h"
#include "crawl/crawl_page.h"
#include "crawl/crawl_scope.h"
#include "crawl/fetcher.h"
#include "crawl/frontier.h"
#include "crawl/politeness.h"

namespace attest {

struct CrawlOptions {
  std::vector<std::string> seeds;     // page URLs
  std::vector<std::string> sitemaps;  // sitemap (or sitemap index) URLs
  std::vector<std::string> feeds;     // RSS / Atom feed URLs
  bool sitemaps_from_robots = true;  // also the Sitemap lines of the seeds' robots.txt files
  ScopeRules scope;
  int max_depth = 50;                 // links followed from a seed
  uint64_t max_pages = 0;             // page fetches per pass (0 = no budget)
  DocumentDefaults documents;
  PolitenessOptions politeness;
  RevisitBounds revisit;
  bool revisit_all = false;           // fetch every known page, due or not (still conditional)
  unsigned workers = 4;
  size_t batch_pages = 48;            // documents per Engine::PutDocuments commit
  int max_attempts = 3;               // per page per pass (network errors, 429/503)
  std::string crawler_token = "AttestBot";  // robots.txt product token
  bool mark_fetching = true;          // record "fetching" in the frontier when a page is claimed
};

struct CrawlReport {
  uint64_t fetched = 0;          // page requests answered (any status)
  uint64_t not_modified = 0;     // 304
  uint64_t indexed = 0;          // documents added or replaced
  uint64_t unchanged = 0;        // fetched, same content as indexed
  uint64_t deleted = 0;          // 404/410 (or noindex) removed a document
  uint64_t duplicates = 0;       // near duplicates of an indexed page, not indexed
  uint64_t robots_denied = 0;    // pages robots.txt excludes (not fetched)
  uint64_t robots_fetches = 0;   // robots.txt requests
  uint64_t sitemap_fetches = 0;  // sitemap and feed requests
  uint64_t noindex = 0;
  uint64_t redirects = 0;        // pages whose fetch was redirected
  uint64_t retries = 0;          // 429/503 and network errors retried in the pass
  uint64_t discovered = 0;       // new pages added to the frontier
  uint64_t out_of_scope = 0;     // links not followed (host, prefix, patterns, depth)
  uint64_t errors = 0;           // pages failed in this pass
  std::map<std::string, uint64_t> errors_by_reason;
  uint64_t recovered_fetching = 0;  // pages a killed pass left "fetching"
  bool resumed = false;          // the pass continued an interrupted one
  bool completed = false;        // the pass ran out of work (false: stopped or budget reached)
  double seconds = 0;
  double pages_per_second = 0;   // fetched / seconds
  int64_t ended_at_ms = 0;       // Unix ms
};

class Crawler {
 public:
  Crawler(CrawlOptions options, Engine& engine, Frontier& frontier, const Fetcher& fetcher, const Clock& clock);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Runs one pass. kInvalidArgument for bad options (seeds, scope); an engine or frontier failure
  // stops the pass with its error (what was committed stays committed).
  Result<CrawlReport> RunPass();
  // Makes a running pass stop soon (workers finish their page, the batch is committed). Sticky:
  // a pass started afterwards stops at once (make a new Crawler for the next pass).
  void RequestStop() { stop_.store(true); }

 private:
  CrawlOptions options_;
  Engine& engine_;
  Frontier& frontier_;
  const Fetcher& fetcher_;
  const Clock& clock_;
  std::atomic<bool> stop_{false};
};

}  // namespace attest
