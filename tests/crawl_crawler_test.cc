// The crawl loop against a small site of ours on loopback (LoopbackTestServer): robots.txt and
// scope, conditional revisits (304 = nothing re-indexed), a changed page, a deleted page,
// Retry-After and the per-host rate, near-duplicate mirrors, rel=canonical and version aliases,
// and resuming a pass that a crash left with pages "fetching".
#include "crawl/crawler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include <zlib.h>

#include "common/date.h"
#include "ingest/child_process.h"
#include "support/loopback_test_server.h"
#include "text/analyzer.h"
#include "text/simhash.h"
#include "support/process.h"

namespace attest {
namespace {

using std::chrono::milliseconds;
using testing_support::LoopbackConnection;
using testing_support::LoopbackRequest;
using testing_support::LoopbackTestServer;
using testing_support::TempDir;

std::string PageHtml(const std::string& title, const std::string& text, const std::vector<std::string>& links,
                     const std::string& head_extra = "") {
  std::string html = "<html><head><title>" + title + "</title>" + head_extra + "</head><body><h1>" + title +
                     "</h1><p>" + text + "</p><ul>";
  for (const std::string& l : links) html += "<li><a href=\"" + l + "\">" + l + "</a></li>";
  return html + "</ul></body></html>";
}

// A long paragraph of distinct words, so pages are far apart in SimHash unless copied.
std::string Words(const std::string& topic, int n) {
  static const char* kWords[] = {"replication", "vacuum", "checkpoint", "index", "planner", "tuple",   "buffer",
                                 "segment",     "lock",   "snapshot",   "trigger", "schema", "cursor", "sequence",
                                 "partition",   "backup", "restore",    "archive", "logical", "standby"};
  std::string out = topic;
  uint64_t x = std::hash<std::string>{}(topic);
  for (int i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out += " ";
    out += kWords[(x >> 33) % 20];
    out += std::to_string((x >> 40) % 50);
  }
  return out + ".";
}

// A minimal one-page PDF with the given lines (Helvetica; xref offsets computed).
std::string MakePdf(const std::vector<std::string>& lines) {
  std::string content = "BT /F1 12 Tf 72 720 Td\n";
  for (const std::string& line : lines) content += "(" + line + ") Tj 0 -14 Td\n";
  content += "ET\n";
  const std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"};
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char row[32];
    std::snprintf(row, sizeof row, "%010zu 00000 n \n", off);
    pdf += row;
  }
  return pdf + "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
}

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct Served {
  int status = 200;
  std::string body;
  std::string content_type = "text/html; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  int fail_times = 0;          // answer fail_status this many times first
  int fail_status = 503;
  std::string retry_after;     // with the failures
};

struct Logged {
  std::chrono::steady_clock::time_point at;
  std::string path;
  int status = 0;
  std::string if_none_match;
};

// The test site: routes registered up front, content changed by the test between passes.
class Site {
 public:
  explicit Site(const std::vector<std::string>& paths) {
    for (const std::string& p : paths) {
      server_.Route(p, [this, p](const LoopbackRequest& req, LoopbackConnection& c) { Serve(p, req, c); });
    }
  }
  void Set(const std::string& path, Served s) {
    std::lock_guard<std::mutex> lock(mu_);
    pages_[path] = std::move(s);
  }
  std::string url(const std::string& path) const { return server_.base_url() + path; }
  std::vector<Logged> log() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  int Requests(const std::string& prefix) const {
    int n = 0;
    for (const Logged& l : log()) n += l.path.starts_with(prefix);
    return n;
  }
  int port() const { return server_.port(); }

