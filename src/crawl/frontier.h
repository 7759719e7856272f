// Frontier: the durable state of one crawl source, in SQLite at <data_dir>/crawl/<source>.sqlite
// (WAL, synchronous=FULL; the format is described in docs/crawling.md, "The frontier").
//
// One row per page, keyed by its canonical URL, with what the crawler knows of it (state, depth,
// validators, content digest, document id, SimHash, duplicate and alias records, revisit schedule,
// attempts and the last outcome), one row per origin (robots.txt as fetched, Crawl-delay, the
// earliest time of the next request), and a meta table (format name, schema version, the open
// pass). Everything a crash can interrupt is recoverable: pages left "fetching" by a killed
// process are queued again when the frontier is opened.
//
// Thread-safety: all methods may be called from any thread; one internal mutex serializes them
// (the frontier has one connection; checked by Clang's thread-safety analysis).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"

namespace attest {

class SqliteDb;

inline constexpr std::string_view kFrontierFormat = "attest-crawl-frontier";
inline constexpr int kFrontierSchemaVersion = 1;

enum class PageState { kQueued, kFetching, kDone, kFailed, kExcluded, kDuplicate, kGone };
std::string_view PageStateName(PageState state);
std::optional<PageState> ParsePageState(std::string_view name);

struct PageRecord {
  std::string url;              // canonical URL: the key
  PageState state = PageState::kQueued;
  int depth = 0;                // links followed from a seed (seeds, sitemap and feed entries: 0)
  std::string discovered_from;  // the page (or sitemap, feed, "seed") that named it
  std::string etag, last_modified;  // validators of the last 200 response
  std::string sha256;           // of the last indexed body
  std::string doc_id;           // the engine document holding it ("" = none)
  std::optional<uint64_t> simhash;  // of the extracted text of the last indexed body
  std::string duplicate_of;     // state duplicate: the page it repeats
  std::string canonical;        // rel=canonical the page declared (same site, resolved), or ""
  std::string redirected_to;    // the canonical final URL when the fetch was redirected, or ""
  std::string alias_word;       // "current", "latest" or "stable" when the URL has one
  std::string alias_version;    // the version that URL served at fetch time
  int64_t fetched_at_ms = 0;    // Unix milliseconds of the last fetch (0 = never)
  int64_t next_visit_ms = 0;    // when the page is due again
  int64_t revisit_interval_s = 0;
  int attempts = 0;             // failed attempts in a row
  int last_status = 0;          // last HTTP status (0 = none, e.g. a network error)
  std::string error;            // reason of the last failure or exclusion, "" when fine
  // Written before the engine commit of a body (write-ahead intent): a re-fetch after a crash that
  // finds the same body reuses pending_fetched_at_ms, so the document is identical (unchanged).
  std::string pending_sha256;
  int64_t pending_fetched_at_ms = 0;
};

struct HostRecord {
  std::string origin;              // "scheme://authority"
  // robots.txt as fetched: "" = never, "response" or "network_error".
  std::string robots_kind;
  int robots_http_status = 0;
  int robots_redirects = 0;
  std::string robots_body;
  std::string robots_outcome;      // parsed / unavailable / unreachable
  int64_t robots_fetched_at_ms = 0;
  int64_t crawl_delay_ms = 0;      // from robots.txt (0 = none)
  int64_t next_allowed_ms = 0;     // no request before this (Retry-After and back-off survive restarts)
};

// One transaction's worth of changes.
struct FrontierWrite {
  std::vector<PageRecord> pages;       // full records, inserted or replaced
  std::vector<PageRecord> discovered;  // inserted when absent; a known page keeps its row (depth lowered)
  std::vector<HostRecord> hosts;       // inserted or replaced
};

struct PassInfo {
  int64_t started_at_ms = 0;
  bool resumed = false;  // the previous pass had not finished: it continues
};

struct FrontierCounts {
  uint64_t queued = 0, fetching = 0, done = 0, failed = 0, excluded = 0, duplicate = 0, gone = 0;
};

class Frontier {
 public:
  // Opens or creates the file (its directory too). Pages in state "fetching" become "queued".
  static Result<std::unique_ptr<Frontier>> Open(const std::filesystem::path& path);
  ~Frontier();
  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;

  // Pages that were "fetching" when the file was opened (a crash interrupted them).
  uint64_t recovered_fetching() const { return recovered_fetching_; }
  const std::filesystem::path& path() const { return path_; }

  Result<std::vector<PageRecord>> AllPages();
  Result<std::optional<PageRecord>> FindPage(std::string_view url);
  Result<std::vector<HostRecord>> AllHosts();
  Result<std::optional<HostRecord>> FindHost(std::string_view origin);
  Result<FrontierCounts> Counts();

  // Applies `write` in one transaction.
  Status Apply(const FrontierWrite& write);
  // Sets the state of pages (e.g. "fetching" when claimed) in one transaction.
  Status SetStates(const std::vector<std::string>& urls, PageState state);

  // Starts a pass at `now_ms` (or 1 ms after the previous pass ended, if later), or continues the
  // one a killed process left open.
  Result<PassInfo> BeginPass(int64_t now_ms);
  Status EndPass(int64_t now_ms);
  Result<std::optional<std::string>> Meta(std::string_view key);

 private:
  Frontier(std::filesystem::path path, std::unique_ptr<SqliteDb> db);
  Status EnsureSchema() EXCLUDES(mu_);
  Status SetMetaLocked(std::string_view key, std::string_view value) REQUIRES(mu_);
  Result<std::optional<std::string>> MetaLocked(std::string_view key) REQUIRES(mu_);

  Mutex mu_;
  std::filesystem::path path_;
  std::unique_ptr<SqliteDb> db_ PT_GUARDED_BY(mu_);
  uint64_t recovered_fetching_ = 0;
};

// <data_dir>/crawl/<name>.sqlite; kInvalidArgument when the name is not 1-64 of [A-Za-z0-9_.-]
// (or starts with '.').
Result<std::filesystem::path> FrontierPath(const std::filesystem::path& data_dir, std::string_view name);

}  // namespace attest
