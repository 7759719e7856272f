// The loopback test site server (tests/support/test_site_server.h) that the crawler tests, the
// kill test and the crawl bench stand on: files, types, ETags and 304s, keep-alive, robots.txt,
// routes, redirects, faults with Retry-After, slow responses, the request log; the PostgreSQL
// documentation served byte for byte; the standalone attest_test_site program; and the crawler's
// own Fetcher against it.
#include "support/test_site_server.h"

#include <httplib.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "crawl/fetcher.h"
#include "crawl/http_dates.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest::testing_support {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void SetMtime(const fs::path& p, int64_t unix_seconds) {
  const timeval times[2] = {{static_cast<time_t>(unix_seconds), 0}, {static_cast<time_t>(unix_seconds), 0}};
  ASSERT_EQ(utimes(p.c_str(), times), 0);
}

constexpr int64_t kMtime = 1764583200;  // Mon, 01 Dec 2025 10:00:00 GMT

class TestSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.path() / "index.html", "<html><body>home</body></html>");
    WriteFile(dir_.path() / "a.html", "<html><body>page a</body></html>");
    WriteFile(dir_.path() / "style.css", "body{}");
    WriteFile(dir_.path() / "sub" / "index.html", "sub index");
    WriteFile(dir_.path() / "notes.txt", "plain");
    for (const char* f : {"index.html", "a.html", "style.css", "sub/index.html", "notes.txt"}) {
      SetMtime(dir_.path() / f, kMtime);
    }
    TestSiteOptions options;
    options.root = dir_.path();
    options.base_path = "/docs/15";
    server_ = std::make_unique<TestSiteServer>(options);
    ASSERT_TRUE(server_->Start().ok());
    // One connection per request by default: this client reads a body without Content-Length
    // (a 304) until the connection closes. The keep-alive tests turn keep-alive on.
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }

  httplib::Result Get(const std::string& path, const httplib::Headers& headers = {}) {
    return client_->Get(path.c_str(), headers);
  }

  TempDir dir_;
  std::unique_ptr<TestSiteServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(TestSiteTest, ServesTheTreeUnderItsBaseWithTypesAndValidators) {
  EXPECT_EQ(server_->base_url(), "http://127.0.0.1:" + std::to_string(server_->port()) + "/docs/15/");
  auto r = Get("/docs/15/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "<html><body>home</body></html>");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(r->get_header_value("ETag"), TestSiteServer::ETagFor(r->body));
  EXPECT_EQ(r->get_header_value("ETag").size(), 34u);
  EXPECT_EQ(r->get_header_value("Last-Modified"), "Mon, 01 Dec 2025 10:00:00 GMT");
  EXPECT_TRUE(ParseHttpDate(r->get_header_value("Date")).has_value());
  EXPECT_EQ(Get("/docs/15/a.html")->body, "<html><body>page a</body></html>");
  EXPECT_EQ(Get("/docs/15/style.css")->get_header_value("Content-Type"), "text/css");
  EXPECT_EQ(Get("/docs/15/notes.txt")->get_header_value("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(Get("/docs/15/sub/")->body, "sub index");
  EXPECT_EQ(Get("/docs/15/sub")->body, "sub index");
  EXPECT_EQ(Get("/docs/15/%61.html")->body, "<html><body>page a</body></html>");
  EXPECT_EQ(Get("/docs/15/a.html?x=1")->status, 200);
  EXPECT_EQ(Get("/docs/15/missing.html")->status, 404);
  EXPECT_EQ(Get("/a.html")->status, 404);  // outside the base
  client_->set_follow_location(false);
  r = Get("/docs/15");
  EXPECT_EQ(r->status, 301);
  EXPECT_EQ(r->get_header_value("Location"), "/docs/15/");
  // Paths that climb out of the tree (sent raw: clients normalize them away).
  EXPECT_NE(RawExchange(server_->port(), "GET /docs/15/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        milliseconds(2000)).find("HTTP/1.1 400"), std::string::npos);
  EXPECT_NE(RawExchange(server_->port(), "GET /docs/15/%2e%2e/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        milliseconds(2000)).find("HTTP/1.1 400"), std::string::npos);
  EXPECT_NE(RawExchange(server_->port(), "GET /docs/15/a%00.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        milliseconds(2000)).find("HTTP/1.1 400"), std::string::npos);
}

TEST_F(TestSiteTest, ConditionalRequestsGet304) {
  const std::string etag = Get("/docs/15/a.html")->get_header_value("ETag");
  auto r = Get("/docs/15/a.html", {{"If-None-Match", etag}});
  EXPECT_EQ(r->status, 304);
  EXPECT_EQ(r->body, "");
  EXPECT_EQ(r->get_header_value("ETag"), etag);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", "W/" + etag}})->status, 304);   // weak comparison
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", "\"x\", " + etag}})->status, 304);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", "*"}})->status, 304);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", "\"other\""}})->status, 200);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-Modified-Since", "Mon, 01 Dec 2025 10:00:00 GMT"}})->status, 304);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-Modified-Since", "Tue, 02 Dec 2025 10:00:00 GMT"}})->status, 304);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-Modified-Since", "Mon, 01 Dec 2025 09:59:59 GMT"}})->status, 200);
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-Modified-Since", "yesterday"}})->status, 200);
  // If-None-Match decides when present (RFC 9110 §13.2.2): a later If-Modified-Since is ignored.
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", "\"other\""},
                                    {"If-Modified-Since", "Tue, 02 Dec 2025 10:00:00 GMT"}})->status, 200);
  // The file changes: a new ETag, the old one no longer matches.
  WriteFile(dir_.path() / "a.html", "<html><body>page a, second edition</body></html>");
  r = Get("/docs/15/a.html", {{"If-None-Match", etag}});
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "<html><body>page a, second edition</body></html>");
  EXPECT_NE(r->get_header_value("ETag"), etag);
  const auto log = server_->Log();
  EXPECT_EQ(log.back().if_none_match, etag);
  EXPECT_EQ(log.back().status, 200);
}

