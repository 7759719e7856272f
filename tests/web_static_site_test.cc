// The page's files over HTTP (server/static_site.h, docs/web.md "Serving"): the embedded bundle,
// its headers (CSP, ETag and 304, gzip, cache lifetimes), the folder mode's name checks, and the
// real `attest serve` answering `/` without a credential while the API still asks for one.
#include <zlib.h>

#include <gtest/gtest.h>

#include "server/static_site.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest::server {
namespace {

using testing_support::HttpReply;
using testing_support::MakeCall;
using testing_support::ServeProcess;
using testing_support::TempDir;
using testing_support::WriteFile;

std::string Gunzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(in.size() * 20 + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  out.resize(z.total_out);
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

http::Request Get(std::map<std::string, std::string> headers = {}) {
  http::Request r;
  r.method = "GET";
  r.headers = std::move(headers);
  return r;
}

std::string HeaderOf(const http::Response& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "";
}

TEST(WebStaticSiteTest, EmbeddedBundleHasTheIndexAndHashedAssetsItNames) {
  auto site = StaticSite::Embedded();
  ASSERT_TRUE(site.ok()) << site.status().ToString();
  auto index = (*site)->Serve("index.html", Get());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(HeaderOf(*index, "Cache-Control"), "no-cache");
  // Every asset index.html refers to is embedded, content-hashed and cached for a year.
  size_t pos = 0, named = 0;
  while ((pos = index->body.find("/assets/", pos)) != std::string::npos) {
    const size_t end = index->body.find('"', pos);
    const std::string name = index->body.substr(pos + 1, end - pos - 1);
    auto asset = (*site)->Serve(name, Get());
    ASSERT_TRUE(asset.has_value()) << name;
    EXPECT_TRUE(IsHashedWebName(name)) << name;
    EXPECT_EQ(HeaderOf(*asset, "Cache-Control"), "public, max-age=31536000, immutable");
    EXPECT_FALSE(asset->content_type.empty());
    ++named;
    pos = end;
  }
  EXPECT_GE(named, 3u);  // script, stylesheet, icon
  EXPECT_FALSE((*site)->Serve("assets/missing-000000000000.js", Get()).has_value());
  EXPECT_FALSE((*site)->Serve("../CMakeLists.txt", Get()).has_value());
}

TEST(WebStaticSiteTest, SecurityHeadersForbidInlineScriptAndOtherOrigins) {
  auto site = StaticSite::Embedded();
  ASSERT_TRUE(site.ok());
  auto index = (*site)->Serve("index.html", Get());
  const std::string csp = HeaderOf(*index, "Content-Security-Policy");
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos);
  EXPECT_EQ(csp.find("http"), std::string::npos) << "no other origin may be named";
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos);
  EXPECT_EQ(HeaderOf(*index, "X-Content-Type-Options"), "nosniff");
  // The bundle itself keeps to it: index.html loads scripts from files only.
  EXPECT_EQ(index->body.find("<script>"), std::string::npos);
  EXPECT_EQ(index->body.find("http://"), std::string::npos);
  EXPECT_EQ(index->body.find("https://"), std::string::npos);
}

TEST(WebStaticSiteTest, EtagGivesNotModifiedAndGzipOnlyWhenAccepted) {
  auto site = StaticSite::Embedded();
  ASSERT_TRUE(site.ok());
  auto plain = (*site)->Serve("index.html", Get());
  const std::string etag = HeaderOf(*plain, "ETag");
  ASSERT_EQ(etag.size(), 34u);
  EXPECT_EQ(HeaderOf(*plain, "Content-Encoding"), "");

  EXPECT_EQ((*site)->Serve("index.html", Get({{"if-none-match", etag}}))->status, 304);
  EXPECT_EQ((*site)->Serve("index.html", Get({{"if-none-match", "\"other\", W/" + etag}}))->status, 304);
  EXPECT_EQ((*site)->Serve("index.html", Get({{"if-none-match", "*"}}))->status, 304);
  auto stale = (*site)->Serve("index.html", Get({{"if-none-match", "\"0000\""}}));
  EXPECT_EQ(stale->status, 200);
  EXPECT_TRUE(stale->body.empty() == false);

  auto gz = (*site)->Serve("index.html", Get({{"accept-encoding", "br, gzip;q=0.8"}}));
  EXPECT_EQ(HeaderOf(*gz, "Content-Encoding"), "gzip");
  EXPECT_EQ(HeaderOf(*gz, "Vary"), "Accept-Encoding");
  EXPECT_EQ(Gunzip(gz->body), plain->body);
  EXPECT_EQ(HeaderOf(*(*site)->Serve("index.html", Get({{"accept-encoding", "gzip;q=0, br"}})), "Content-Encoding"), "");
  EXPECT_EQ(HeaderOf(*(*site)->Serve("index.html", Get({{"accept-encoding", "identity"}})), "Content-Encoding"), "");
}

