// The crawl frontier (durable state, recovery of "fetching" pages), the politeness scheduler on a
// fake clock, the scope globs, and the small rules of the crawl loop (revisit interval, version
// aliases).
#include "crawl/frontier.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "crawl/crawl_page.h"
#include "crawl/crawl_scope.h"
#include "crawl/politeness.h"
#include "store/sqlite_util.h"
#include "support/fake_clock.h"

namespace attest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing_support::FakeClock;

class FrontierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("attest_frontier_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(FrontierTest, RoundTripsPagesAndHostsAndRecoversFetching) {
  auto path = FrontierPath(dir_, "site");
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, dir_ / "crawl" / "site.sqlite");
  {
    auto f = Frontier::Open(*path);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    PageRecord p;
    p.url = "http://a.example/x";
    p.state = PageState::kDone;
    p.depth = 2;
    p.etag = "\"e1\"";
    p.simhash = 0xFFFFFFFFFFFFFFFFull;  // the full 64 bits survive SQLite's signed integers
    p.alias_word = "current";
    p.alias_version = "15";
    PageRecord q;
    q.url = "http://a.example/y";
    q.state = PageState::kFetching;
    HostRecord h;
    h.origin = "http://a.example";
    h.robots_kind = "response";
    h.robots_http_status = 200;
    h.robots_body = std::string("User-agent: *\0Disallow: /p\n", 27);
    h.next_allowed_ms = 42;
    FrontierWrite w;
    w.pages = {p, q};
    w.hosts = {h};
    ASSERT_TRUE((*f)->Apply(w).ok());
    // A discovered link never overwrites a known page; it only lowers its depth.
    PageRecord again;
    again.url = p.url;
    again.depth = 1;
    FrontierWrite d;
    d.discovered = {again};
    ASSERT_TRUE((*f)->Apply(d).ok());
  }
  auto f = Frontier::Open(*path);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->recovered_fetching(), 1u);
  auto x = (*f)->FindPage("http://a.example/x");
  ASSERT_TRUE(x.ok() && x->has_value());
  EXPECT_EQ((*x)->state, PageState::kDone);
  EXPECT_EQ((*x)->depth, 1);
  EXPECT_EQ((*x)->etag, "\"e1\"");
  EXPECT_EQ((*x)->simhash, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ((*x)->alias_version, "15");
  auto y = (*f)->FindPage("http://a.example/y");
  ASSERT_TRUE(y.ok() && y->has_value());
  EXPECT_EQ((*y)->state, PageState::kQueued);
  auto host = (*f)->FindHost("http://a.example");
  ASSERT_TRUE(host.ok() && host->has_value());
  EXPECT_EQ((*host)->robots_body.size(), 27u);
  EXPECT_EQ((*host)->next_allowed_ms, 42);
  auto counts = (*f)->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 1u);
  EXPECT_EQ(counts->queued, 1u);
}

TEST_F(FrontierTest, PassesResumeUntilEnded) {
  auto f = Frontier::Open(dir_ / "p.sqlite");
  ASSERT_TRUE(f.ok());
  auto first = (*f)->BeginPass(1000);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->resumed);
  auto again = (*f)->BeginPass(2000);  // a killed process left the pass open
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->resumed);
  EXPECT_EQ(again->started_at_ms, 1000);
  ASSERT_TRUE((*f)->EndPass(3000).ok());
  auto next = (*f)->BeginPass(4000);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->resumed);
  EXPECT_EQ(next->started_at_ms, 4000);
  // Passes back to back within one millisecond: the next starts after the last one ended, so
  // nothing fetched in the previous pass counts as fetched in this one.
  ASSERT_TRUE((*f)->EndPass(5000).ok());
  auto same_ms = (*f)->BeginPass(5000);
  ASSERT_TRUE(same_ms.ok());
  EXPECT_EQ(same_ms->started_at_ms, 5001);
  ASSERT_TRUE((*f)->EndPass(5001).ok());
  auto clock_back = (*f)->BeginPass(4500);  // the wall clock stepped back
  ASSERT_TRUE(clock_back.ok());
  EXPECT_EQ(clock_back->started_at_ms, 5002);
}

TEST_F(FrontierTest, RefusesOtherFilesAndBadNames) {
  EXPECT_FALSE(FrontierPath(dir_, "../x").ok());
  EXPECT_FALSE(FrontierPath(dir_, "").ok());
  EXPECT_FALSE(FrontierPath(dir_, ".hidden").ok());
  std::filesystem::create_directories(dir_);
  {
    SqliteOpenArgs args;
    args.path = dir_ / "o.sqlite";
    args.create = true;
    auto db = SqliteDb::Open(args);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); "
                            "INSERT INTO meta VALUES('format', 'something-else')").ok());
  }
  // Not a frontier: a SQLite file whose meta names another format.
  auto f = Frontier::Open(dir_ / "o.sqlite");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("not a crawl frontier"), std::string::npos) << f.status().ToString();
}

