// Live fetch through the engine against a loopback site (docs/answer.md, "Live fetch"): a stale
// page refreshed and cited with its new date, "latest" following a release list as it changes, the
// deadline with a slow server, over-fetch, the SSRF guard (a server of ours on 127.0.0.2 never
// connected to), redirects to hosts not allowed, pages that fail or are gone, and the caller's
// access; and the freshness every answer carries.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "attest/answer.h"
#include "attest/engine.h"
#include "crawl/address_policy.h"
#include "crawl/cached_fetcher.h"
#include "support/fake_clock.h"
#include "support/loopback_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::FakeClock;
using testing_support::LoopbackConnection;
using testing_support::LoopbackRequest;
using testing_support::LoopbackTestServer;
using testing_support::TempDir;

// --- the engine against a loopback site ---

// A site on 127.0.0.1 whose pages the test sets, and a server of ours on 127.0.0.2 (same port)
// that live fetch must never reach.
class LiveFetchEngineTest : public ::testing::Test {
 protected:
  LiveFetchEngineTest() : internal_("127.0.0.2", site_.port()) {}

  void Serve(const std::string& path, int status, const std::string& type, std::function<std::string()> body,
             std::vector<std::pair<std::string, std::string>> headers = {}) {
    site_.Route(path, [status, type, body, headers](const LoopbackRequest&, LoopbackConnection& c) {
      auto h = headers;
      h.emplace_back("Content-Type", type);
      c.Write(LoopbackTestServer::Response(status, h, body()));
    });
  }

  LiveFetchOptions Live() {
    FetcherOptions fo;
    fo.policy.allow = {*ParseCidr("127.0.0.1/32")};
    fo.policy.allowed_ports = {80, 443, static_cast<uint16_t>(site_.port())};
    fo.connect_timeout_ms = 2000;
    fo.timeout_ms = 5000;
    LiveFetchOptions live;
    live.fetcher = MakeCachedFetcher(fo, PageCacheOptions{});
    live.allowed_hosts = {"127.0.0.1"};
    live.max_urls = 3;
    live.timeout_ms = 3000;
    live.max_age_seconds = 86400;
    return live;
  }

  void Open(LiveFetchOptions live) {
    EngineOptions eo;
    eo.data_dir = dir_.str("data");
    eo.embedder.kind = EmbedderKind::kNone;
    eo.threads = 1;
    eo.clock = &clock_;
    eo.live_fetch = std::move(live);
    auto e = Engine::Open(eo);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }

  DocumentSpec Doc(const std::string& id, const std::string& path, const std::string& html) {
    DocumentSpec d;
    d.id = id;
    d.url = site_.base_url() + path;
    d.content_type = "html";
    d.text = html;
    return d;
  }

