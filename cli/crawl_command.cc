// `attest crawl`: one pass of a crawl source into the data directory (docs/crawling.md, "attest
// crawl"). The frontier is <data>/crawl/<name>.sqlite; running the same command again continues an
// interrupted pass, or starts the next one (pages whose revisit time has come).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "attest/engine.h"
#include "cli/commands.h"
#include "crawl/crawler.h"

namespace attest::cli {
namespace {

struct CrawlArgs {
  std::string name = "default";
  std::vector<std::string> seeds, sitemaps, feeds, hosts, prefixes, include, exclude;
  int max_depth = 50;
  uint64_t max_pages = 0;
  int64_t delay_ms = 1000;
  bool no_politeness = false;
  bool no_sitemaps_from_robots = false;
  unsigned workers = 4;
  std::vector<std::string> allow_addresses;
  std::vector<uint16_t> allow_ports;
  bool revisit_all = false;
  int64_t revisit_min_s = 3600;
  int64_t revisit_max_s = 30 * 86400;
  size_t batch_pages = 48;
  int64_t timeout_ms = 20000;
  std::string tenant, acl, access_label, source_type, version, site, license;
  bool json = false;
  std::string cluster;                   // NATS servers: write through the cluster's change log
  std::string bucket = "ATTEST_SHARDS";  // the cluster's shard map
};

nlohmann::json ReportJson(const CrawlReport& r, double vector_seconds) {
  nlohmann::json errors = nlohmann::json::object();
  for (const auto& [reason, n] : r.errors_by_reason) errors[reason] = n;
  return {{"fetched", r.fetched},
          {"not_modified", r.not_modified},
          {"indexed", r.indexed},
          {"unchanged", r.unchanged},
          {"deleted", r.deleted},
          {"duplicates", r.duplicates},
          {"robots_denied", r.robots_denied},
          {"robots_fetches", r.robots_fetches},
          {"seed_fetches", r.sitemap_fetches},
          {"noindex", r.noindex},
          {"redirects", r.redirects},
          {"retries", r.retries},
          {"discovered", r.discovered},
          {"out_of_scope", r.out_of_scope},
          {"errors", r.errors},
          {"errors_by_reason", errors},
          {"recovered_fetching", r.recovered_fetching},
          {"resumed", r.resumed},
          {"completed", r.completed},
          {"seconds", r.seconds},
          {"pages_per_s", r.pages_per_second},
          {"vector_seconds", vector_seconds}};
}

class CrawlCommandImpl final : public CrawlCommand {
 public:
  explicit CrawlCommandImpl(CLI::App& app) {
    cmd_ = app.add_subcommand("crawl", "crawl a web site (seeds, sitemaps, feeds) into the data directory; "
                                       "resumable, conditional revisits");
    CrawlArgs& a = args_;
    cmd_->add_option("--name", a.name, "crawl source name: the frontier is <data>/crawl/<name>.sqlite")
        ->capture_default_str();
    cmd_->add_option("--seed", a.seeds, "start URL (repeatable)");
    cmd_->add_option("--sitemap", a.sitemaps, "sitemap or sitemap index URL (repeatable)");
    cmd_->add_option("--feed", a.feeds, "RSS or Atom feed URL (repeatable)");
    cmd_->add_flag("--no-sitemaps-from-robots", a.no_sitemaps_from_robots,
                   "do not use the Sitemap lines of the seeds' robots.txt as sitemap seeds");
    cmd_->add_option("--host", a.hosts, "host (or host:port) in scope (repeatable; default: the seeds' hosts)");
    cmd_->add_option("--prefix", a.prefixes, "path prefix in scope, e.g. /docs/ (repeatable)");
    cmd_->add_option("--include", a.include, "glob over the URL a page must match (repeatable; * and ?)");
    cmd_->add_option("--exclude", a.exclude, "glob over the URL that excludes a page (repeatable; * and ?)");
    cmd_->add_option("--max-depth", a.max_depth, "links followed from a seed")->capture_default_str();
    cmd_->add_option("--max-pages", a.max_pages, "page fetches per pass (0 = no budget)");
    cmd_->add_option("--delay-ms", a.delay_ms, "minimum delay between requests to one host")
        ->check(CLI::Range(int64_t{0}, int64_t{3600000}))
        ->capture_default_str();
    cmd_->add_flag("--no-politeness", a.no_politeness,
                   "no delay between requests and several connections per host (your own site on loopback only)");
    cmd_->add_option("--workers", a.workers, "fetch workers")->check(CLI::Range(1u, 64u))->capture_default_str();
    cmd_->add_option("--allow-address", a.allow_addresses,
                     "CIDR exempted from the SSRF guard, e.g. 127.0.0.0/8 for a local test site (repeatable)");
    cmd_->add_option("--allow-port", a.allow_ports, "port allowed besides 80 and 443 (repeatable)");
    cmd_->add_flag("--revisit-all", a.revisit_all, "revisit every known page now (conditional requests)");
    cmd_->add_option("--revisit-min", a.revisit_min_s, "shortest revisit interval, seconds")->capture_default_str();
    cmd_->add_option("--revisit-max", a.revisit_max_s, "longest revisit interval, seconds")->capture_default_str();
    cmd_->add_option("--batch-pages", a.batch_pages, "documents per atomic commit")
        ->check(CLI::Range(size_t{1}, size_t{10000}))
        ->capture_default_str();
    cmd_->add_option("--timeout-ms", a.timeout_ms, "per-fetch timeout")->capture_default_str();
    cmd_->add_option("--tenant", a.tenant, "tenant the documents belong to");
    cmd_->add_option("--acl", a.acl, "comma-separated ACL groups (default: public)");
    cmd_->add_option("--access-label", a.access_label, "access label of the documents");
    cmd_->add_option("--source-type", a.source_type, "source type of the documents (e.g. docs)");
    cmd_->add_option("--version", a.version, "version label of the documents");
    cmd_->add_option("--site", a.site, "site label (default: the page's host)");
    cmd_->add_option("--license", a.license, "licence or terms of the source, recorded on every document");
    cmd_->add_flag("--json", a.json, "print the summary as JSON");
    cmd_->add_option("--cluster", a.cluster,
                     "NATS servers (nats://host:port, comma-separated): append the pages to the cluster's change "
                     "log instead of indexing them in --data, which keeps the frontier (docs/cluster.md)");
    cmd_->add_option("--cluster-bucket", a.bucket, "the cluster's shard map bucket")->capture_default_str();
  }

