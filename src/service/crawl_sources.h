// Crawl sources of the server (`attest serve --crawl-config FILE`): each source is a crawl
// (crawl/crawler.h) run again every `interval` on a background thread, into the server's engine,
// with its frontier at <data>/crawl/<name>.sqlite, and counted in the metrics registry
// (docs/crawling.md, "Crawl sources of the server").
//
// The configuration file is JSON: {"sources": [{"name": ..., "interval_seconds": ..., "seeds":
// [...], ...}]}; every field is checked for its type and unknown fields are refused, each error
// naming the field.
//
// Thread-safety: Start and Stop from one thread; the background thread owns the crawlers.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "attest/status.h"
#include "common/thread_annotations.h"
#include "crawl/crawler.h"
#include "crawl/fetcher.h"
#include "service/metrics.h"

namespace attest::service {

struct CrawlSourceConfig {
  std::string name;
  std::chrono::seconds interval{3600};
  CrawlOptions crawl;
  FetcherOptions fetcher;
};

// Parses the configuration file's text. kInvalidArgument naming the source and field.
Result<std::vector<CrawlSourceConfig>> ParseCrawlConfig(std::string_view json_text);

class CrawlSources {
 public:
  CrawlSources(Engine& engine, Registry& metrics, std::filesystem::path data_dir,
               std::vector<CrawlSourceConfig> sources, const Clock& clock);
  ~CrawlSources();
  CrawlSources(const CrawlSources&) = delete;
  CrawlSources& operator=(const CrawlSources&) = delete;

  // Opens every source's frontier (an error names the source) and starts the thread: each source
  // runs a pass at once, then every interval after its previous pass ended.
  Status Start();
  // Stops a running pass (its batch is committed) and joins the thread.
  void Stop();

 private:
  struct Source;
  void Loop() EXCLUDES(mu_);
  void RunPass(Source& source) EXCLUDES(mu_);

  Engine& engine_;
  Registry& metrics_;
  const std::filesystem::path data_dir_;
  const Clock& clock_;
  std::vector<std::unique_ptr<Source>> sources_;
  Mutex mu_;
  CondVar cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  Crawler* running_ GUARDED_BY(mu_) = nullptr;  // the crawler of the pass in progress
  std::thread thread_;
};

}  // namespace attest::service
