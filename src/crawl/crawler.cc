#include "crawl/crawler.h"

#include <utility>

#include "crawl/crawl_pass.h"

namespace attest {

Crawler::Crawler(CrawlOptions options, Engine& engine, Frontier& frontier, const Fetcher& fetcher, const Clock& clock)
    : options_(std::move(options)), engine_(engine), frontier_(frontier), fetcher_(fetcher), clock_(clock) {}

Crawler::~Crawler() = default;

Result<CrawlReport> Crawler::RunPass() {
  CrawlPass pass(options_, engine_, frontier_, fetcher_, clock_, stop_);
  return pass.Run();
}

}  // namespace attest
