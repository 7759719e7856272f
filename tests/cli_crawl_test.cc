// Black-box tests of `attest crawl` (the real binary) against a directory served on loopback, and
// the crawl bars of issue 14: the PostgreSQL 15 documentation crawled from a local site equals
// `attest ingest` of the same folder (documents, chunk texts, top-10 results), a second crawl with
// ETags is all 304 and re-indexes nothing, and the crawl reaches 50 pages/s with politeness off.
//
// The documentation is Debian's postgresql-doc-15 (installed by scripts/bootstrap); without it the
// bar test FAILS, unless ATTEST_ALLOW_MISSING_PGDOCS=1 turns that into a skip.
// ATTEST_CRAWL_BENCH_RUNS=N repeats the timed crawl and ingest N times and prints median and spread.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "attest/engine.h"
#include "support/process.h"
#include "support/test_site_server.h"

namespace attest {
namespace {

using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

constexpr const char* kPgDocs = "/usr/share/doc/postgresql-doc-15/html";

// The documentation served from loopback by the test site server (strong ETags, Last-Modified,
// 304s, robots.txt); `robots` "" = no robots.txt (404).
class DirectorySite {
 public:
  DirectorySite(const std::filesystem::path& root, const std::string& robots, const std::string& base_path = "/")
      : server_(Options(root, base_path)) {
    if (!robots.empty()) server_.SetRobots(200, robots);
    const Status started = server_.Start();
    EXPECT_TRUE(started.ok()) << started.ToString();
  }
  std::string base() const { return server_.origin(); }
  int port() const { return server_.port(); }
  std::string url(const std::string& path) const { return server_.Url(path); }
  size_t total_requests() const { return server_.RequestCount(); }
  int requests(const std::string& prefix) const { return static_cast<int>(server_.CountWithPrefix(prefix)); }