TEST_F(TestSiteTest, KeepAliveServesManySequentialRequestsOnOneConnection) {
  client_->set_keep_alive(true);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 500; ++i) {
    auto r = Get(i % 2 ? "/docs/15/a.html" : "/docs/15/style.css");
    ASSERT_TRUE(r) << i;
    ASSERT_EQ(r->status, 200) << i;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(server_->ConnectionsAccepted(), 1u);
  const auto log = server_->Log();
  ASSERT_EQ(log.size(), 500u);
  for (const LoggedRequest& e : log) EXPECT_EQ(e.connection_id, 1u);
  EXPECT_GT(500 / seconds, 100.0) << "requests per second on one keep-alive connection";
  // HTTP/1.0 and "Connection: close" end the connection after the response.
  const std::string raw = RawExchange(server_->port(),
                                      "GET /docs/15/a.html HTTP/1.0\r\n\r\nGET /docs/15/a.html HTTP/1.0\r\n\r\n",
                                      milliseconds(2000));
  EXPECT_NE(raw.find("Connection: close"), std::string::npos);
  EXPECT_EQ(raw.find("HTTP/1.1 200", raw.find("HTTP/1.1 200") + 1), std::string::npos);
  // Pipelined HTTP/1.1 requests are answered in order on the same connection.
  const std::string two = RawExchange(server_->port(),
                                      "GET /docs/15/a.html HTTP/1.1\r\nHost: x\r\n\r\n"
                                      "GET /docs/15/style.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                      milliseconds(2000));
  ASSERT_NE(two.find("page a"), std::string::npos);
  EXPECT_LT(two.find("page a"), two.find("body{}"));
}

TEST_F(TestSiteTest, MethodsOtherThanGetAndHeadAre405) {
  auto head = client_->Head("/docs/15/a.html");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  EXPECT_EQ(head->get_header_value("Content-Length"), "32");
  auto post = client_->Post("/docs/15/a.html", "x=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
}

TEST_F(TestSiteTest, RobotsRoutesAndRedirects) {
  EXPECT_EQ(Get("/robots.txt")->status, 404);
  server_->SetRobots(200, "User-agent: *\nDisallow: /docs/15/sub/\n");
  auto r = Get("/robots.txt");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "User-agent: *\nDisallow: /docs/15/sub/\n");
  server_->SetRobots(500, "");
  EXPECT_EQ(Get("/robots.txt")->status, 500);

  // A route overrides the tree; the exact target (with its query) before the path.
  SiteResponse page;
  page.headers = {{"Content-Type", "text/html"}, {"Link", "</docs/15/a.html>; rel=\"canonical\""}};
  page.body = "override";
  server_->SetRoute("/docs/15/a.html", page);
  page.body = "with query";
  server_->SetRoute("/docs/15/a.html?v=2", page);
  r = Get("/docs/15/a.html");
  EXPECT_EQ(r->body, "override");
  EXPECT_EQ(r->get_header_value("Link"), "</docs/15/a.html>; rel=\"canonical\"");
  const std::string first_etag = r->get_header_value("ETag");
  EXPECT_EQ(Get("/docs/15/a.html?v=2")->body, "with query");
  EXPECT_EQ(Get("/docs/15/a.html?v=3")->body, "override");
  page.body = "changed at runtime";
  server_->SetRoute("/docs/15/a.html", page);
  r = Get("/docs/15/a.html", {{"If-None-Match", first_etag}});
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "changed at runtime");
  EXPECT_EQ(Get("/docs/15/a.html", {{"If-None-Match", r->get_header_value("ETag")}})->status, 304);
  server_->RemoveRoute("/docs/15/a.html");
  EXPECT_EQ(Get("/docs/15/a.html")->body, "<html><body>page a</body></html>");

  // Binary bodies (a gzip sitemap) pass unchanged.
  SiteResponse gz;
  gz.headers = {{"Content-Type", "application/gzip"}};
  gz.body = std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x00\xff", 12);
  server_->SetRoute("/sitemap.xml.gz", gz);
  EXPECT_EQ(Get("/sitemap.xml.gz")->body, gz.body);

  client_->set_follow_location(false);
  for (int status : {301, 302, 303, 307, 308}) {
    server_->SetRedirect("/old", status, "/docs/15/a.html");
    r = Get("/old");
    EXPECT_EQ(r->status, status);
    EXPECT_EQ(r->get_header_value("Location"), "/docs/15/a.html");
  }
  // A handler sees the request.
  server_->SetHandler("/echo", [](const SiteRequest& q) {
    SiteResponse s;
    s.body = q.Header("User-Agent") + " on " + std::to_string(q.connection_id);
    s.validators = false;
    return s;
  });
  r = Get("/echo", {{"User-Agent", "AttestBot/1"}});
  EXPECT_TRUE(r->body.starts_with("AttestBot/1 on ")) << r->body;
  EXPECT_EQ(r->get_header_value("ETag"), "");
}