  void Put(const std::vector<DocumentSpec>& docs) {
    auto r = engine_->PutDocuments(docs);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Every stored page is committed now; the clock moves 30 days on, so they are a month old.
  void AgeTheIndex() { clock_.SleepFor(std::chrono::hours(24 * 30)); }

  AnswerResult Ask(const std::string& question, std::optional<std::vector<std::string>> groups = std::nullopt,
                   uint32_t deadline_ms = 0) {
    AskOptions ao;
    ao.question = question;
    ao.filter.groups = std::move(groups);
    ao.deadline_ms = deadline_ms;
    auto r = engine_->Ask(ao);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : AnswerResult{};
  }

  static bool HasNotice(const AnswerResult& r, const std::string& prefix) {
    for (const std::string& d : r.degraded) {
      if (d.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }
  static std::string Degraded(const AnswerResult& r) {
    std::string s;
    for (const std::string& d : r.degraded) s += d + "\n";
    return s;
  }

  LoopbackTestServer site_{"127.0.0.1"};
  LoopbackTestServer internal_;
  FakeClock clock_;
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

const char* kOldDownload =
    "<html><head><title>ExampleDB download</title></head><body><h1>Download ExampleDB</h1>"
    "<p>The current release of ExampleDB is 17.2, with binaries for Linux.</p></body></html>";
const char* kNewDownload =
    "<html><head><title>ExampleDB download</title>"
    "<meta property=\"article:modified_time\" content=\"2026-11-20T10:00:00Z\"></head><body>"
    "<h1>Download ExampleDB</h1><p>The current release of ExampleDB is 18.0, with binaries for Linux.</p></body></html>";

TEST_F(LiveFetchEngineTest, AStalePageIsRefreshedAndTheAnswerCitesTheNewTextWithItsDate) {
  Serve("/download.html", 200, "text/html", [] { return std::string(kNewDownload); });
  Open(Live());
  DocumentSpec d = Doc("download", "/download.html", kOldDownload);
  d.updated = "2025-01-10";
  d.acl_groups = {"staff"};
  d.access_label = "internal";
  Put({d});
  const uint64_t before = engine_->CurrentSnapshot();
  AgeTheIndex();

  const auto t0 = std::chrono::steady_clock::now();
  AnswerResult r = Ask("What is the current release of ExampleDB?", std::vector<std::string>{"staff"});
  std::printf("answer with one page fetched and put: %lld ms (live fetch %.1f ms)\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - t0).count()),
              r.live_fetch.ms);
  EXPECT_EQ(r.live_fetch.decision, "fetched") << r.live_fetch.detail;
  EXPECT_EQ(r.live_fetch.attempted, 1u);
  EXPECT_EQ(r.live_fetch.succeeded, 1u);
  EXPECT_EQ(r.live_fetch.refreshed, 1u);
  EXPECT_EQ(r.live_fetch.refreshed_ids, std::vector<std::string>{"download"});
  EXPECT_GT(r.snapshot_version, before);  // the answer read the snapshot with the refreshed page
  ASSERT_EQ(r.outcome, AnswerOutcome::kAnswer) << r.text << "\n" << Degraded(r);
  EXPECT_NE(r.text.find("18.0"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("17.2"), std::string::npos) << r.text;
  bool cited = false;
  for (const AnswerSource& s : r.sources) {
    if (!s.cited) continue;
    cited = true;
    EXPECT_EQ(s.doc_id, "download");
    EXPECT_NE(s.text.find("18.0"), std::string::npos);
    EXPECT_FALSE(s.fetched_at.empty());
  }
  EXPECT_TRUE(cited);
  EXPECT_EQ(r.freshness.newest_source_date, "2026-11-20");
  EXPECT_FALSE(r.freshness.newest_fetched_at.empty());
  EXPECT_GE(r.freshness.index_lag_seconds, 0);

  // The stored document is the refreshed page, under the same id and access.
  SearchFilter admin;
  auto doc = engine_->GetDocument(admin, "download");
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->text.find("18.0"), std::string::npos);
  EXPECT_EQ(doc->updated, "2026-11-20");
  EXPECT_EQ(doc->acl_groups, std::vector<std::string>{"staff"});
  EXPECT_EQ(doc->access_label, "internal");
  EXPECT_EQ(doc->url, site_.base_url() + "/download.html");
  EXPECT_EQ(doc->fetched_at, r.freshness.newest_fetched_at);
  auto listed = engine_->ListDocuments(ListDocumentsOptions{});
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->documents.size(), 1u);
  EXPECT_EQ(listed->documents[0].fetched_at, doc->fetched_at);

  // Asked again: the page is unchanged (served from the page cache), nothing is re-indexed.
  const uint64_t after = engine_->CurrentSnapshot();
  AnswerResult again = Ask("What is the current release of ExampleDB?", std::vector<std::string>{"staff"});
  EXPECT_EQ(again.live_fetch.decision, "fetched");
  EXPECT_EQ(again.live_fetch.unchanged, 1u);
  EXPECT_EQ(again.live_fetch.refreshed, 0u);
  EXPECT_EQ(engine_->CurrentSnapshot(), after);
  auto stats = engine_->Freshness();
  ASSERT_TRUE(stats.ok());
  EXPECT_TRUE(stats->live_fetch);
  EXPECT_EQ(stats->page_cache_misses, 1u);
  EXPECT_EQ(stats->page_cache_hits, 1u);
  EXPECT_EQ(site_.requests(), 1);
}

TEST_F(LiveFetchEngineTest, EveryAnswerSaysHowFreshItIs) {
  // Without live fetch too: fetched_at per source, the newest cited date, the index lag.
  Open(LiveFetchOptions{});
  std::vector<DocumentSpec> docs;
  for (int i = 0; i < 8; ++i) {
    DocumentSpec d = Doc("p" + std::to_string(i), "/p" + std::to_string(i) + ".html",
                         "<html><body><p>ExampleDB page " + std::to_string(i) +
                             " says the current release of ExampleDB is 17." + std::to_string(i) + ".</p></body></html>");
    d.published = "2025-0" + std::to_string(i + 1) + "-01";
    docs.push_back(d);
  }
  Put(docs);
  AnswerResult r = Ask("What does the ExampleDB page say about the release?");
  EXPECT_EQ(r.live_fetch.decision, "off");
  ASSERT_FALSE(r.sources.empty());
  std::string newest;
  for (const AnswerSource& s : r.sources) {
    EXPECT_FALSE(s.fetched_at.empty()) << s.id;
    if (s.cited && s.date > newest) newest = s.date;
  }
  ASSERT_FALSE(newest.empty()) << "no cited source: " << r.text;
  EXPECT_EQ(r.freshness.newest_source_date, newest);
  EXPECT_FALSE(r.freshness.newest_source.empty());
  EXPECT_FALSE(r.freshness.newest_fetched_at.empty());
  EXPECT_GE(r.freshness.index_lag_seconds, 0);
  EXPECT_LT(r.freshness.index_lag_seconds, 600);
}

TEST_F(LiveFetchEngineTest, FreshSourcesAndQuestionsWithoutRecencyFetchNothing) {
  Serve("/download.html", 200, "text/html", [] { return std::string(kNewDownload); });
  Open(Live());
  Put({Doc("download", "/download.html", kOldDownload)});
  AnswerResult r = Ask("What is the current release of ExampleDB?");
  EXPECT_EQ(r.live_fetch.decision, "fresh") << r.live_fetch.detail;  // committed just now
  AgeTheIndex();
  r = Ask("Which binaries does the ExampleDB download offer?");
  EXPECT_EQ(r.live_fetch.decision, "not_needed");
  AskOptions ao;
  ao.question = "What is the current release of ExampleDB?";
  ao.live_fetch = false;
  auto off = engine_->Ask(ao);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->live_fetch.decision, "off");
  EXPECT_EQ(site_.accepted(), 0);
}

TEST_F(LiveFetchEngineTest, LatestFollowsTheReleaseListAsItChanges) {
  std::atomic<int> served{17};
  Serve("/releases.html", 200, "text/html", [&served] {
    return served.load() == 18
               ? std::string("<html><body><p>ExampleDB releases: 18 (released 2026-11-20), 17 (released "
                             "2025-09-01), 16 (released 2024-09-01)</p></body></html>")
               : std::string("<html><body><p>ExampleDB releases: 17 (released 2025-09-01), 16 (released "
                             "2024-09-01)</p></body></html>");
  });
  Open(Live());
  DocumentSpec feed = Doc("releases", "/releases.html",
                          "<html><body><p>ExampleDB releases: 17 (released 2025-09-01), 16 (released "
                          "2024-09-01)</p></body></html>");
  feed.title = "ExampleDB releases";
  feed.feed = "versions";
  Put({feed});

  AskOptions ao;
  ao.question = "What is the latest version of ExampleDB?";
  ao.live_fetch = false;
  auto r = engine_->Ask(ao);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->resolved_version, "17");

  // The feed re-put with a new release: "latest" follows it.
  DocumentSpec newer = feed;
  newer.text = "<html><body><p>ExampleDB releases: 17.1 (released 2025-11-01), 17 (released 2025-09-01)</p></body></html>";
  Put({newer});
  r = engine_->Ask(ao);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->resolved_version, "17.1");
  EXPECT_EQ(r->resolved_version_date, "2025-11-01");