 private:
  void Serve(const std::string& path, const LoopbackRequest& req, LoopbackConnection& c) {
    Served s;
    int status = 404;
    std::string body = "not found";
    std::vector<std::pair<std::string, std::string>> headers = {{"Content-Type", "text/plain"}};
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pages_.find(path);
      if (it != pages_.end()) {
        Served& page = it->second;
        headers = page.headers;
        if (page.fail_times > 0) {
          --page.fail_times;
          status = page.fail_status;
          if (!page.retry_after.empty()) headers.push_back({"Retry-After", page.retry_after});
        } else if (page.status != 200) {
          status = page.status;
        } else {
          const std::string etag = "\"" + std::to_string(std::hash<std::string>{}(page.body)) + "\"";
          headers.push_back({"ETag", etag});
          headers.push_back({"Last-Modified", "Tue, 01 Sep 2026 10:00:00 GMT"});
          if (req.Header("If-None-Match") == etag) {
            status = 304;
            body.clear();
          } else {
            status = 200;
            body = page.body;
            headers.push_back({"Content-Type", page.content_type});
          }
        }
      }
      log_.push_back({std::chrono::steady_clock::now(), path, status, req.Header("If-None-Match")});
    }
    if (status == 304 || (status >= 300 && status < 400)) body.clear();
    c.Write(LoopbackTestServer::Response(status, headers, body));
  }

  LoopbackTestServer server_{"127.0.0.1"};
  mutable std::mutex mu_;
  std::map<std::string, Served> pages_;
  std::vector<Logged> log_;
};

class CrawlerTest : public ::testing::Test {
 protected:
  void OpenEngine() {
    EngineOptions eo;
    eo.data_dir = tmp_.str("data");
    eo.embedder.kind = EmbedderKind::kNone;
    eo.threads = 1;
    auto e = Engine::Open(eo);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }
  void OpenFrontier() {
    frontier_.reset();
    auto f = Frontier::Open(tmp_.path() / "data" / "crawl" / "t.sqlite");
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    frontier_ = std::move(*f);
  }
  FetcherOptions LoopbackFetcher(int port) {
    FetcherOptions fo;
    fo.policy.allow.push_back(*ParseCidr("127.0.0.1/32"));
    fo.policy.allowed_ports.push_back(static_cast<uint16_t>(port));
    fo.timeout_ms = 5000;
    return fo;
  }
  CrawlOptions Options(const Site& site) {
    CrawlOptions o;
    o.seeds = {site.url("/index.html")};
    o.politeness.floor = milliseconds{0};
    o.workers = 1;
    o.batch_pages = 4;
    return o;
  }
  CrawlReport Pass(const Site& site, const CrawlOptions& o) {
    Fetcher fetcher(LoopbackFetcher(site.port()));
    Crawler crawler(o, *engine_, *frontier_, fetcher, *RealClock());
    auto r = crawler.RunPass();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CrawlReport{};
  }
  PageRecord Page(const std::string& url) {
    auto p = frontier_->FindPage(url);
    EXPECT_TRUE(p.ok() && p->has_value()) << url;
    return p.ok() && p->has_value() ? **p : PageRecord{};
  }
  uint64_t Documents() { return engine_->Stats()->documents; }

  TempDir tmp_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Frontier> frontier_;
};