TEST(PolitenessTest, OneRequestPerHostAndTheFloorBetweenThem) {
  FakeClock clock;
  PolitenessOptions o;
  o.floor = milliseconds{500};
  PolitenessScheduler s(o, clock);
  EXPECT_TRUE(s.TryStart("h"));
  EXPECT_FALSE(s.TryStart("h"));  // in flight
  EXPECT_TRUE(s.TryStart("g"));   // another host
  s.Finish("h", {milliseconds{10}, 200, std::nullopt});
  EXPECT_FALSE(s.TryStart("h"));  // the delay has not passed
  clock.SleepFor(milliseconds{499});
  EXPECT_FALSE(s.TryStart("h"));
  clock.SleepFor(milliseconds{1});
  EXPECT_TRUE(s.TryStart("h"));
}

TEST(PolitenessTest, DelayIsTheLargestOfFloorCrawlDelayAndLatencyAndIsBounded) {
  FakeClock clock;
  PolitenessOptions o;
  o.floor = milliseconds{100};
  o.latency_factor = 4;
  o.ewma_alpha = 0.5;
  o.max_delay = milliseconds{10000};
  PolitenessScheduler s(o, clock);
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{100});
  ASSERT_TRUE(s.TryStart("h"));
  s.Finish("h", {milliseconds{200}, 200, std::nullopt});
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{800});  // 4 x 200
  clock.SleepFor(milliseconds{800});
  ASSERT_TRUE(s.TryStart("h"));
  s.Finish("h", {milliseconds{0}, 200, std::nullopt});
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{400});  // EWMA 100
  s.SetCrawlDelay("h", milliseconds{2000});
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{2000});
  s.SetCrawlDelay("h", milliseconds{3600000});
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{10000});  // capped
  clock.SleepFor(milliseconds{400});
  ASSERT_TRUE(s.TryStart("h"));
  s.Finish("h", {milliseconds{100000}, 200, std::nullopt});
  EXPECT_EQ(s.CurrentDelay("h"), milliseconds{10000});
}

TEST(PolitenessTest, RetryAfterAndBoundedBackoff) {
  FakeClock clock;
  PolitenessOptions o;
  o.floor = milliseconds{100};
  o.backoff_base = milliseconds{1000};
  o.backoff_max = milliseconds{4000};
  o.max_retry_after = seconds{60};
  PolitenessScheduler s(o, clock);
  const auto t0 = clock.Now();
  ASSERT_TRUE(s.TryStart("h"));
  s.Finish("h", {milliseconds{1}, 503, seconds{7}});
  // (The fake clock runs with real time too: allow a few milliseconds of it.)
  const int64_t first = std::chrono::duration_cast<milliseconds>(s.NextAllowed("h") - t0).count();
  EXPECT_GE(first, 7000);
  EXPECT_LT(first, 7050);
  // Without Retry-After: 1 s, 2 s, 4 s, 4 s (bounded), then a success resets the back-off.
  std::vector<int64_t> waits;
  for (int i = 0; i < 4; ++i) {
    clock.SleepFor(std::chrono::ceil<milliseconds>(s.NextAllowed("h") - clock.Now()));
    ASSERT_TRUE(s.TryStart("h"));
    const auto at = clock.Now();
    s.Finish("h", {milliseconds{1}, 429, std::nullopt});
    waits.push_back(std::chrono::duration_cast<milliseconds>(s.NextAllowed("h") - at).count());
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{1000, 2000, 4000, 4000}));
  clock.SleepFor(milliseconds{4000});
  ASSERT_TRUE(s.TryStart("h"));
  s.Finish("h", {milliseconds{1}, 200, std::nullopt});
  clock.SleepFor(milliseconds{100});
  ASSERT_TRUE(s.TryStart("h"));
  const auto at = clock.Now();
  s.Finish("h", {milliseconds{1}, 503, std::nullopt});
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(s.NextAllowed("h") - at).count(), 1000);
  // A Retry-After beyond the cap is cut to it.
  clock.SleepFor(milliseconds{1000});
  ASSERT_TRUE(s.TryStart("h"));
  const auto at2 = clock.Now();
  s.Finish("h", {milliseconds{1}, 503, seconds{86400}});
  EXPECT_EQ(std::chrono::duration_cast<seconds>(s.NextAllowed("h") - at2).count(), 60);
}

