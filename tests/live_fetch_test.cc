// Live fetch at question time (src/answer/live_fetch.h, docs/answer.md "Live fetch"): the decision
// (when, which URLs, how many), the page -> document refresh, and the freshness timestamps. The
// engine end to end against a loopback site is in live_fetch_engine_test.cc.
#include "answer/live_fetch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "answer/live_page.h"
#include "attest/answer.h"
#include "plan/query_plan.h"

namespace attest {
namespace {

constexpr int64_t kDay = 86400000;

QueryPlan Plan(const std::string& question) {
  auto p = PlanQuestion(PlanArgs{question, "2026-12-01", nullptr}, PlannerConfig::Defaults());
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : QueryPlan{};
}

// --- the decision ---

TEST(LiveFetchDecision, CurrentInformationIsAskedByLatestCurrentAndWindowsEndingNow) {
  EXPECT_TRUE(NeedsCurrentInformation(Plan("What is the latest version of ExampleDB?")));
  EXPECT_TRUE(NeedsCurrentInformation(Plan("What is the current release of ExampleDB?")));
  EXPECT_TRUE(NeedsCurrentInformation(Plan("What changed in ExampleDB this month?")));
  EXPECT_FALSE(NeedsCurrentInformation(Plan("What does max_wal_senders set?")));
  EXPECT_FALSE(NeedsCurrentInformation(Plan("What did ExampleDB 16 add?")));
}

TEST(LiveFetchDecision, HostsAreAllowedExactlyByWildcardOrAnyPublic) {
  LiveFetchOptions o;
  o.allowed_hosts = {"docs.example.org", "*.example.net"};
  EXPECT_TRUE(HostAllowed(o, "docs.example.org"));
  EXPECT_FALSE(HostAllowed(o, "www.docs.example.org"));
  EXPECT_FALSE(HostAllowed(o, "example.org"));
  EXPECT_TRUE(HostAllowed(o, "a.example.net"));
  EXPECT_TRUE(HostAllowed(o, "a.b.example.net"));
  EXPECT_FALSE(HostAllowed(o, "example.net"));
  EXPECT_FALSE(HostAllowed(o, "badexample.net"));
  o.allowed_hosts.clear();
  EXPECT_FALSE(HostAllowed(o, "docs.example.org"));
  o.any_public_host = true;
  EXPECT_TRUE(HostAllowed(o, "docs.example.org"));
}

LiveCandidate Cand(const std::string& id, const std::string& url, int64_t newest_ms, bool feed = false) {
  return LiveCandidate{id, url, feed, newest_ms};
}

TEST(LiveFetchDecision, FetchesOnlyWhenNeededAndTheNewestSourceIsTooOld) {
  LiveFetchOptions o;
  o.allowed_hosts = {"docs.example.org"};
  o.max_age_seconds = 86400;
  const int64_t now = 1'800'000'000'000;
  LiveDecisionInput in;
  in.options = &o;
  in.now_ms = now;
  in.candidates = {Cand("a", "https://docs.example.org/a", now - 3 * kDay)};
  in.needs_current = false;
  EXPECT_EQ(DecideLiveFetch(in).decision, "not_needed");
  in.needs_current = true;
  LiveDecision d = DecideLiveFetch(in);
  EXPECT_EQ(d.decision, "fetch");
  ASSERT_EQ(d.fetch.size(), 1u);
  EXPECT_EQ(d.needed, 1u);
  // One source younger than the maximum age makes the readable sources fresh enough.
  in.candidates.push_back(Cand("b", "https://docs.example.org/b", now - kDay / 2));
  EXPECT_EQ(DecideLiveFetch(in).decision, "fresh");
  // Exactly at the maximum age is still fresh; a millisecond older is not.
  in.candidates = {Cand("a", "https://docs.example.org/a", now - kDay)};
  EXPECT_EQ(DecideLiveFetch(in).decision, "fresh");
  in.candidates = {Cand("a", "https://docs.example.org/a", now - kDay - 1)};
  EXPECT_EQ(DecideLiveFetch(in).decision, "fetch");
  // Nothing to refresh.
  in.candidates.clear();
  EXPECT_EQ(DecideLiveFetch(in).decision, "no_candidates");
  // Undated sources (newest 0) are stale.
  in.candidates = {Cand("a", "https://docs.example.org/a", 0)};
  EXPECT_EQ(DecideLiveFetch(in).decision, "fetch");
  // A maximum age of 0: even a source committed this very millisecond is refreshed.
  o.max_age_seconds = 0;
  in.candidates = {Cand("a", "https://docs.example.org/a", now)};
  EXPECT_EQ(DecideLiveFetch(in).decision, "fetch");
}

TEST(LiveFetchDecision, OverFetchesFeedsFirstWithinTheBudgetOfUrls) {
  LiveFetchOptions o;
  o.any_public_host = true;
  o.max_urls = 3;
  o.over_fetch = 2.0;
  const int64_t now = 1'800'000'000'000;
  LiveDecisionInput in;
  in.options = &o;
  in.now_ms = now;
  in.needs_current = true;
  in.candidates.push_back(Cand("feed", "https://rel.example.org/releases", now - 10 * kDay, /*feed=*/true));
  for (int i = 0; i < 10; ++i) {
    in.candidates.push_back(Cand("r" + std::to_string(i), "https://docs.example.org/" + std::to_string(i), now - 5 * kDay));
  }
  LiveDecision d = DecideLiveFetch(in);
  ASSERT_EQ(d.decision, "fetch");
  ASSERT_EQ(d.fetch.size(), 6u);  // ceil(3 * 2.0)
  EXPECT_EQ(d.needed, 3u);
  EXPECT_EQ(d.fetch[0].doc_id, "feed");
  EXPECT_EQ(d.fetch[1].doc_id, "r0");
  EXPECT_EQ(d.fetch[5].doc_id, "r4");
  o.over_fetch = 1.5;
  EXPECT_EQ(DecideLiveFetch(in).fetch.size(), 5u);  // ceil(4.5)
  o.over_fetch = 0.5;                               // below 1 means no over-fetch
  EXPECT_EQ(DecideLiveFetch(in).fetch.size(), 3u);
  o.max_urls = 20;
  d = DecideLiveFetch(in);
  EXPECT_EQ(d.fetch.size(), 11u);
  EXPECT_EQ(d.needed, 11u);  // never more than what was started
  for (int i = 10; i < 40; ++i) {
    in.candidates.push_back(Cand("r" + std::to_string(i), "https://docs.example.org/" + std::to_string(i), 0));
  }
  o.over_fetch = 5;
  EXPECT_EQ(DecideLiveFetch(in).fetch.size(), 16u);  // the cap on threads per answer
}

TEST(LiveFetchDecision, RefusesUrlsThatAreNotHttpOrNotOnAnAllowedHost) {
  LiveFetchOptions o;
  o.allowed_hosts = {"docs.example.org"};
  const int64_t now = 1'800'000'000'000;
  LiveDecisionInput in;
  in.options = &o;
  in.now_ms = now;
  in.needs_current = true;
  in.candidates = {Cand("file", "docs/guide.md", 0),                          // a file path: skipped quietly
                   Cand("ftp", "ftp://docs.example.org/x", 0),                // not http(s): skipped quietly
                   Cand("other", "https://evil.example.com/x", 0),            // host not allowed
                   Cand("octal", "http://0177.0.0.1/x", 0),                   // a spelling the URL parser refuses
                   Cand("ok", "https://docs.example.org/ok", 0)};
  LiveDecision d = DecideLiveFetch(in);
  ASSERT_EQ(d.decision, "fetch");
  ASSERT_EQ(d.fetch.size(), 1u);
  EXPECT_EQ(d.fetch[0].doc_id, "ok");
  ASSERT_EQ(d.notices.size(), 2u);
  EXPECT_EQ(d.notices[0], "live_fetch: https://evil.example.com/x: host_not_allowed");
  EXPECT_EQ(d.notices[1], "live_fetch: http://0177.0.0.1/x: invalid_url: AmbiguousIpv4");
  in.candidates.pop_back();
  EXPECT_EQ(DecideLiveFetch(in).decision, "no_candidates");
}

// --- timestamps (fetched_at, as_of) ---

TEST(FreshnessTimestamp, FormatsLikeGmtimeOnRandomInstants) {
  EXPECT_EQ(FormatUtcTimestamp(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatUtcTimestamp(1'796'126'400'999), "2026-12-01T12:00:00Z");
  EXPECT_EQ(FormatUtcTimestamp(-1), "1969-12-31T23:59:59Z");
  std::mt19937_64 rng(14);
  for (int i = 0; i < 20000; ++i) {
    const int64_t ms = static_cast<int64_t>(rng() % 8'000'000'000'000ull) - 1'000'000'000'000;
    std::time_t t = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ASSERT_EQ(FormatUtcTimestamp(ms), buf) << ms;
  }
}

// --- a fetched page as a new version of the stored document ---

DocumentRecord Stored() {
  DocumentRecord r;
  r.tenant = "acme";
  r.id = "download";
  r.url = "https://docs.example.org/download.html";
  r.title = "ExampleDB download";
  r.site = "docs.example.org";
  r.published = ParseDate("2024-01-02");
  r.updated = ParseDate("2025-01-10");
  r.version = "";
  r.source_type = "docs";
  r.language = "en";
  r.acl_groups = {"staff"};
  r.access_label = "internal";
  r.feed = "";
  return r;
}

FetchResponse Page(const std::string& type, const std::string& body,
                   std::vector<HttpHeader> extra = {}) {
  FetchResponse p;
  p.url = p.final_url = "https://docs.example.org/download.html";
  p.status = 200;
  p.headers = {{"Content-Type", type}};
  for (auto& h : extra) p.headers.push_back(std::move(h));
  p.body = body;
  return p;
}

TEST(LivePage, KeepsTheStoredIdentityAndAccessAndTakesThePagesDates) {
  const FetchResponse page = Page("text/html; charset=utf-8",
                                  "<html><head><title>Other title</title>"
                                  "<link rel=\"canonical\" href=\"https://elsewhere.example.com/x\">"
                                  "<meta property=\"article:modified_time\" content=\"2026-11-20T10:00:00Z\">"
                                  "</head><body><p>The current release is 18.0.</p></body></html>");
  auto spec = RefreshSpec(Stored(), page);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->id, "download");
  EXPECT_EQ(spec->tenant, "acme");
  EXPECT_EQ(spec->acl_groups, std::vector<std::string>{"staff"});
  EXPECT_EQ(spec->access_label, "internal");
  EXPECT_EQ(spec->url, "https://docs.example.org/download.html");  // not the page's canonical claim
  EXPECT_EQ(spec->title, "ExampleDB download");
  EXPECT_EQ(spec->source_type, "docs");
  EXPECT_EQ(spec->content_type, "html");
  EXPECT_EQ(spec->updated, "2026-11-20");    // the page's own date
  EXPECT_EQ(spec->published, "2024-01-02");  // the page gives none: the stored one
}

TEST(LivePage, LastModifiedDatesAPageWithoutDatesAndUnsupportedTypesAreRefused) {
  auto spec = RefreshSpec(Stored(), Page("text/plain", "The current release is 18.0.",
                                         {{"Last-Modified", "Fri, 20 Nov 2026 08:00:00 GMT"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->content_type, "text");
  EXPECT_EQ(spec->updated, "2026-11-20");
  spec = RefreshSpec(Stored(), Page("text/plain", "The current release is 18.0."));
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->updated, "2025-01-10");  // nothing newer said: the stored date
  auto pdf = RefreshSpec(Stored(), Page("application/pdf", "%PDF-1.4"));
  ASSERT_FALSE(pdf.ok());
  EXPECT_EQ(pdf.status().message(), "unsupported_content_type: application/pdf");
  auto empty = RefreshSpec(Stored(), Page("text/html", "<html><body></body></html>"));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "empty_page: no text after extraction");
  auto nul = RefreshSpec(Stored(), Page("text/plain", std::string("a\0b", 3)));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().message().rfind("unparseable_page: ", 0), 0u) << nul.status().message();
}

TEST(LivePage, AReleaseFeedBecomesAReleaseListVersionResolutionReads) {
  const std::string rss =
      "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>ExampleDB releases</title>"
      "<item><title>ExampleDB 18 released</title><link>https://docs.example.org/18</link>"
      "<pubDate>Fri, 20 Nov 2026 08:00:00 GMT</pubDate></item>"
      "<item><title>ExampleDB 17.2 released</title><link>https://docs.example.org/17.2</link>"
      "<pubDate>Mon, 01 Sep 2025 08:00:00 GMT</pubDate></item></channel></rss>";
  auto text = PageTextOf(Page("application/rss+xml", rss));
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->content_type, "text");
  EXPECT_EQ(text->text,
            "ExampleDB releases\n\nExampleDB 18 released (2026-11-20)\n\nExampleDB 17.2 released (2025-09-01)\n\n");
  EXPECT_EQ(VersionsInFeed(text->text), (std::vector<std::string>{"18", "17.2"}));
  EXPECT_EQ(FeedReleaseDate(text->text, "18"), "2026-11-20");
}

}  // namespace
}  // namespace attest