TEST_F(CrawlerTest, RobotsScopeConditionalRevisitsChangesAndDeletes) {
  Site site({"/robots.txt", "/index.html", "/a.html", "/b.html", "/private/secret.html", "/private/deeper.html"});
  const std::string other_host = "http://127.0.0.2:" + std::to_string(site.port()) + "/elsewhere.html";
  site.Set("/robots.txt", {200, "User-agent: *\nDisallow: /private/\n", "text/plain"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 80), {"a.html", "b.html#frag", "/private/secret.html",
                                                                        other_host, "mailto:x@example.com"})});
  site.Set("/a.html", {200, PageHtml("Alpha", Words("alpha", 80), {"index.html", "private/deeper.html"})});
  site.Set("/b.html", {200, PageHtml("Beta", Words("beta", 80), {})});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  CrawlReport r1 = Pass(site, o);
  EXPECT_TRUE(r1.completed);
  EXPECT_EQ(r1.fetched, 3u);
  EXPECT_EQ(r1.indexed, 3u);
  EXPECT_EQ(r1.robots_denied, 2u);
  EXPECT_EQ(r1.robots_fetches, 1u);
  EXPECT_GE(r1.out_of_scope, 1u);
  EXPECT_EQ(site.Requests("/private/"), 0);  // robots.txt disallows the subtree: 0 fetches there
  EXPECT_EQ(Documents(), 3u);
  EXPECT_EQ(Page(site.url("/private/secret.html")).state, PageState::kExcluded);
  EXPECT_EQ(Page(site.url("/b.html")).state, PageState::kDone);  // the fragment is not part of the identity
  // The page states no date: its Last-Modified is the document's updated date; site = the host.
  auto doc = engine_->GetDocument(SearchFilter{}, site.url("/a.html"));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->updated, "2026-09-01");
  EXPECT_EQ(doc->site, "127.0.0.1");
  EXPECT_EQ(doc->url, site.url("/a.html"));
  EXPECT_EQ(doc->title, "Alpha");
  const uint64_t snapshot = engine_->CurrentSnapshot();

  // Nothing is due yet: a plain second pass fetches nothing.
  CrawlReport idle = Pass(site, o);
  EXPECT_EQ(idle.fetched, 0u);

  // Every page again, conditionally: all 304, nothing re-indexed, the snapshot unchanged.
  o.revisit_all = true;
  const size_t before = site.log().size();
  CrawlReport r2 = Pass(site, o);
  EXPECT_EQ(r2.fetched, 3u);
  EXPECT_EQ(r2.not_modified, 3u);
  EXPECT_EQ(r2.indexed, 0u);
  EXPECT_EQ(engine_->CurrentSnapshot(), snapshot);
  std::vector<Logged> log = site.log();
  for (size_t i = before; i < log.size(); ++i) {
    EXPECT_EQ(log[i].status, 304) << log[i].path;
    EXPECT_FALSE(log[i].if_none_match.empty()) << log[i].path;
  }
  EXPECT_EQ(site.Requests("/robots.txt"), 1);  // robots.txt cached in the frontier (24 h)
  const int64_t interval = Page(site.url("/a.html")).revisit_interval_s;
  EXPECT_EQ(interval, 2 * 86400);  // doubled: not modified

  // A changed page is re-indexed, the others are not.
  site.Set("/b.html", {200, PageHtml("Beta", Words("beta", 80) + " zanzibarword", {})});
  CrawlReport r3 = Pass(site, o);
  EXPECT_EQ(r3.not_modified, 2u);
  EXPECT_EQ(r3.indexed, 1u);
  SearchOptions so;
  so.query = "zanzibarword";
  auto hits = engine_->Search(so);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->hits.size(), 1u);
  EXPECT_EQ(hits->hits[0].doc_id, site.url("/b.html"));
  EXPECT_EQ(Page(site.url("/b.html")).revisit_interval_s, 2 * 86400 / 2);  // halved: changed

  // A page that is gone is deleted from the index.
  site.Set("/b.html", {404, ""});
  CrawlReport r4 = Pass(site, o);
  EXPECT_EQ(r4.deleted, 1u);
  EXPECT_EQ(Documents(), 2u);
  EXPECT_EQ(Page(site.url("/b.html")).state, PageState::kGone);
  hits = engine_->Search(so);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->hits.empty());
}