TEST_F(TestSiteTest, FaultsWithRetryAfterForTheNextRequests) {
  server_->FailNext("/docs/15/a.html", 2, 503, "3");
  for (int i = 0; i < 2; ++i) {
    auto r = Get("/docs/15/a.html");
    EXPECT_EQ(r->status, 503);
    EXPECT_EQ(r->get_header_value("Retry-After"), "3");
    EXPECT_EQ(Get("/docs/15/style.css")->status, 200);  // another path is not affected
  }
  EXPECT_EQ(Get("/docs/15/a.html")->status, 200);
  server_->FailNext("", 3, 429, "Wed, 21 Oct 2015 07:28:00 GMT");
  EXPECT_EQ(Get("/robots.txt")->status, 429);
  EXPECT_EQ(Get("/docs/15/a.html")->get_header_value("Retry-After"), "Wed, 21 Oct 2015 07:28:00 GMT");
  EXPECT_EQ(Get("/docs/15/style.css")->status, 429);
  EXPECT_EQ(Get("/docs/15/style.css")->status, 200);
  server_->FailNext("", 1, 500, "");
  auto r = Get("/docs/15/");
  EXPECT_EQ(r->status, 500);
  EXPECT_FALSE(r->has_header("Retry-After"));
}

TEST_F(TestSiteTest, SlowResponsesDelayAndDrip) {
  SiteResponse slow;
  slow.body = "late";
  slow.delay = milliseconds(300);
  server_->SetRoute("/slow", slow);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Get("/slow")->body, "late");
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(300));

  SiteResponse drip;
  drip.body = std::string(100, 'd');
  drip.drip_bytes = 10;
  drip.drip_interval = milliseconds(30);
  server_->SetRoute("/drip", drip);
  EXPECT_EQ(Get("/drip")->body, drip.body);
  LoggedRequest last = server_->Log().back();
  for (int i = 0; i < 100 && !last.complete; ++i) {  // the server notes completion just after the last byte
    std::this_thread::sleep_for(milliseconds(10));
    last = server_->Log().back();
  }
  EXPECT_TRUE(last.complete);
  EXPECT_EQ(last.target, "/drip");
  EXPECT_GE(last.completed - last.arrived, milliseconds(9 * 30));
}