TEST(PolitenessTest, OffMeansNoDelayAndBoundedParallelism) {
  FakeClock clock;
  PolitenessOptions o;
  o.enabled = false;
  o.max_parallel_per_host = 3;
  PolitenessScheduler s(o, clock);
  EXPECT_TRUE(s.TryStart("h"));
  EXPECT_TRUE(s.TryStart("h"));
  EXPECT_TRUE(s.TryStart("h"));
  EXPECT_FALSE(s.TryStart("h"));
  s.Finish("h", {milliseconds{50}, 200, std::nullopt});
  EXPECT_TRUE(s.TryStart("h"));  // no delay
}

TEST(CrawlScopeTest, GlobsMatchWholeUrlsInLinearTime) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("http://a/*.html", "http://a/x/y.html"));
  EXPECT_FALSE(GlobMatch("http://a/*.html", "http://a/x/y.htm"));
  EXPECT_TRUE(GlobMatch("*/release-?.html", "http://a/release-9.html"));
  EXPECT_FALSE(GlobMatch("*/release-?.html", "http://a/release-10.html"));
  EXPECT_TRUE(GlobMatch("*a*b*c*", "xxaxxbxxcxx"));
  EXPECT_FALSE(GlobMatch("*a*b*c*d", "xxaxxbxxcxx"));
  // A pattern that makes backtracking regex engines explode finishes at once.
  const std::string text(20000, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*a*a*b", text));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds{2});
}

TEST(CrawlScopeTest, HostsPrefixesAndPatterns) {
  ScopeRules rules;
  rules.path_prefixes = {"/docs/"};
  rules.exclude = {"*/private/*"};
  auto scope = CrawlScope::Make(rules, {"http://site.example:8080/docs/index.html"});
  ASSERT_TRUE(scope.ok());
  auto check = [&](const std::string& u) {
    UrlParse p = ParseUrl(u);
    return std::string(scope->Check(*p.url, CanonicalUrl(*p.url)));
  };
  EXPECT_EQ(check("http://site.example:8080/docs/a.html"), "");
  EXPECT_EQ(check("http://site.example:8080/blog/a.html"), "prefix");
  EXPECT_EQ(check("http://other.example:8080/docs/a.html"), "host");
  EXPECT_EQ(check("http://site.example:8080/docs/private/a.html"), "exclude");
  rules.include = {"*.html"};
  scope = CrawlScope::Make(rules, {"http://site.example:8080/"});
  ASSERT_TRUE(scope.ok());
  EXPECT_EQ(check("http://site.example:8080/docs/a.txt"), "include");
  rules.path_prefixes = {"docs"};
  EXPECT_FALSE(CrawlScope::Make(rules, {"http://site.example/"}).ok());
}

TEST(CrawlRulesTest, RevisitIntervalHalvesOnChangeDoublesOtherwiseWithinBounds) {
  RevisitBounds b{seconds{100}, seconds{1000}, seconds{400}};
  EXPECT_EQ(NextRevisitInterval(seconds{0}, true, b), seconds{400});
  EXPECT_EQ(NextRevisitInterval(seconds{400}, false, b), seconds{800});
  EXPECT_EQ(NextRevisitInterval(seconds{800}, false, b), seconds{1000});
  EXPECT_EQ(NextRevisitInterval(seconds{400}, true, b), seconds{200});
  EXPECT_EQ(NextRevisitInterval(seconds{150}, true, b), seconds{100});
}

TEST(CrawlRulesTest, VersionAliasesResolveToWhatWasServed) {
  AliasRecord r = ResolveVersionAlias("http://a/docs/current/x.html", "http://a/docs/15/x.html", "", "");
  EXPECT_EQ(r.word, "current");
  EXPECT_EQ(r.version, "15");
  r = ResolveVersionAlias("http://a/docs/latest/x.html", "", "http://a/docs/2.1/x.html", "9");
  EXPECT_EQ(r.version, "2.1");
  r = ResolveVersionAlias("http://a/docs/stable/x.html", "", "", "16");
  EXPECT_EQ(r.word, "stable");
  EXPECT_EQ(r.version, "16");
  r = ResolveVersionAlias("http://a/docs/15/x.html", "", "", "16");
  EXPECT_EQ(r.word, "");
}

TEST(CrawlRulesTest, MediaTypes) {
  EXPECT_EQ(IndexableContentType(MediaType("Text/HTML; charset=utf-8"), "/a"), "html");
  EXPECT_EQ(IndexableContentType(MediaType("text/plain"), "/README.md"), "markdown");
  EXPECT_EQ(IndexableContentType(MediaType("text/markdown"), "/x"), "markdown");
  EXPECT_EQ(IndexableContentType(MediaType("text/plain"), "/x.txt"), "text");
  EXPECT_EQ(IndexableContentType(MediaType("image/png"), "/x.png"), "");
}

}  // namespace
}  // namespace attest