TEST_F(CrawlerTest, RetryAfterIsHonouredAndTheHostRateStaysUnderTheFloor) {
  std::vector<std::string> paths = {"/robots.txt", "/index.html"};
  std::vector<std::string> links;
  for (int i = 0; i < 6; ++i) {
    paths.push_back("/p" + std::to_string(i) + ".html");
    links.push_back("p" + std::to_string(i) + ".html");
  }
  Site site(paths);
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 50), links)});
  for (int i = 0; i < 6; ++i) {
    site.Set(paths[2 + i], {200, PageHtml("P" + std::to_string(i), Words("p" + std::to_string(i), 50), {})});
  }
  Served busy{200, PageHtml("P3", Words("p3", 50), {})};
  busy.fail_times = 1;
  busy.fail_status = 503;
  busy.retry_after = "2";
  site.Set("/p3.html", busy);
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  o.politeness.floor = milliseconds{150};
  o.workers = 3;  // several workers, still one request at a time to the host
  CrawlReport r = Pass(site, o);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.retries, 1u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(Documents(), 7u);
  std::vector<Logged> log = site.log();
  ASSERT_EQ(log.size(), 1u + 1u + 6u + 1u);  // robots (404), index, 6 pages, one retry
  for (size_t i = 1; i < log.size(); ++i) {
    const auto gap = std::chrono::duration_cast<milliseconds>(log[i].at - log[i - 1].at);
    EXPECT_GE(gap.count(), 145) << "requests " << i - 1 << " and " << i << " (" << log[i].path << ")";
  }
  std::vector<std::chrono::steady_clock::time_point> p3;
  for (const Logged& l : log) {
    if (l.path == "/p3.html") p3.push_back(l.at);
  }
  ASSERT_EQ(p3.size(), 2u);
  EXPECT_GE(std::chrono::duration_cast<milliseconds>(p3[1] - p3[0]).count(), 1990);
}

TEST_F(CrawlerTest, MirrorsCountOnceCanonicalAndVersionAliasesAreRecorded) {
  Site site({"/robots.txt", "/index.html", "/a.html", "/mirror/a.html", "/print/a.html", "/docs/current/page.html",
             "/docs/15/page.html"});
  const std::string alpha = Words("alpha", 300);
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 80), {"a.html", "mirror/a.html", "print/a.html",
                                                                        "docs/current/page.html"})});
  site.Set("/a.html", {200, PageHtml("Alpha", alpha, {})});
  // The mirror differs by one word in 300: within the near-duplicate distance (checked here first).
  const std::string mirrored = alpha.substr(0, alpha.size() - 1) + " mirror.";
  Analyzer analyzer;
  ASSERT_LE(HammingDistance(SimHashText(analyzer, "Alpha\n" + alpha), SimHashText(analyzer, "Alpha\n" + mirrored)), 3);
  site.Set("/mirror/a.html", {200, PageHtml("Alpha", mirrored, {})});
  site.Set("/print/a.html", {200, PageHtml("Alpha", alpha, {}, "<link rel=\"canonical\" href=\"/a.html\">")});
  Served redirect{302, ""};
  redirect.headers = {{"Location", "/docs/15/page.html"}};
  site.Set("/docs/current/page.html", redirect);
  site.Set("/docs/15/page.html", {200, PageHtml("Page", Words("page", 80), {})});
  OpenEngine();
  OpenFrontier();
  CrawlReport r = Pass(site, Options(site));
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.redirects, 1u);
  // index, a (also under print/a's canonical), docs/15/page: the mirror is not a document.
  EXPECT_EQ(Documents(), 3u);
  PageRecord mirror = Page(site.url("/mirror/a.html"));
  EXPECT_EQ(mirror.state, PageState::kDuplicate);
  EXPECT_EQ(mirror.duplicate_of, site.url("/a.html"));
  PageRecord print = Page(site.url("/print/a.html"));
  EXPECT_EQ(print.canonical, site.url("/a.html"));
  EXPECT_EQ(print.doc_id, site.url("/a.html"));
  PageRecord current = Page(site.url("/docs/current/page.html"));
  EXPECT_EQ(current.alias_word, "current");
  EXPECT_EQ(current.alias_version, "15");
  EXPECT_EQ(current.redirected_to, site.url("/docs/15/page.html"));
  EXPECT_EQ(current.doc_id, site.url("/docs/15/page.html"));
  // The redirect's target was recorded with the content and is not fetched again.
  EXPECT_EQ(Page(site.url("/docs/15/page.html")).state, PageState::kDone);
  EXPECT_EQ(site.Requests("/docs/15/page.html"), 1);
}