TEST_F(TestSiteTest, LogRecordsEachRequestAndWindowsCountThem) {
  Get("/docs/15/a.html", {{"User-Agent", "AttestBot/test"}, {"If-Modified-Since", "Mon, 01 Dec 2025 10:00:00 GMT"}});
  Get("/robots.txt");
  auto log = server_->Log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].method, "GET");
  EXPECT_EQ(log[0].target, "/docs/15/a.html");
  EXPECT_EQ(log[0].status, 304);
  EXPECT_EQ(log[0].if_modified_since, "Mon, 01 Dec 2025 10:00:00 GMT");
  EXPECT_EQ(log[0].user_agent, "AttestBot/test");
  EXPECT_EQ(log[0].body_bytes, 0u);
  EXPECT_TRUE(log[0].peer.starts_with("127.0.0.1:")) << log[0].peer;
  EXPECT_LE(log[0].arrived, log[0].completed);
  EXPECT_LE(log[0].completed, log[1].arrived);
  EXPECT_EQ(log[1].status, 404);
  server_->ClearLog();
  EXPECT_EQ(server_->RequestCount(), 0u);

  // Windows: 40 requests paced 10 ms apart, against a brute-force count over the log.
  for (int i = 0; i < 40; ++i) {
    Get(i % 4 == 0 ? "/robots.txt" : "/docs/15/a.html");
    std::this_thread::sleep_for(milliseconds(10));
  }
  log = server_->Log();
  EXPECT_EQ(server_->CountWithPrefix("/docs/15/"), 30u);
  EXPECT_EQ(server_->CountWithPrefix("/robots"), 10u);
  for (const auto window : {milliseconds(1), milliseconds(25), milliseconds(55), milliseconds(200), milliseconds(5000)}) {
    for (const std::string prefix : {"", "/docs/"}) {
      size_t brute = 0;
      for (const LoggedRequest& a : log) {
        if (!a.target.starts_with(prefix)) continue;
        size_t n = 0;
        for (const LoggedRequest& b : log) {
          n += b.target.starts_with(prefix) && b.arrived >= a.arrived && b.arrived - a.arrived < window;
        }
        brute = std::max(brute, n);
      }
      EXPECT_EQ(server_->MaxRequestsInWindow(window, prefix), brute) << window.count() << " ms " << prefix;
    }
  }
  EXPECT_EQ(server_->MaxRequestsInWindow(std::chrono::seconds(60)), 40u);
}

TEST_F(TestSiteTest, StopClosesIdleKeepAliveConnectionsPromptly) {
  client_->set_keep_alive(true);
  ASSERT_EQ(Get("/docs/15/a.html")->status, 200);  // the client keeps its connection open
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
  EXPECT_FALSE(Get("/docs/15/a.html"));
}

TEST_F(TestSiteTest, RoutesWithLastModifiedAnswerIfModifiedSince) {
  SiteResponse feed;
  feed.headers = {{"Content-Type", "application/atom+xml"}};
  feed.body = "<feed xmlns=\"http://www.w3.org/2005/Atom\"/>";
  feed.last_modified = std::chrono::system_clock::time_point(std::chrono::seconds(kMtime));
  server_->SetRoute("/feed.atom", feed);
  auto r = Get("/feed.atom");
  EXPECT_EQ(r->get_header_value("Last-Modified"), "Mon, 01 Dec 2025 10:00:00 GMT");
  EXPECT_EQ(Get("/feed.atom", {{"If-Modified-Since", "Mon, 01 Dec 2025 10:00:00 GMT"}})->status, 304);
  EXPECT_EQ(Get("/feed.atom", {{"If-Modified-Since", "Sun, 30 Nov 2025 10:00:00 GMT"}})->status, 200);
  feed.validators = false;
  server_->SetRoute("/feed.atom", feed);
  r = Get("/feed.atom", {{"If-None-Match", "*"}});
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->has_header("ETag"));
}

TEST(TestSiteStart, AnAddressInUseIsAnErrorNamingIt) {
  TestSiteServer first;
  ASSERT_TRUE(first.Start().ok());
  TestSiteOptions options;
  options.port = first.port();
  TestSiteServer second(options);
  const Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("127.0.0.1:" + std::to_string(first.port())), std::string::npos) << st.ToString();
  options.address = "localhost";
  EXPECT_EQ(TestSiteServer(options).Start().code(), StatusCode::kInvalidArgument);
  second.Stop();  // never started: a no-op
  first.Stop();
  first.Stop();   // twice: a no-op
}