TEST(WebStaticSiteTest, HashedNamesAreRecognisedExactly) {
  EXPECT_TRUE(IsHashedWebName("assets/app-0123456789ab.js"));
  EXPECT_FALSE(IsHashedWebName("assets/app-0123456789AB.js"));
  EXPECT_FALSE(IsHashedWebName("assets/app-0123456789a.js"));
  EXPECT_FALSE(IsHashedWebName("assets/app.0123456789ab.js"));
  EXPECT_FALSE(IsHashedWebName("index.html"));
  EXPECT_EQ(WebContentType("assets/x.exe"), "");
}

TEST(WebStaticSiteTest, FolderModeReadsEachRequestAndRefusesOtherPaths) {
  TempDir dir;
  EXPECT_FALSE(StaticSite::FromFolder(dir.str()).ok()) << "a folder without index.html is refused";
  WriteFile(dir.path() / "index.html", "<!doctype html><title>one</title>");
  WriteFile(dir.path() / "assets" / "app-0123456789ab.js", "console.log(1)");
  WriteFile(dir.path() / "secret.txt", "not part of the page");
  WriteFile(dir.path() / "assets" / ".hidden.js", "x");
  auto site = StaticSite::FromFolder(dir.str());
  ASSERT_TRUE(site.ok()) << site.status().ToString();
  EXPECT_NE((*site)->Serve("index.html", Get())->body.find("one"), std::string::npos);
  WriteFile(dir.path() / "index.html", "<!doctype html><title>two</title>");
  auto again = (*site)->Serve("index.html", Get());
  EXPECT_NE(again->body.find("two"), std::string::npos) << "a rebuilt bundle shows on reload";
  // While developing nothing is cached for long, hashed or not.
  EXPECT_EQ(HeaderOf(*(*site)->Serve("assets/app-0123456789ab.js", Get()), "Cache-Control"), "no-cache");
  for (const char* bad : {"secret.txt", "assets/../secret.txt", "assets/.hidden.js", "assets/a/b.js",
                          "assets/%2e%2e", "assets/", "/etc/passwd", "assets/x.exe"}) {
    EXPECT_FALSE((*site)->Serve(bad, Get()).has_value()) << bad;
  }
}

TEST(WebStaticSiteTest, ServeAnswersThePageWithoutACredentialButNotTheApi) {
  TempDir data;
  ServeProcess serve(data.str(), {}, {});
  ASSERT_NE(serve.port(), 0);
  HttpReply page = testing_support::HttpRequest(serve.port(), MakeCall("GET", "/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<attest-app>"), std::string::npos);
  EXPECT_NE(page.Header("content-security-policy").find("script-src 'self'"), std::string::npos);
  HttpReply missing = testing_support::HttpRequest(serve.port(), MakeCall("GET", "/assets/nothing.js"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("\"not_found\""), std::string::npos) << "404s come from the one error table";
  HttpReply api = testing_support::HttpRequest(serve.port(), MakeCall("POST", "/v1/search", {}, R"({"query":"x"})"));
  EXPECT_EQ(api.status, 401) << "the page does not open the API";
}

TEST(WebStaticSiteTest, NoWebFlagServesTheApiOnly) {
  TempDir data;
  ServeProcess serve(data.str(), {}, {"--no-web"});
  ASSERT_NE(serve.port(), 0);
  EXPECT_EQ(testing_support::HttpRequest(serve.port(), MakeCall("GET", "/")).status, 404);
  EXPECT_EQ(testing_support::HttpRequest(serve.port(), MakeCall("GET", "/healthz")).status, 200);
}

}  // namespace
}  // namespace attest::server