TEST_F(CrawlerTest, ResumesAPassThatACrashLeftWithPagesFetching) {
  std::vector<std::string> paths = {"/robots.txt", "/index.html"};
  std::vector<std::string> links;
  for (int i = 0; i < 8; ++i) {
    paths.push_back("/r" + std::to_string(i) + ".html");
    links.push_back("r" + std::to_string(i) + ".html");
  }
  Site site(paths);
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 50), links)});
  for (int i = 0; i < 8; ++i) {
    site.Set(paths[2 + i], {200, PageHtml("R" + std::to_string(i), Words("r" + std::to_string(i), 50), {})});
  }
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  o.max_pages = 3;  // the pass stops early (its budget)...
  CrawlReport first = Pass(site, o);
  EXPECT_FALSE(first.completed);
  EXPECT_EQ(first.fetched, 3u);
  // ...and a process began the next pass and was killed in it.
  auto begun = frontier_->BeginPass(std::chrono::duration_cast<milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch()).count());
  ASSERT_TRUE(begun.ok());
  ASSERT_FALSE(begun->resumed);
  // A page claimed by the killed process: "fetching" on disk.
  PageRecord claimed = Page(site.url("/r5.html"));
  ASSERT_EQ(claimed.state, PageState::kQueued);
  claimed.state = PageState::kFetching;
  FrontierWrite w;
  w.pages = {claimed};
  ASSERT_TRUE(frontier_->Apply(w).ok());
  OpenFrontier();
  EXPECT_EQ(frontier_->recovered_fetching(), 1u);
  EXPECT_EQ(Page(site.url("/r5.html")).state, PageState::kQueued);
  o.max_pages = 0;
  CrawlReport rest = Pass(site, o);
  EXPECT_TRUE(rest.resumed);
  EXPECT_TRUE(rest.completed);
  EXPECT_EQ(rest.fetched, 6u);  // the 9 pages, each fetched once over both runs
  EXPECT_EQ(Documents(), 9u);
  for (const std::string& p : paths) {
    if (p != "/robots.txt") EXPECT_EQ(site.Requests(p), 1) << p;
  }
  auto counts = frontier_->Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->done, 9u);
  EXPECT_EQ(counts->queued + counts->fetching, 0u);
}

TEST_F(CrawlerTest, PdfAndGzipBodiesAreReadByTheFileReaders) {
  if (!ingest::FindProgram("pdftotext")) {
    const char* allow = std::getenv("ATTEST_ALLOW_MISSING_PDFTOTEXT");
    if (allow && std::string(allow) == "1") GTEST_SKIP() << "pdftotext missing";
    FAIL() << "pdftotext (poppler-utils, scripts/bootstrap) is missing; ATTEST_ALLOW_MISSING_PDFTOTEXT=1 skips";
  }
  Site site({"/robots.txt", "/index.html", "/manual.pdf", "/notes.html.gz", "/logo.png"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {"manual.pdf", "notes.html.gz", "logo.png"})});
  site.Set("/manual.pdf", {200, MakePdf({"Operating the flux capacitor", "Keep the gigawattmeter below 1.21."}),
                           "application/pdf"});
  site.Set("/notes.html.gz", {200, Gzip(PageHtml("Notes", "The hoverboard works on water too.", {})),
                              "application/gzip"});
  site.Set("/logo.png", {200, std::string("\x89PNG\r\n\x1a\n", 8), "image/png"});
  OpenEngine();
  OpenFrontier();
  CrawlReport r = Pass(site, Options(site));
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.errors, 0u) << (r.errors_by_reason.empty() ? "" : r.errors_by_reason.begin()->first);
  EXPECT_EQ(Documents(), 3u);
  for (auto [query, path] : {std::pair{"gigawattmeter", "/manual.pdf"}, std::pair{"hoverboard", "/notes.html.gz"}}) {
    SearchOptions so;
    so.query = query;
    auto hits = engine_->Search(so);
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits->hits.size(), 1u) << query;
    EXPECT_EQ(hits->hits[0].doc_id, site.url(path));
  }
  PageRecord logo = Page(site.url("/logo.png"));
  EXPECT_EQ(logo.state, PageState::kExcluded);
  EXPECT_EQ(logo.error, "unsupported_content_type:image/png");
}