  bool Selected() const override { return cmd_->parsed(); }
  int Run(const GlobalArgs& g) override;

 private:
  CLI::App* cmd_ = nullptr;
  CrawlArgs args_;
};

Result<CrawlOptions> MakeCrawlOptions(const CrawlArgs& a) {
  CrawlOptions o;
  o.seeds = a.seeds;
  o.sitemaps = a.sitemaps;
  o.feeds = a.feeds;
  o.sitemaps_from_robots = !a.no_sitemaps_from_robots;
  o.scope.hosts = a.hosts;
  o.scope.path_prefixes = a.prefixes;
  o.scope.include = a.include;
  o.scope.exclude = a.exclude;
  o.max_depth = a.max_depth;
  o.max_pages = a.max_pages;
  o.politeness.enabled = !a.no_politeness;
  o.politeness.floor = std::chrono::milliseconds{a.delay_ms};
  o.politeness.max_parallel_per_host = static_cast<int>(a.workers);
  o.workers = a.workers;
  o.revisit_all = a.revisit_all;
  if (a.revisit_min_s < 1 || a.revisit_max_s < a.revisit_min_s) {
    return Status::InvalidArgument("--revisit-min must be >= 1 and <= --revisit-max");
  }
  o.revisit.min = std::chrono::seconds{a.revisit_min_s};
  o.revisit.max = std::chrono::seconds{a.revisit_max_s};
  o.revisit.initial = std::clamp(std::chrono::seconds{86400}, o.revisit.min, o.revisit.max);
  o.batch_pages = a.batch_pages;
  o.documents.tenant = StoreTenant(a.tenant);
  o.documents.acl_groups = SplitList(a.acl);
  o.documents.access_label = a.access_label;
  o.documents.source_type = a.source_type;
  o.documents.version = a.version;
  o.documents.site = a.site;
  o.documents.license = a.license;
  return o;
}

Result<FetcherOptions> MakeFetcherOptions(const CrawlArgs& a) {
  FetcherOptions f;
  for (const std::string& cidr : a.allow_addresses) {
    Result<Cidr> c = ParseCidr(cidr);
    if (!c.ok()) return c.status().WithContext("--allow-address '" + cidr + "'");
    f.policy.allow.push_back(*c);
  }
  for (uint16_t port : a.allow_ports) f.policy.allowed_ports.push_back(port);
  f.timeout_ms = a.timeout_ms;
  return f;
}

void PrintSummary(const CrawlReport& r, double vector_seconds, const std::string& frontier) {
  std::printf(
      "crawled %llu pages in %.2f s (%.1f pages/s)%s: %llu not modified (304), %llu indexed, %llu unchanged, "
      "%llu deleted, %llu duplicates, %llu robots denied, %llu errors\n",
      static_cast<unsigned long long>(r.fetched), r.seconds, r.pages_per_second,
      r.resumed ? " (resumed an interrupted pass)" : "", static_cast<unsigned long long>(r.not_modified),
      static_cast<unsigned long long>(r.indexed), static_cast<unsigned long long>(r.unchanged),
      static_cast<unsigned long long>(r.deleted), static_cast<unsigned long long>(r.duplicates),
      static_cast<unsigned long long>(r.robots_denied), static_cast<unsigned long long>(r.errors));
  for (const auto& [reason, n] : r.errors_by_reason) {
    std::printf("  error %s: %llu\n", reason.c_str(), static_cast<unsigned long long>(n));
  }
  std::printf("frontier %s; %llu new pages discovered, %llu links out of scope%s; vector leg %.2f s\n",
              frontier.c_str(), static_cast<unsigned long long>(r.discovered),
              static_cast<unsigned long long>(r.out_of_scope),
              r.completed ? "" : "; the page budget was reached (the next run continues with the pages left)", vector_seconds);
}

int CrawlCommandImpl::Run(const GlobalArgs& g) {
  const CrawlArgs& a = args_;
  Result<CrawlOptions> options = MakeCrawlOptions(a);
  Result<FetcherOptions> fetcher_options = MakeFetcherOptions(a);
  Result<std::filesystem::path> frontier_path = FrontierPath(g.data_dir, a.name);
  for (const Status& s : {options.status(), fetcher_options.status(), frontier_path.status()}) {
    if (!s.ok()) {
      std::fprintf(stderr, "attest: %s\n", s.message().c_str());
      return kExitUsage;
    }
  }
  if (a.seeds.empty() && a.sitemaps.empty() && a.feeds.empty()) {
    std::fprintf(stderr, "attest: crawl needs at least one --seed, --sitemap or --feed\n");
    return kExitUsage;
  }
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  // Vectors as after `attest ingest`: trained once the pages are in (not after every batch), so the
  // crawl opens the engine without training and applies the vector policy at the end.
  CrawlReport report;
  {
    EngineOptions crawl_eo = *eo;
    crawl_eo.embedder.kind = EmbedderKind::kNone;
    auto engine = a.cluster.empty() ? Engine::Open(crawl_eo) : OpenClusterWriter(a.cluster, a.bucket, eo->access_levels);
    if (!engine.ok()) {
      std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                   FailureText(engine.status(), g.data_dir).c_str());
      return kExitFailure;
    }
    auto frontier = Frontier::Open(*frontier_path);
    if (!frontier.ok()) {
      std::fprintf(stderr, "attest: cannot open the crawl frontier: %s\n", frontier.status().ToString().c_str());
      return kExitFailure;
    }
    Fetcher fetcher(*fetcher_options);
    Crawler crawler(*options, **engine, **frontier, fetcher, *RealClock());
    Result<CrawlReport> r = crawler.RunPass();
    if (!r.ok()) {
      const bool usage = r.status().code() == StatusCode::kInvalidArgument;
      std::fprintf(stderr, "attest: crawl failed: %s\n", FailureText(r.status(), g.data_dir).c_str());
      return usage ? kExitUsage : kExitFailure;
    }
    report = *r;
  }
  double vector_seconds = 0;
  if (a.cluster.empty() && eo->embedder.kind != EmbedderKind::kNone && report.indexed + report.deleted > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    auto engine = Engine::Open(*eo);
    Status v = engine.ok() ? (*engine)->RefreshVectors() : engine.status();
    if (!v.ok()) std::fprintf(stderr, "attest: vectors not updated: %s\n", v.ToString().c_str());
    vector_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (a.json) {
    nlohmann::json j = ReportJson(report, vector_seconds);
    j["frontier"] = frontier_path->string();
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    PrintSummary(report, vector_seconds, frontier_path->string());
  }
  return report.errors == 0 ? kExitOk : kExitPartial;
}

}  // namespace

std::unique_ptr<CrawlCommand> RegisterCrawlCommand(CLI::App& app) {
  return std::make_unique<CrawlCommandImpl>(app);
}

}  // namespace attest::cli