 private:
  static testing_support::TestSiteOptions Options(const std::filesystem::path& root, const std::string& base_path) {
    testing_support::TestSiteOptions o;
    o.root = root;
    o.base_path = base_path;
    return o;
  }
  testing_support::TestSiteServer server_;
};

bool PgDocsPresent() {
  if (std::filesystem::exists(std::filesystem::path(kPgDocs) / "index.html")) return true;
  const char* allow = std::getenv("ATTEST_ALLOW_MISSING_PGDOCS");
  if (allow && std::string(allow) == "1") return false;
  ADD_FAILURE() << kPgDocs << " is missing: install postgresql-doc-15 (scripts/bootstrap), or set "
                << "ATTEST_ALLOW_MISSING_PGDOCS=1 to skip the crawl bars";
  return false;
}

double ChildCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Timed {
  testing_support::ProcessResult result;
  double wall = 0, cpu = 0;
};

Timed RunTimed(const std::vector<std::string>& args) {
  const double cpu0 = ChildCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  Timed t;
  t.result = RunAttest(args);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.cpu = ChildCpuSeconds() - cpu0;
  return t;
}

std::vector<std::string> CrawlArgs(const std::string& data, const DirectorySite& site, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--data", data,  "--embedder", "none", "crawl", "--seed", site.base() + "/index.html",
                                   "--allow-address", "127.0.0.1/32", "--allow-port", std::to_string(site.port()),
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::unique_ptr<Engine> OpenReadOnly(const std::string& data) {
  EngineOptions eo;
  eo.data_dir = data;
  eo.read_only = true;
  eo.embedder.kind = EmbedderKind::kNone;
  auto e = Engine::Open(eo);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(*e) : nullptr;
}

std::vector<std::string> AllIds(Engine& engine) {
  std::vector<std::string> ids;
  ListDocumentsOptions lo;
  lo.limit = 1000;
  for (;;) {
    auto page = engine.ListDocuments(lo);
    EXPECT_TRUE(page.ok());
    if (!page.ok()) break;
    for (const DocumentSummary& d : page->documents) ids.push_back(d.id);
    if (!page->next_after_id) break;
    lo.after_id = *page->next_after_id;
  }
  return ids;
}

std::vector<std::string> TopIds(Engine& engine, const std::string& query, const std::string& strip) {
  SearchOptions so;
  so.query = query;
  so.k = 10;
  so.mode = SearchMode::kBm25;
  so.with_snippets = false;
  auto r = engine.Search(so);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> ids;
  if (!r.ok()) return ids;
  for (const SearchHit& h : r->hits) {
    ids.push_back(h.doc_id.starts_with(strip) ? h.doc_id.substr(strip.size()) : h.doc_id);
  }
  return ids;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(CliCrawlTest, PostgresDocsCrawlEqualsIngestAndSecondCrawlIsAllNotModified) {
  if (!PgDocsPresent()) GTEST_SKIP() << "postgresql-doc-15 missing (ATTEST_ALLOW_MISSING_PGDOCS=1)";
  TempDir tmp;
  DirectorySite site(kPgDocs, "");
  const std::string ingest_data = tmp.str("ingest"), crawl_data = tmp.str("crawl");
  Timed ingest = RunTimed({"--data", ingest_data, "--embedder", "none", "ingest", kPgDocs, "--json"});
  ASSERT_EQ(ingest.result.exit_code, 0) << ingest.result.err;
  Timed crawl = RunTimed(CrawlArgs(crawl_data, site, {"--no-politeness", "--workers", "4"}));
  ASSERT_EQ(crawl.result.exit_code, 0) << crawl.result.err << crawl.result.out;
  const nlohmann::json ij = nlohmann::json::parse(ingest.result.out);
  const nlohmann::json cj = nlohmann::json::parse(crawl.result.out);
  std::printf("ingest: %s documents, wall %.2f s, cpu %.2f s\n", ij["documents"].dump().c_str(), ingest.wall,
              ingest.cpu);
  std::printf("crawl:  %s pages, %s indexed, %.1f pages/s (crawl loop), wall %.2f s, cpu %.2f s\n",
              cj["fetched"].dump().c_str(), cj["indexed"].dump().c_str(), cj["pages_per_s"].get<double>(), crawl.wall,
              crawl.cpu);
  EXPECT_EQ(cj["errors"], 0);
  EXPECT_EQ(cj["indexed"], ij["added"]);
  EXPECT_EQ(cj["duplicates"], 0);  // the documentation has no near-duplicate pages (docs/crawling.md)
  // The throughput bar: the 1,169 pages in at most 30 s, at least 50 pages/s (politeness off).
  EXPECT_LE(crawl.wall, 30.0);
  EXPECT_GE(cj["fetched"].get<double>() / crawl.wall, 50.0);

  {
    // Same documents and identical chunk texts (crawl ids = base URL + the ingest's relative path).
    auto a = OpenReadOnly(ingest_data);
    auto b = OpenReadOnly(crawl_data);
    ASSERT_TRUE(a && b);
    const std::string base = site.base() + "/";
    std::vector<std::string> ingest_ids = AllIds(*a), crawl_ids = AllIds(*b);
    std::vector<std::string> mapped;
    for (const std::string& id : crawl_ids) mapped.push_back(id.starts_with(base) ? id.substr(base.size()) : id);
    std::sort(mapped.begin(), mapped.end());
    ASSERT_EQ(ingest_ids.size(), 1169u);
    ASSERT_EQ(mapped, ingest_ids);
    size_t differing = 0;
    SearchFilter admin;
    for (const std::string& id : ingest_ids) {
      auto da = a->GetDocument(admin, id);
      auto db = b->GetDocument(admin, base + id);
      ASSERT_TRUE(da.ok() && db.ok()) << id;
      if (da->text != db->text || da->chunk_ids.size() != db->chunk_ids.size() || da->title != db->title) {
        if (++differing <= 3) ADD_FAILURE() << "chunks of " << id << " differ";
      }
    }
    EXPECT_EQ(differing, 0u);
    // Same top-10 results (BM25: the vector leg is off in both stores).
    size_t same = 0;
    const std::vector<std::string> queries = {
        "max_wal_senders",        "logical replication slot", "VACUUM FREEZE wraparound", "CREATE INDEX CONCURRENTLY",
        "pg_stat_activity",       "window functions",         "foreign data wrapper",     "checkpoint_timeout",
        "row level security",     "JSONB operators",          "EXPLAIN ANALYZE buffers",  "hot standby feedback"};
    for (const std::string& q : queries) {
      const auto ta = TopIds(*a, q, "");
      const auto tb = TopIds(*b, q, base);
      EXPECT_EQ(ta, tb) << q;
      same += ta == tb && !ta.empty();
    }
    std::printf("top-10 identical for %zu of %zu queries\n", same, queries.size());
  }

  // Second crawl of every page with the validators: all 304, nothing re-indexed, same snapshot.
  auto stats = [&] {
    auto r = RunAttest({"--data", crawl_data, "stats", "--json"});
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json before = stats();
  Timed again = RunTimed(CrawlArgs(crawl_data, site, {"--no-politeness", "--workers", "4", "--revisit-all"}));
  ASSERT_EQ(again.result.exit_code, 0) << again.result.err;
  const nlohmann::json aj = nlohmann::json::parse(again.result.out);
  EXPECT_EQ(aj["fetched"], 1169);
  EXPECT_EQ(aj["not_modified"], 1169);
  EXPECT_EQ(aj["indexed"], 0);
  EXPECT_EQ(stats()["snapshot_version"], before["snapshot_version"]);
  std::printf("second crawl: %s not modified, wall %.2f s\n", aj["not_modified"].dump().c_str(), again.wall);

  // Optional measurement: median and spread of N timed runs each.
  const char* runs_env = std::getenv("ATTEST_CRAWL_BENCH_RUNS");
  const int runs = runs_env ? std::atoi(runs_env) : 0;
  if (runs > 0) {
    std::vector<double> cw, cc, iw, ic;
    for (int i = 0; i < runs; ++i) {
      const std::string c = tmp.str("bench_crawl_" + std::to_string(i)), d = tmp.str("bench_ingest_" + std::to_string(i));
      Timed tc = RunTimed(CrawlArgs(c, site, {"--no-politeness", "--workers", "4"}));
      ASSERT_EQ(tc.result.exit_code, 0) << tc.result.err;
      Timed ti = RunTimed({"--data", d, "--embedder", "none", "ingest", kPgDocs, "--json"});
      ASSERT_EQ(ti.result.exit_code, 0);
      cw.push_back(tc.wall), cc.push_back(tc.cpu), iw.push_back(ti.wall), ic.push_back(ti.cpu);
    }
    auto spread = [](const std::vector<double>& v) {
      return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end());
    };
    std::printf("bench (%d runs): crawl wall median %.2f s (spread %.2f), cpu %.2f s (spread %.2f), %.1f pages/s; "
                "ingest wall median %.2f s (spread %.2f), cpu %.2f s (spread %.2f)\n",
                runs, Median(cw), spread(cw), Median(cc), spread(cc), 1169 / Median(cw), Median(iw), spread(iw),
                Median(ic), spread(ic));
  }
}

TEST(CliCrawlTest, RobotsSubtreeIsNeverFetchedAndFlagsAreChecked) {
  if (!PgDocsPresent()) GTEST_SKIP() << "postgresql-doc-15 missing (ATTEST_ALLOW_MISSING_PGDOCS=1)";
  TempDir tmp;
  // Disallow every page whose name starts with "sql-" (the SQL command reference).
  DirectorySite site(kPgDocs, "User-agent: AttestBot\nDisallow: /sql-\n\nUser-agent: *\nDisallow: /\n");
  auto r = RunAttest(CrawlArgs(tmp.str("data"), site, {"--no-politeness", "--workers", "2", "--name", "pg"}));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(site.requests("/sql-"), 0);
  EXPECT_GT(j["robots_denied"].get<int>(), 100);
  EXPECT_GT(j["indexed"].get<int>(), 900);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "data" / "crawl" / "pg.sqlite"));
  // Usage errors: no seed; a bad source name; a bad CIDR.
  EXPECT_EQ(RunAttest({"--data", tmp.str("data"), "crawl"}).exit_code, 2);
  EXPECT_EQ(RunAttest({"--data", tmp.str("data"), "crawl", "--seed", "http://x.example/", "--name", "../x"}).exit_code, 2);
  EXPECT_EQ(RunAttest({"--data", tmp.str("data"), "crawl", "--seed", "http://x.example/", "--allow-address", "nope"})
                .exit_code,
            2);
  // Without --allow-address the SSRF guard refuses the loopback site: the seed fails, named.
  auto refused = RunAttest({"--data", tmp.str("other"), "--embedder", "none", "crawl", "--seed",
                            site.base() + "/index.html", "--allow-port", std::to_string(site.port()), "--json"});
  EXPECT_EQ(refused.exit_code, 3) << refused.err << refused.out;
  const nlohmann::json rj = nlohmann::json::parse(refused.out);
  EXPECT_EQ(rj["errors_by_reason"].value("address_not_global:loopback", 0), 1) << refused.out;
}

TEST(CliCrawlTest, ScopeRulesPrefixExcludeDepthAndBudget) {
  if (!PgDocsPresent()) GTEST_SKIP() << "postgresql-doc-15 missing (ATTEST_ALLOW_MISSING_PGDOCS=1)";
  TempDir tmp;
  DirectorySite site(kPgDocs, "", "/docs/15/");
  auto r = RunAttest({"--data", tmp.str("data"), "--embedder", "none", "crawl", "--seed", site.url("/docs/15/index.html"),
                      "--prefix", "/docs/15/", "--exclude", "*/release-*", "--exclude", "*/sql-*", "--max-depth", "2",
                      "--max-pages", "150", "--no-politeness", "--allow-address", "127.0.0.1/32", "--allow-port",
                      std::to_string(site.port()), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(site.requests("/docs/15/release-"), 0);
  EXPECT_EQ(site.requests("/docs/15/sql-"), 0);
  EXPECT_EQ(j["fetched"], 150);  // the budget
  EXPECT_FALSE(j["completed"].get<bool>());
  EXPECT_GT(j["out_of_scope"].get<int>(), 0);
  // 150 pages, robots.txt, and nothing outside the prefix.
  EXPECT_EQ(site.total_requests(), 151u);
  EXPECT_EQ(static_cast<size_t>(site.requests("/docs/15/")), 150u);
  // The next run goes on with the pages the budget left queued (none fetched again; robots.txt
  // comes from the frontier).
  auto next = RunAttest({"--data", tmp.str("data"), "--embedder", "none", "crawl", "--seed",
                         site.url("/docs/15/index.html"), "--prefix", "/docs/15/", "--exclude", "*/release-*",
                         "--exclude", "*/sql-*", "--max-depth", "2", "--max-pages", "150", "--no-politeness",
                         "--allow-address", "127.0.0.1/32", "--allow-port", std::to_string(site.port()), "--json"});
  ASSERT_EQ(next.exit_code, 0) << next.err;
  const nlohmann::json n = nlohmann::json::parse(next.out);
  EXPECT_EQ(n["fetched"].get<int>() + j["fetched"].get<int>(), static_cast<int>(site.total_requests()) - 1);
  EXPECT_EQ(n["not_modified"], 0);
  EXPECT_EQ(n["indexed"], n["fetched"]);
  EXPECT_EQ(site.requests("/docs/15/release-"), 0);
}

}  // namespace
}  // namespace attest