TEST_F(CrawlerTest, SitemapIndexGzipSitemapsFeedsAndLastmod) {
  Site site({"/robots.txt", "/sitemap_index.xml", "/sitemaps/pages.xml.gz", "/feed.xml", "/s1.html", "/s2.html",
             "/f1.html", "/elsewhere.html"});
  auto urlset = [&](const std::string& s2_lastmod) {
    return "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
           "<url><loc>" + site.url("/s1.html") + "</loc><lastmod>2026-01-01</lastmod></url>"
           "<url><loc>" + site.url("/s2.html") + "</loc><lastmod>" + s2_lastmod + "</lastmod></url>"
           "<url><loc>http://127.0.0.3:1/elsewhere.html</loc></url></urlset>";
  };
  site.Set("/sitemap_index.xml",
           {200, "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                 "<sitemap><loc>" + site.url("/sitemaps/pages.xml.gz") + "</loc></sitemap></sitemapindex>",
            "application/xml"});
  site.Set("/sitemaps/pages.xml.gz", {200, Gzip(urlset("2026-01-01")), "application/gzip"});
  site.Set("/feed.xml", {200, "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>News</title>"
                              "<link>" + site.url("/") + "</link><item><title>F1</title><link>" +
                              site.url("/f1.html") + "</link><pubDate>Tue, 01 Sep 2026 10:00:00 GMT</pubDate>"
                              "</item></channel></rss>",
                         "application/rss+xml"});
  for (const char* p : {"/s1.html", "/s2.html", "/f1.html"}) site.Set(p, {200, PageHtml(p, Words(p, 40), {})});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o;
  o.sitemaps = {site.url("/sitemap_index.xml")};
  o.feeds = {site.url("/feed.xml")};
  o.politeness.floor = milliseconds{0};
  o.workers = 2;
  CrawlReport r = Pass(site, o);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.sitemap_fetches, 3u);  // the index, the gzip sitemap it names, the feed
  EXPECT_EQ(r.fetched, 3u);
  EXPECT_EQ(r.indexed, 3u);
  EXPECT_EQ(site.Requests("/elsewhere.html"), 0);  // another host: out of scope
  EXPECT_EQ(Page(site.url("/f1.html")).discovered_from, site.url("/feed.xml"));
  EXPECT_EQ(Page(site.url("/s1.html")).discovered_from, site.url("/sitemaps/pages.xml.gz"));
  // Nothing is due; a sitemap whose lastmod for s2 is newer than its fetch makes s2 due now (and
  // the conditional request finds it unchanged).
  site.Set("/sitemaps/pages.xml.gz", {200, Gzip(urlset("2099-01-01")), "application/gzip"});
  CrawlReport again = Pass(site, o);
  EXPECT_EQ(again.fetched, 1u);
  EXPECT_EQ(again.not_modified, 1u);
  EXPECT_EQ(site.Requests("/s2.html"), 2);
  EXPECT_EQ(site.Requests("/s1.html"), 1);
}

TEST_F(CrawlerTest, AnUnreachableRobotsTxtDisallowsTheOriginForThatRunOnly) {
  Site site({"/robots.txt", "/index.html"});
  site.Set("/robots.txt", {503, ""});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {})});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  CrawlReport first = Pass(site, o);
  EXPECT_EQ(first.robots_denied, 1u);
  EXPECT_EQ(first.fetched, 0u);
  EXPECT_EQ(site.Requests("/index.html"), 0);  // RFC 9309 §2.3.1.4: unreachable = disallow all
  site.Set("/robots.txt", {200, "User-agent: *\nAllow: /\n", "text/plain"});
  o.revisit_all = true;
  CrawlReport second = Pass(site, o);
  EXPECT_EQ(second.robots_fetches, 1u);  // not taken from the frontier
  EXPECT_EQ(second.indexed, 1u);
  EXPECT_EQ(Page(site.url("/index.html")).state, PageState::kDone);
}