  // The site publishes 18; the stored list is a month old: live fetch refreshes the feed first.
  served = 18;
  AgeTheIndex();
  AnswerResult live = Ask("What is the latest version of ExampleDB?");
  EXPECT_EQ(live.live_fetch.decision, "fetched") << live.live_fetch.detail << "\n" << Degraded(live);
  ASSERT_FALSE(live.live_fetch.urls.empty());
  EXPECT_EQ(live.live_fetch.urls[0], site_.base_url() + "/releases.html");
  EXPECT_EQ(live.live_fetch.refreshed_ids, std::vector<std::string>{"releases"});
  EXPECT_EQ(live.resolved_version, "18");
  EXPECT_EQ(live.resolved_version_date, "2026-11-20");
  auto doc = engine_->GetDocument(SearchFilter{}, "releases");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->feed, "versions");  // still the authoritative feed
}

TEST_F(LiveFetchEngineTest, ASlowServerDoesNotHoldTheAnswerPastItsDeadline) {
  site_.Route("/download.html", [](const LoopbackRequest&, LoopbackConnection& c) {
    for (int i = 0; i < 50 && !c.stopping(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.Write(LoopbackTestServer::Response(200, {{"Content-Type", "text/html"}}, kNewDownload));
  });
  Open(Live());
  Put({Doc("download", "/download.html", kOldDownload)});
  AgeTheIndex();
  const auto t0 = std::chrono::steady_clock::now();
  AnswerResult r = Ask("What is the current release of ExampleDB?", std::nullopt, /*deadline_ms=*/400);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::printf("answer with a 400 ms deadline and a stalled page: %lld ms\n", static_cast<long long>(ms));
  EXPECT_LT(ms, 1500) << "the answer waited for the slow page";
  EXPECT_EQ(r.live_fetch.decision, "fetched");
  EXPECT_EQ(r.live_fetch.succeeded, 0u);
  EXPECT_TRUE(HasNotice(r, "live_fetch: " + site_.base_url() + "/download.html: ")) << Degraded(r);
  // The answer still comes, from the stored page.
  ASSERT_EQ(r.outcome, AnswerOutcome::kAnswer) << Degraded(r);
  EXPECT_NE(r.text.find("17.2"), std::string::npos);
}

TEST_F(LiveFetchEngineTest, OverFetchGoesOnWithThePagesThatArrived) {
  // Two stale pages, one wanted: both fetches start; the fast one is put and the answer does not
  // wait for the slow one (whose fetch is not waited for, not failed).
  Serve("/fast.html", 200, "text/html", [] {
    return std::string("<html><body><p>The current release of ExampleDB is 18.0 on the fast mirror.</p></body></html>");
  });
  site_.Route("/slow.html", [](const LoopbackRequest&, LoopbackConnection& c) {
    for (int i = 0; i < 50 && !c.stopping(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.Write(LoopbackTestServer::Response(200, {{"Content-Type", "text/html"}}, kNewDownload));
  });
  LiveFetchOptions live = Live();
  live.max_urls = 1;
  live.over_fetch = 2;
  live.timeout_ms = 1500;  // the slow fetch ends by then (the engine joins it when it closes)
  Open(std::move(live));
  Put({Doc("slow", "/slow.html",
           "<html><body><p>The current release of ExampleDB is 17.2 on the slow mirror.</p></body></html>"),
       Doc("fast", "/fast.html",
           "<html><body><p>The current release of ExampleDB is 17.2 on the fast mirror.</p></body></html>")});
  AgeTheIndex();
  const auto t0 = std::chrono::steady_clock::now();
  AnswerResult r = Ask("What is the current release of ExampleDB?");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  std::printf("answer with one of two pages arrived: %lld ms\n", static_cast<long long>(ms));
  EXPECT_LT(ms, 1200) << "live fetch waited for the slow page although one page was enough";
  EXPECT_EQ(r.live_fetch.attempted, 2u);
  EXPECT_EQ(r.live_fetch.succeeded, 1u);
  EXPECT_EQ(r.live_fetch.failed, 0u);
  EXPECT_EQ(r.live_fetch.refreshed_ids, std::vector<std::string>{"fast"});
  EXPECT_TRUE(HasNotice(r, "live_fetch: " + site_.base_url() + "/slow.html: not_waited_for")) << Degraded(r);
}

TEST_F(LiveFetchEngineTest, ADocumentPointingAtANonGlobalAddressIsNeverFetched) {
  LiveFetchOptions live = Live();
  live.any_public_host = true;  // the host list does not stop it: the SSRF guard must
  Open(std::move(live));
  const std::string internal_url = "http://127.0.0.2:" + std::to_string(site_.port()) + "/admin";
  DocumentSpec d = Doc("download", "/download.html", kOldDownload);
  d.url = internal_url;
  Put({d});
  internal_.Route("/admin", [](const LoopbackRequest&, LoopbackConnection& c) {
    c.Write(LoopbackTestServer::Response(200, {{"Content-Type", "text/html"}}, kNewDownload));
  });
  AgeTheIndex();
  AnswerResult r = Ask("What is the current release of ExampleDB?");
  EXPECT_EQ(r.live_fetch.decision, "fetched");
  EXPECT_EQ(r.live_fetch.failed, 1u);
  EXPECT_EQ(r.live_fetch.failures["address_not_global:loopback"], 1u);
  EXPECT_TRUE(HasNotice(r, "live_fetch: " + internal_url + ": address_not_global:loopback")) << Degraded(r);
  EXPECT_EQ(internal_.accepted(), 0);
  auto doc = engine_->GetDocument(SearchFilter{}, "download");
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->text.find("17.2"), std::string::npos);
}

TEST_F(LiveFetchEngineTest, PagesThatFailOrAreGoneLeaveTheStoredDocuments) {
  Serve("/download.html", 404, "text/html", [] { return std::string("<html><body>gone</body></html>"); });
  Serve("/mirror.html", 500, "text/html", [] { return std::string("oops"); });
  Serve("/binary.html", 200, "application/octet-stream", [] { return std::string("\x01\x02", 2); });
  Open(Live());
  Put({Doc("download", "/download.html", kOldDownload),
       Doc("mirror", "/mirror.html",
           "<html><body><p>The current release of ExampleDB is 17.2 on the mirror.</p></body></html>"),
       Doc("binary", "/binary.html",
           "<html><body><p>The current release of ExampleDB is 17.2 as a binary.</p></body></html>")});
  const uint64_t before = engine_->CurrentSnapshot();
  AgeTheIndex();
  AnswerResult r = Ask("What is the current release of ExampleDB?");
  EXPECT_EQ(r.live_fetch.attempted, 3u);
  EXPECT_EQ(r.live_fetch.failed, 3u);
  EXPECT_EQ(r.live_fetch.failures["http_404"], 1u);
  EXPECT_EQ(r.live_fetch.failures["http_500"], 1u);
  EXPECT_EQ(r.live_fetch.failures["unsupported_content_type"], 1u);
  EXPECT_TRUE(HasNotice(r, "live_fetch: " + site_.base_url() + "/download.html: http_404")) << Degraded(r);
  EXPECT_EQ(engine_->CurrentSnapshot(), before);
  for (const char* id : {"download", "mirror", "binary"}) {
    auto doc = engine_->GetDocument(SearchFilter{}, id);
    ASSERT_TRUE(doc.ok()) << id;
    EXPECT_NE(doc->text.find("17.2"), std::string::npos) << id;
  }
  EXPECT_EQ(r.outcome, AnswerOutcome::kAnswer) << Degraded(r);
}

TEST_F(LiveFetchEngineTest, ARedirectToAHostNotAllowedIsNotPut) {
  // The guard admits the target (it resolves to the allowed address), the host list does not.
  site_.Route("/moved.html", [this](const LoopbackRequest&, LoopbackConnection& c) {
    c.Write(LoopbackTestServer::Response(
        302, {{"Location", "http://other.test:" + std::to_string(site_.port()) + "/new.html"}}, ""));
  });
  Serve("/new.html", 200, "text/html", [] { return std::string(kNewDownload); });
  LiveFetchOptions live = Live();
  FetcherOptions fo;
  fo.policy.allow = {*ParseCidr("127.0.0.1/32")};
  fo.policy.allowed_ports = {80, 443, static_cast<uint16_t>(site_.port())};
  fo.resolve = [](std::string_view host, int) -> std::vector<std::string> {
    if (host == "other.test") return {"127.0.0.1"};
    return {};
  };
  live.fetcher = MakeCachedFetcher(fo, PageCacheOptions{});
  Open(std::move(live));
  Put({Doc("download", "/moved.html", kOldDownload)});
  AgeTheIndex();
  AnswerResult r = Ask("What is the current release of ExampleDB?");
  EXPECT_EQ(r.live_fetch.failures["redirect_host_not_allowed"], 1u) << Degraded(r);
  EXPECT_EQ(r.live_fetch.succeeded, 0u);
  EXPECT_TRUE(HasNotice(r, "live_fetch: " + site_.base_url() + "/moved.html: redirect_host_not_allowed: http://other.test:"))
      << Degraded(r);
  auto doc = engine_->GetDocument(SearchFilter{}, "download");
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->text.find("17.2"), std::string::npos);
  EXPECT_GE(site_.requests(), 2);  // the redirect was followed: the refusal is the host list's
}

TEST_F(LiveFetchEngineTest, ACallerRefreshesOnlyWhatItReadsAndAccessIsKept) {
  Serve("/public.html", 200, "text/html", [] {
    return std::string("<html><body><p>The current release of ExampleDB is 18.0 for everyone.</p></body></html>");
  });
  Serve("/staff.html", 200, "text/html", [] {
    return std::string("<html><body><p>The current release of ExampleDB is 18.0-staff internally.</p></body></html>");
  });
  Open(Live());
  DocumentSpec pub = Doc("public", "/public.html",
                         "<html><body><p>The current release of ExampleDB is 17.2 for everyone.</p></body></html>");
  DocumentSpec staff = Doc("staff", "/staff.html",
                           "<html><body><p>The current release of ExampleDB is 17.2-staff internally.</p></body></html>");
  staff.acl_groups = {"staff"};
  Put({pub, staff});
  AgeTheIndex();

  AnswerResult r = Ask("What is the current release of ExampleDB?", std::vector<std::string>{"visitors"});
  EXPECT_EQ(r.live_fetch.urls, std::vector<std::string>{site_.base_url() + "/public.html"});
  EXPECT_EQ(r.live_fetch.refreshed_ids, std::vector<std::string>{"public"});
  for (const LoopbackRequest& req : site_.recorded()) EXPECT_NE(req.path, "/staff.html");
  auto hidden = engine_->GetDocument(SearchFilter{}, "staff");
  ASSERT_TRUE(hidden.ok());
  EXPECT_NE(hidden->text.find("17.2-staff"), std::string::npos);  // not refreshed for a visitor

  AnswerResult s = Ask("What is the current release of ExampleDB?", std::vector<std::string>{"staff"});
  EXPECT_EQ(s.live_fetch.refreshed_ids, std::vector<std::string>{"staff"}) << s.live_fetch.detail;
  auto refreshed = engine_->GetDocument(SearchFilter{}, "staff");
  ASSERT_TRUE(refreshed.ok());
  EXPECT_NE(refreshed->text.find("18.0-staff"), std::string::npos);
  EXPECT_EQ(refreshed->acl_groups, std::vector<std::string>{"staff"});
  SearchFilter visitor;
  visitor.groups = std::vector<std::string>{"visitors"};
  EXPECT_EQ(engine_->GetDocument(visitor, "staff").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace attest