// The crawler's guarded fetcher (libcurl) against the site: a page, then its revalidation.
TEST_F(TestSiteTest, TheCrawlersFetcherRevalidatesWithA304) {
  FetcherOptions options;
  options.policy.allow = {*ParseCidr("127.0.0.1/32")};
  options.policy.allowed_ports = {static_cast<uint16_t>(server_->port())};
  Fetcher fetcher(options);
  FetchRequest request;
  request.url = server_->base_url() + "a.html";
  Result<FetchResponse> first = fetcher.Fetch(request);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->status, 200);
  request.if_none_match = std::string(first->etag());
  request.if_modified_since = std::string(first->last_modified());
  Result<FetchResponse> second = fetcher.Fetch(request);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->not_modified);
  EXPECT_EQ(server_->Log().back().if_none_match, first->etag());
  server_->FailNext("", 1, 503, "7");
  Result<FetchResponse> third = fetcher.Fetch(request);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->status, 503);
  EXPECT_EQ(ParseRetryAfter(third->retry_after(), std::chrono::system_clock::now()), std::chrono::seconds(7));
}

// ---- the PostgreSQL documentation, served whole ---------------------------------------------

constexpr const char* kPgDocs = "/usr/share/doc/postgresql-doc-15/html";

bool RequirePgDocs() {
  if (fs::is_directory(kPgDocs)) return true;
  if (const char* allow = std::getenv("ATTEST_ALLOW_MISSING_PGDOCS"); allow && std::string(allow) == "1") return false;
  ADD_FAILURE() << "PostgreSQL documentation missing at " << kPgDocs
                << " (Debian package postgresql-doc-15, installed by scripts/bootstrap; "
                   "ATTEST_ALLOW_MISSING_PGDOCS=1 skips)";
  return false;
}

TEST(TestSitePostgresDocs, EveryFileServedByteForByteOnOneConnection) {
  if (!RequirePgDocs()) GTEST_SKIP() << "PostgreSQL documentation not installed";
  TestSiteOptions options;
  options.root = kPgDocs;
  options.base_path = "/docs/15/";
  TestSiteServer server(options);
  ASSERT_TRUE(server.Start().ok());
  httplib::Client client("127.0.0.1", server.port());
  client.set_keep_alive(true);
  size_t files = 0, bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& e : fs::directory_iterator(kPgDocs)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    auto r = client.Get(("/docs/15/" + name).c_str());
    ASSERT_TRUE(r) << name;
    ASSERT_EQ(r->status, 200) << name;
    ASSERT_EQ(r->body, ReadAll(e.path())) << name;
    ASSERT_EQ(r->get_header_value("ETag"), TestSiteServer::ETagFor(r->body));
    ++files;
    bytes += r->body.size();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu files, %.1f MB in %.2f s (%.0f requests/s) on %llu connection(s)\n", files, bytes / 1e6, seconds,
              files / seconds, static_cast<unsigned long long>(server.ConnectionsAccepted()));
  EXPECT_GT(files, 1100u);
  EXPECT_EQ(server.ConnectionsAccepted(), 1u);
  EXPECT_GT(files / seconds, 100.0);
  EXPECT_EQ(client.Get("/docs/15/")->body, ReadAll(fs::path(kPgDocs) / "index.html"));
}

// ---- the standalone program -------------------------------------------------------------------

TEST(TestSiteProgram, PrintsItsUrlAndServesUntilTerminated) {
  TempDir dir;
  WriteFile(dir.path() / "index.html", "<p>standalone</p>");
  WriteFile(dir.path() / "robots.txt", "User-agent: *\nDisallow: /private/\n");
  ChildProcess child({ATTEST_TEST_SITE_BINARY, "--root", dir.str(), "--address", "127.0.0.1", "--port", "0", "--base",
                      "/docs/", "--robots", dir.str("robots.txt"), "--latency-ms", "1"});
  std::string url;
  for (int i = 0; i < 200 && url.empty(); ++i) {
    child.Poll();
    const size_t at = child.out().find("listening ");
    const size_t eol = child.out().find('\n', at);
    if (at != std::string::npos && eol != std::string::npos) url = child.out().substr(at + 10, eol - at - 10);
    if (url.empty()) std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_TRUE(url.starts_with("http://127.0.0.1:")) << child.out();
  ASSERT_TRUE(url.ends_with("/docs/")) << url;
  const int port = std::stoi(url.substr(17));
  httplib::Client client("127.0.0.1", port);
  EXPECT_EQ(client.Get("/docs/")->body, "<p>standalone</p>");
  EXPECT_EQ(client.Get("/robots.txt")->body, "User-agent: *\nDisallow: /private/\n");
  child.Kill(SIGTERM);
  EXPECT_EQ(child.Wait(), 0);
  // Refusals name their cause.
  ChildProcess bad({ATTEST_TEST_SITE_BINARY, "--root", dir.str("missing")});
  EXPECT_EQ(bad.Wait(), 2);
}

}  // namespace
}  // namespace attest::testing_support