TEST_F(CrawlerTest, NoindexAndNofollowAreHonouredAndKeptOnA304) {
  Site site({"/robots.txt", "/index.html", "/hidden.html", "/dead-end.html", "/never.html"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {"hidden.html", "dead-end.html"})});
  site.Set("/hidden.html", {200, PageHtml("Hidden", "The secretword page.", {},
                                          "<meta name=\"robots\" content=\"noindex\">")});
  site.Set("/dead-end.html", {200, PageHtml("Dead end", Words("dead", 40), {"never.html"},
                                            "<meta name=\"robots\" content=\"nofollow\">")});
  site.Set("/never.html", {200, PageHtml("Never", Words("never", 40), {})});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  CrawlReport r = Pass(site, o);
  EXPECT_EQ(r.noindex, 1u);
  EXPECT_EQ(Documents(), 2u);  // index, dead-end
  EXPECT_EQ(site.Requests("/never.html"), 0);
  EXPECT_EQ(Page(site.url("/hidden.html")).state, PageState::kExcluded);
  o.revisit_all = true;
  CrawlReport again = Pass(site, o);
  EXPECT_EQ(again.not_modified, 3u);
  PageRecord hidden = Page(site.url("/hidden.html"));
  EXPECT_EQ(hidden.state, PageState::kExcluded);
  EXPECT_EQ(hidden.error, "noindex");
  EXPECT_EQ(Documents(), 2u);
}

TEST_F(CrawlerTest, ALatin1PageIsDecodedAndSearchableByItsAccentedWord) {
  Site site({"/robots.txt", "/index.html", "/latin.html", "/meta.html", "/klingon.html"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {"latin.html", "meta.html", "klingon.html"})});
  // ISO-8859-1 bytes: "crème brûlée" (0xE8, 0xFB, 0xE9), declared by the header.
  site.Set("/latin.html", {200, "<html><head><title>Desserts</title></head><body><p>The cr\xE8me br\xFBl\xE9" "e of "
                                "the house is served cold.</p></body></html>",
                           "text/html; charset=ISO-8859-1"});
  // Declared by <meta> only: windows-1252 curly quotes around "Zürich".
  site.Set("/meta.html", {200, "<html><head><meta charset=\"windows-1252\"><title>Trains</title></head><body>"
                               "<p>The \x93Z\xFCrich\x94 night train leaves at ten.</p></body></html>",
                          "text/html"});
  site.Set("/klingon.html", {200, PageHtml("K", "tlhIngan Hol", {}), "text/html; charset=klingon"});
  OpenEngine();
  OpenFrontier();
  CrawlReport r = Pass(site, Options(site));
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(Documents(), 3u);
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.errors_by_reason["unsupported_charset"], 1u);
  PageRecord klingon = Page(site.url("/klingon.html"));
  EXPECT_EQ(klingon.state, PageState::kFailed);
  EXPECT_EQ(klingon.error, "unsupported_charset:klingon");
  for (auto [query, path] : {std::pair{"br\xC3\xBBl\xC3\xA9" "e", "/latin.html"}, std::pair{"Z\xC3\xBCrich", "/meta.html"}}) {
    SearchOptions so;
    so.query = query;
    auto hits = engine_->Search(so);
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits->hits.size(), 1u) << query;
    EXPECT_EQ(hits->hits[0].doc_id, site.url(path));
  }
  auto doc = engine_->GetDocument(SearchFilter{}, site.url("/meta.html"));
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->text.find("\xE2\x80\x9CZ\xC3\xBCrich\xE2\x80\x9D"), std::string::npos);
}

