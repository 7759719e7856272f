// Links, rel=canonical and robots directives of fetched pages (crawl/page_links.h), the Link
// header parser (crawl/link_header.h), and the whole PostgreSQL documentation: every page's links
// against a regular-expression oracle, and a walk from index.html that must reach every page.
#include "crawl/page_links.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "crawl/link_header.h"

namespace attest {
namespace {

using Links = std::vector<std::string>;
constexpr std::string_view kPage = "https://docs.example.org/15/sql/select.html?v=2#top";

PageLinks Extract(std::string_view html, std::string_view link_header = "", std::string_view x_robots = "",
                  const PageLinksOptions& options = {}) {
  Result<PageLinks> r = ExtractPageLinks(html, kPage, link_header, x_robots, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : PageLinks{};
}

TEST(PageLinks, ResolvedCanonicalUniqueInDocumentOrder) {
  const PageLinks p = Extract(R"html(<!doctype html><html><head>
      <link rel="stylesheet" href="/style.css"><link rel="next" href="update.html"><link rel="prev" href="insert.html">
    </head><body>
      <a href="create.html#SYNOPSIS">create</a>
      <a href="../intro.html?utm_source=x&amp;id=3">intro</a>
      <a href="create.html">again</a>
      <a href="#top">self</a><a href="">self too</a><a href="select.html?v=2">self again</a>
      <a href="HTTPS://Docs.Example.ORG:443/15/%7Efaq.html">faq</a><a href="HTTP://Docs.Example.ORG:443/">port</a>
      <map><area href="/map/a.html"></map>
      <a href="mailto:x@example.org">mail</a><a href="javascript:void(0)">js</a><a href="ftp://example.org/f">ftp</a>
      <a href="http://[::1">broken</a><a>no href</a>
      <a rel="nofollow" href="/ads.html">ad</a><a rel="Author NOFOLLOW" href="/ads2.html">ad</a>
      <template><a href="/in-template.html">t</a></template>
      <svg><a href="/in-svg.html">s</a></svg>
      <a href="  //other.example.net/x  ">other host</a>
    </body></html>)html");
  EXPECT_EQ(p.links, (Links{"https://docs.example.org/15/sql/update.html", "https://docs.example.org/15/sql/insert.html",
                            "https://docs.example.org/15/sql/create.html", "https://docs.example.org/15/intro.html?id=3",
                            "https://docs.example.org/15/~faq.html", "http://docs.example.org:443/",
                            "https://docs.example.org/map/a.html",
                            "https://other.example.net/x"}));
  EXPECT_FALSE(p.truncated);
  EXPECT_EQ(p.canonical, "");
  EXPECT_FALSE(p.noindex);
  EXPECT_FALSE(p.nofollow);
}

TEST(PageLinks, BaseHrefAppliesToTheWholeDocument) {
  // The first <base href> wins, even for links before it; it is itself resolved against the page.
  const PageLinks p = Extract(R"(<html><head></head><body><a href="a.html">a</a>
      <base href="../../v16/"><base href="/ignored/"><a href="b.html">b</a></body></html>)");
  EXPECT_EQ(p.links, (Links{"https://docs.example.org/v16/a.html", "https://docs.example.org/v16/b.html"}));
  // A base that does not parse is ignored; a base without href does not count as the first.
  const PageLinks q = Extract(R"(<head><base target="_top"><base href="http://a b:99999/"></head><a href="c.html">c</a>)");
  EXPECT_EQ(q.links, (Links{"https://docs.example.org/15/sql/c.html"}));
}

TEST(PageLinks, CapOnLinks) {
  std::string html;
  for (int i = 0; i < 30; ++i) html += "<a href=\"p" + std::to_string(i % 20) + ".html\">x</a>";
  PageLinksOptions options;
  options.max_links = 20;
  PageLinks all = Extract(html, "", "", options);
  EXPECT_EQ(all.links.size(), 20u);
  EXPECT_FALSE(all.truncated);  // 20 distinct: exactly the cap
  options.max_links = 5;
  PageLinks some = Extract(html, "", "", options);
  ASSERT_EQ(some.links.size(), 5u);
  EXPECT_EQ(some.links[4], "https://docs.example.org/15/sql/p4.html");
  EXPECT_TRUE(some.truncated);
}

TEST(PageLinks, CanonicalFromTheHeadSameSiteOnly) {
  EXPECT_EQ(Extract(R"(<head><link rel="canonical" href="/15/sql/select.html?utm_medium=feed#x"></head>)").canonical,
            "https://docs.example.org/15/sql/select.html");
  EXPECT_EQ(Extract(R"(<head><link rel="Canonical" href="https://www.docs.example.org/current/select.html"></head>)").canonical,
            "https://www.docs.example.org/current/select.html");
  EXPECT_EQ(Extract(R"(<head><base href="/16/"><link rel="canonical" href="select.html"></head>)").canonical,
            "https://docs.example.org/16/select.html");
  // Another site, a link in the body, an unparseable claim: refused.
  EXPECT_EQ(Extract(R"(<head><link rel="canonical" href="https://evil.example.com/select.html"></head>)").canonical, "");
  EXPECT_EQ(Extract(R"(<body><p>x</p><link rel="canonical" href="/elsewhere.html"></body>)").canonical, "");
  EXPECT_EQ(Extract(R"html(<head><link rel="canonical" href="javascript:alert(1)"></head>)html").canonical, "");
  // Two claims that disagree: neither.
  EXPECT_EQ(Extract(R"(<head><link rel="canonical" href="/a.html"><link rel="canonical" href="/b.html"></head>)").canonical, "");
  EXPECT_EQ(Extract(R"(<head><link rel="canonical" href="/a.html"><link rel="canonical" href="/a.html#f"></head>)").canonical,
            "https://docs.example.org/a.html");
}

TEST(PageLinks, CanonicalFromTheLinkHeader) {
  EXPECT_EQ(Extract("", R"(</15/sql/select.html>; rel="canonical")").canonical, "https://docs.example.org/15/sql/select.html");
  // Resolved against the page URL, not the document's <base>.
  EXPECT_EQ(Extract(R"(<head><base href="/other/"></head>)", R"(<x.html>; rel=canonical)").canonical,
            "https://docs.example.org/15/sql/x.html");
  EXPECT_EQ(Extract("", R"(<style.css>; rel=preload; as=style, <https://docs.example.org/c.html>; rel="alternate canonical")")
                .canonical,
            "https://docs.example.org/c.html");
  // Several field lines, joined by a line break.
  EXPECT_EQ(Extract("", "<a.css>; rel=preload\n<https://docs.example.org/d.html>; rel=canonical").canonical,
            "https://docs.example.org/d.html");
  EXPECT_EQ(Extract("", R"(<https://elsewhere.example/c.html>; rel=canonical)").canonical, "");
  // An anchor naming another resource: not about this page.
  EXPECT_EQ(Extract("", R"(</c.html>; rel=canonical; anchor="/other.html")").canonical, "");
  EXPECT_EQ(Extract("", R"(</c.html>; rel=canonical; anchor="select.html?v=2")").canonical, "https://docs.example.org/c.html");
  // Header and element agree: accepted; disagree: neither.
  EXPECT_EQ(Extract(R"(<head><link rel=canonical href="/c.html"></head>)", "</c.html>; rel=canonical").canonical,
            "https://docs.example.org/c.html");
  EXPECT_EQ(Extract(R"(<head><link rel=canonical href="/c.html"></head>)", "</d.html>; rel=canonical").canonical, "");
}

TEST(LinkHeader, Rfc8288Grammar) {
  // RFC 8288 §3.5's examples.
  std::vector<LinkValue> v = ParseLinkHeader(R"(<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].target, "http://example.com/TheBook/chapter2");
  EXPECT_TRUE(v[0].HasRel("previous"));
  EXPECT_EQ(v[0].Param("title"), "previous chapter");
  v = ParseLinkHeader(R"(</>; rel="http://example.net/foo")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].HasRel("http://example.net/foo"));
  v = ParseLinkHeader(R"(</terms>; rel="copyright"; anchor="#foo")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].Param("anchor"), "#foo");
  v = ParseLinkHeader(R"(</TheBook/chapter2>; rel="previous"; title*=UTF-8'de'letztes%20Kapitel, )"
                      R"(</TheBook/chapter4>; rel="next"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel)");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].Param("title*"), "UTF-8'de'letztes%20Kapitel");
  EXPECT_TRUE(v[1].HasRel("next"));
  v = ParseLinkHeader(R"(<http://example.org/>; rel="start http://example.net/relation/other")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].HasRel("START"));
  EXPECT_TRUE(v[0].HasRel("http://example.net/relation/other"));
  EXPECT_FALSE(v[0].HasRel("other"));
}

TEST(LinkHeader, QuotingRepeatsAndBrokenValues) {
  // A comma and a semicolon inside quotes, an escaped quote, a comma inside <...>.
  std::vector<LinkValue> v = ParseLinkHeader(R"(<a,b>; title="x, y; \"z\""; rel=next , <c>;rel=prev)");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].target, "a,b");
  EXPECT_EQ(v[0].Param("title"), R"(x, y; "z")");
  EXPECT_TRUE(v[0].HasRel("next"));
  EXPECT_EQ(v[1].target, "c");
  // Only the first rel counts (RFC 8288 §3.3); names are case-insensitive; BWS around "=".
  v = ParseLinkHeader(R"(<a>; REL = "next"; rel=canonical)");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].HasRel("next"));
  EXPECT_FALSE(v[0].HasRel("canonical"));
  // Broken link-values are skipped, the rest kept.
  v = ParseLinkHeader(R"(garbage; rel=canonical, <ok1>; rel=canonical, <bad> junk, <ok2>; x="unterminated)");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].target, "ok1");
  v = ParseLinkHeader(R"(<unclosed; rel=canonical)");
  EXPECT_TRUE(v.empty());
  v = ParseLinkHeader(" , ,, <x>;;; rel=next;, ");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].HasRel("next"));
  std::string many;
  for (int i = 0; i < 50; ++i) many += "<" + std::to_string(i) + ">, ";
  EXPECT_EQ(ParseLinkHeader(many, 10).size(), 10u);
}

TEST(PageLinks, RobotsMetaElements) {
  EXPECT_TRUE(Extract(R"(<meta name="robots" content="noindex">)").noindex);
  PageLinks p = Extract(R"(<head><meta name="ROBOTS" content="NoIndex, NoFollow"></head>)");
  EXPECT_TRUE(p.noindex && p.nofollow);
  p = Extract(R"(<meta name="robots" content="none">)");
  EXPECT_TRUE(p.noindex && p.nofollow);
  p = Extract(R"(<meta name="attestbot" content="nofollow"><meta name="googlebot" content="noindex">)");
  EXPECT_FALSE(p.noindex);
  EXPECT_TRUE(p.nofollow);
  p = Extract(R"(<meta name="robots" content="index, follow, max-snippet:-1">)");
  EXPECT_FALSE(p.noindex || p.nofollow);
  p = Extract(R"(<meta name="description" content="noindex nofollow">)");
  EXPECT_FALSE(p.noindex || p.nofollow);
  // Links are still returned under nofollow: the crawler decides.
  p = Extract(R"(<meta name="robots" content="nofollow"><a href="x.html">x</a>)");
  EXPECT_TRUE(p.nofollow);
  EXPECT_EQ(p.links.size(), 1u);
}

TEST(PageLinks, XRobotsTagHeader) {
  auto d = [](std::string_view v) { return ParseXRobotsTag(v, "AttestBot"); };
  EXPECT_TRUE(d("noindex").noindex);
  EXPECT_TRUE(d("noindex, nofollow").nofollow);
  EXPECT_TRUE(d("NONE").noindex);
  EXPECT_TRUE(d("attestbot: noindex").noindex);
  EXPECT_FALSE(d("googlebot: noindex").noindex);
  EXPECT_FALSE(d("otherbot: noindex, nofollow").nofollow);           // the scope runs to the end of the line
  EXPECT_TRUE(d("otherbot: noindex\nnofollow").nofollow);            // a new field line: no scope
  EXPECT_FALSE(d("otherbot: noindex\nnofollow").noindex);
  EXPECT_TRUE(d("otherbot: noindex, AttestBot: nofollow").nofollow);
  EXPECT_FALSE(d("otherbot: noindex, AttestBot: nofollow").noindex);
  EXPECT_FALSE(d("unavailable_after: 25 Jun 2010 15:00:00 PST").noindex);
  EXPECT_TRUE(d("unavailable_after: 25 Jun 2010 15:00:00 PST, noindex").noindex);  // not a scope
  EXPECT_TRUE(d("max-snippet: 20, nofollow").nofollow);
  EXPECT_FALSE(d("").noindex);
  const PageLinks p = Extract("<p>x</p>", "", "AttestBot: noindex");
  EXPECT_TRUE(p.noindex);
  EXPECT_FALSE(p.nofollow);
}

TEST(PageLinks, ErrorsNameTheirCause) {
  Result<PageLinks> r = ExtractPageLinks("<a href=x>", "not a url", "", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("page URL"), std::string::npos);
  EXPECT_FALSE(ExtractPageLinks("", "ftp://example.org/", "", "").ok());
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += "<div>";
  r = ExtractPageLinks(deep, kPage, "", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("html.max_depth"), std::string::npos);
  EXPECT_TRUE(ExtractPageLinks("", kPage, "", "").ok());  // an empty page has no links
}

// ---- the PostgreSQL documentation -----------------------------------------------------------

namespace fs = std::filesystem;
constexpr const char* kPgDocs = "/usr/share/doc/postgresql-doc-15/html";
constexpr std::string_view kPgBase = "http://127.0.0.1:8080/docs/15/";

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The oracle: hrefs of <a ...> tags found by a regular expression (the DocBook output is regular:
// double-quoted attributes, no <base>, no nofollow), entities &amp; decoded, resolved and canonicalized.
std::set<std::string> OracleLinks(const std::string& html, const Url& page) {
  static const std::regex kHref(R"re(<a\s[^>]*?href="([^"]*)")re", std::regex::icase);
  std::set<std::string> out;
  const std::string self = CanonicalUrl(page);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), kHref); it != std::sregex_iterator(); ++it) {
    std::string href = (*it)[1];
    for (size_t at; (at = href.find("&amp;")) != std::string::npos;) href.replace(at, 5, "&");
    const UrlParse u = ResolveUrl(page, href);
    if (!u.ok()) continue;
    std::string c = CanonicalUrl(*u.url);
    if (c != self) out.insert(c);
  }
  return out;
}

bool RequirePgDocs() {
  if (fs::is_directory(kPgDocs)) return true;
  if (const char* allow = std::getenv("ATTEST_ALLOW_MISSING_PGDOCS"); allow && std::string(allow) == "1") return false;
  ADD_FAILURE() << "PostgreSQL documentation missing at " << kPgDocs
                << " (Debian package postgresql-doc-15, installed by scripts/bootstrap; "
                   "ATTEST_ALLOW_MISSING_PGDOCS=1 skips)";
  return false;
}

TEST(PageLinksOnPostgresDocs, EveryPageMatchesTheOracleAndIndexReachesEveryPage) {
  if (!RequirePgDocs()) GTEST_SKIP() << "PostgreSQL documentation not installed";
  std::set<std::string> pages;
  for (const auto& e : fs::directory_iterator(kPgDocs)) {
    if (e.path().extension() == ".html") pages.insert(e.path().filename().string());
  }
  ASSERT_GT(pages.size(), 1000u);
  std::set<std::string> reached{"index.html"};
  std::deque<std::string> queue{"index.html"};
  size_t links = 0, outside = 0;
  while (!queue.empty()) {
    const std::string name = queue.front();
    queue.pop_front();
    const std::string html = ReadAll(fs::path(kPgDocs) / name);
    const std::string url = std::string(kPgBase) + name;
    Result<PageLinks> r = ExtractPageLinks(html, url, "", "");
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    EXPECT_FALSE(r->noindex || r->nofollow || r->truncated) << name;
    const std::set<std::string> got(r->links.begin(), r->links.end());
    ASSERT_EQ(got.size(), r->links.size()) << name;
    ASSERT_EQ(got, OracleLinks(html, *ParseUrl(url).url)) << name;
    links += got.size();
    for (const std::string& link : got) {
      if (!link.starts_with(kPgBase)) {
        ++outside;
        continue;
      }
      const std::string rest = link.substr(kPgBase.size());
      if (rest.find_first_of("/?") != std::string::npos || !pages.count(rest)) continue;  // not a page of the tree
      if (reached.insert(rest).second) queue.push_back(rest);
    }
  }
  std::vector<std::string> unreached;
  std::set_difference(pages.begin(), pages.end(), reached.begin(), reached.end(), std::back_inserter(unreached));
  std::printf("%zu pages, %zu reached from index.html, %zu links, %zu outside the tree\n", pages.size(), reached.size(),
              links, outside);
  EXPECT_TRUE(unreached.empty()) << unreached.size() << " pages are not reachable, e.g. " << unreached.front();
}

}  // namespace
}  // namespace attest