TEST_F(CrawlerTest, APageListedOnlyInARobotsSitemapIsCrawled) {
  Site site({"/robots.txt", "/index.html", "/maps/robots-sitemap.xml", "/docs/orphan.html", "/relative.xml"});
  site.Set("/robots.txt", {200, "User-agent: *\nDisallow: /private/\n\n"
                                "Sitemap: " + site.url("/maps/robots-sitemap.xml") + "\n"
                                "Sitemap: /relative.xml\n"                      // relative: ignored
                                "Sitemap: http://127.0.0.3:1/other-host.xml\n",  // host out of scope
                           "text/plain"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {})});
  site.Set("/maps/robots-sitemap.xml",
           {200, "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                 "<url><loc>" + site.url("/docs/orphan.html") + "</loc></url></urlset>",
            "application/xml"});
  site.Set("/docs/orphan.html", {200, PageHtml("Orphan", "The zeppelin timetable is only in the sitemap.", {})});
  site.Set("/relative.xml", {200, "<urlset/>", "application/xml"});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  o.scope.path_prefixes = {"/index.html", "/docs/"};  // the sitemap file itself is outside the prefixes
  o.sitemaps_from_robots = false;
  CrawlReport off = Pass(site, o);
  EXPECT_EQ(off.errors, 0u);
  EXPECT_EQ(site.Requests("/maps/robots-sitemap.xml"), 0);
  EXPECT_EQ(site.Requests("/docs/orphan.html"), 0);
  EXPECT_EQ(Documents(), 1u);

  o.sitemaps_from_robots = true;  // the default; robots.txt now comes from the frontier
  CrawlReport r = Pass(site, o);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.errors, 0u) << (r.errors_by_reason.empty() ? "" : r.errors_by_reason.begin()->first);
  EXPECT_EQ(r.sitemap_fetches, 1u);
  EXPECT_EQ(site.Requests("/robots.txt"), 1);
  EXPECT_EQ(site.Requests("/maps/robots-sitemap.xml"), 1);
  EXPECT_EQ(site.Requests("/relative.xml"), 0);
  EXPECT_EQ(site.Requests("/docs/orphan.html"), 1);
  EXPECT_EQ(Page(site.url("/docs/orphan.html")).discovered_from, site.url("/maps/robots-sitemap.xml"));
  SearchOptions so;
  so.query = "zeppelin timetable";
  auto hits = engine_->Search(so);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->hits.size(), 1u);
  EXPECT_EQ(hits->hits[0].doc_id, site.url("/docs/orphan.html"));
}

// --license is recorded on every crawled document and shown with it; each document's fetched_at is
// when its page was fetched (the frontier's time), not the commit. A licence with a control
// character is refused before anything is fetched.
TEST_F(CrawlerTest, TheLicenceAndFetchTimeOfCrawledPagesAreRecordedAndShown) {
  Site site({"/robots.txt", "/index.html", "/terms.html"});
  site.Set("/index.html", {200, PageHtml("Index", Words("index", 40), {"terms.html"})});
  site.Set("/terms.html", {200, PageHtml("Terms", "The walrus tariff applies to every parcel.", {})});
  OpenEngine();
  OpenFrontier();
  CrawlOptions o = Options(site);
  o.documents.license = "CC BY-SA 4.0 \xE2\x80\x94 Example contributors";
  CrawlReport r = Pass(site, o);
  EXPECT_TRUE(r.completed);
  ASSERT_EQ(Documents(), 2u);
  auto doc = engine_->GetDocument(SearchFilter{}, site.url("/terms.html"));
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->license, o.documents.license);
  EXPECT_EQ(doc->fetched_at, FormatUtcTimestamp(Page(site.url("/terms.html")).fetched_at_ms));
  SearchOptions so;
  so.query = "walrus tariff";
  auto hits = engine_->Search(so);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->hits.size(), 1u);
  EXPECT_EQ(hits->hits[0].license, o.documents.license);

  o.documents.license = "CC BY\n4.0";
  Fetcher fetcher(LoopbackFetcher(site.port()));
  Crawler crawler(o, *engine_, *frontier_, fetcher, *RealClock());
  auto bad = crawler.RunPass();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("license:"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace attest
