// URL identity: RFC 3986 §5.4 reference resolution (every example), §6 normalization
// equivalences, canonical form, hostile inputs, version aliases, SameSite.
#include "crawl/url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace attest {
namespace {

constexpr std::string_view kBase = "http://a/b/c/d;p?q";

struct Example {
  const char* ref;
  const char* target;
};

// RFC 3986 §5.4.1, all of them.
const Example kNormal[] = {
    {"g:h", "g:h"},
    {"g", "http://a/b/c/g"},
    {"./g", "http://a/b/c/g"},
    {"g/", "http://a/b/c/g/"},
    {"/g", "http://a/g"},
    {"//g", "http://g"},
    {"?y", "http://a/b/c/d;p?y"},
    {"g?y", "http://a/b/c/g?y"},
    {"#s", "http://a/b/c/d;p?q#s"},
    {"g#s", "http://a/b/c/g#s"},
    {"g?y#s", "http://a/b/c/g?y#s"},
    {";x", "http://a/b/c/;x"},
    {"g;x", "http://a/b/c/g;x"},
    {"g;x?y#s", "http://a/b/c/g;x?y#s"},
    {"", "http://a/b/c/d;p?q"},
    {".", "http://a/b/c/"},
    {"./", "http://a/b/c/"},
    {"..", "http://a/b/"},
    {"../", "http://a/b/"},
    {"../g", "http://a/b/g"},
    {"../..", "http://a/"},
    {"../../", "http://a/"},
    {"../../g", "http://a/g"},
};

// RFC 3986 §5.4.2, all of them (strict parser for "http:g").
const Example kAbnormal[] = {
    {"../../../g", "http://a/g"},
    {"../../../../g", "http://a/g"},
    {"/./g", "http://a/g"},
    {"/../g", "http://a/g"},
    {"g.", "http://a/b/c/g."},
    {".g", "http://a/b/c/.g"},
    {"g..", "http://a/b/c/g.."},
    {"..g", "http://a/b/c/..g"},
    {"./../g", "http://a/b/g"},
    {"./g/.", "http://a/b/c/g/"},
    {"g/./h", "http://a/b/c/g/h"},
    {"g/../h", "http://a/b/c/h"},
    {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
    {"g;x=1/../y", "http://a/b/c/y"},
    {"g?y/./x", "http://a/b/c/g?y/./x"},
    {"g?y/../x", "http://a/b/c/g?y/../x"},
    {"g#s/./x", "http://a/b/c/g#s/./x"},
    {"g#s/../x", "http://a/b/c/g#s/../x"},
    {"http:g", "http:g"},
};

TEST(CrawlUrlResolve, Rfc3986NormalExamples) {
  for (const Example& e : kNormal) EXPECT_EQ(ResolveUriString(kBase, e.ref), e.target) << "ref: " << e.ref;
}

TEST(CrawlUrlResolve, Rfc3986AbnormalExamples) {
  for (const Example& e : kAbnormal) EXPECT_EQ(ResolveUriString(kBase, e.ref), e.target) << "ref: " << e.ref;
}

// The same examples through the http-only parser: each http target parses to the same URL, and
// the two that are not crawlable http URLs are refused with a named reason.
TEST(CrawlUrlResolve, ExamplesThroughTheHttpParser) {
  const UrlParse base = ParseUrl(kBase);
  ASSERT_TRUE(base.ok()) << base.error.ToString();
  std::vector<Example> all(std::begin(kNormal), std::end(kNormal));
  all.insert(all.end(), std::begin(kAbnormal), std::end(kAbnormal));
  for (const Example& e : all) {
    const UrlParse got = ResolveUrl(*base.url, e.ref);
    if (std::string_view(e.ref) == "g:h") {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.error.code, UrlErrorCode::kUnsupportedScheme);
    } else if (std::string_view(e.ref) == "http:g") {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.error.code, UrlErrorCode::kMissingHost);
    } else {
      ASSERT_TRUE(got.ok()) << e.ref << ": " << got.error.ToString();
      // The target, normalized (only "//g" changes: its empty path becomes "/", §6.2.3).
      EXPECT_EQ(got.url->Spec(), ParseUrl(e.target).url->Spec()) << "ref: " << e.ref;
      EXPECT_EQ(got.url->Spec(), std::string_view(e.ref) == "//g" ? std::string("http://g/") : e.target);
    }
  }
}

TEST(CrawlUrlResolve, RemoveDotSegmentsWorkedExamples) {
  // The two traces of §5.2.4.
  EXPECT_EQ(RemoveDotSegments("/a/b/c/./../../g"), "/a/g");
  EXPECT_EQ(RemoveDotSegments("mid/content=5/../6"), "mid/6");
  EXPECT_EQ(RemoveDotSegments(""), "");
  EXPECT_EQ(RemoveDotSegments("/.."), "/");
  EXPECT_EQ(RemoveDotSegments("/a/.."), "/");
}

TEST(CrawlUrlResolve, LinksFromPages) {
  const Url base = *ParseUrl("https://www.postgresql.org/docs/15/sql-select.html").url;
  EXPECT_EQ(ResolveUrl(base, "  sql-insert.html\n").url->Spec(), "https://www.postgresql.org/docs/15/sql-insert.html");
  EXPECT_EQ(ResolveUrl(base, "../current/index.html").url->Spec(), "https://www.postgresql.org/docs/current/index.html");
  EXPECT_EQ(ResolveUrl(base, "//Example.COM:443").url->Spec(), "https://example.com/");
  EXPECT_EQ(ResolveUrl(base, "sql-\n\tinsert.html").url->Spec(), "https://www.postgresql.org/docs/15/sql-insert.html");
  EXPECT_EQ(ResolveUrl(base, "javascript:alert(1)").error.code, UrlErrorCode::kUnsupportedScheme);
  EXPECT_EQ(ResolveUrl(base, "mailto:a@b.c").error.code, UrlErrorCode::kUnsupportedScheme);
  EXPECT_EQ(ResolveUrl(base, "//user@evil.example/").error.code, UrlErrorCode::kUserinfo);
}

// §6.2.2 and §6.2.3: every spelling in a group parses to the same URL.
TEST(CrawlUrlNormalize, EquivalentSpellings) {
  const std::vector<std::vector<std::string>> groups = {
      {"http://example.com", "http://example.com/", "http://example.com:/", "http://example.com:80/",
       "HTTP://EXAMPLE.com/", "http://example.com:0080/"},
      {"http://example.com/a/b/c/%7Bfoo%7D", "hTTp://example.com/a/./b/../b/%63/%7bfoo%7d"},
      {"https://example.com/~user/", "https://example.com/%7Euser/", "https://example.com:443/%7euser/"},
      {"http://example.com/a%2Fb", "http://example.com/a%2fb"},  // reserved stays encoded
      {"http://example.com/a/b", "http://example.com/a/%2E/b", "http://example.com/a/c/%2e%2E/b"},
      {"http://example.com/%C3%A9", "http://example.com/\xC3\xA9", "http://example.com/%c3%a9"},
      {"http://example.com/a%20b", "http://example.com/a b"},
      {"http://xn--bcher-kva.example/", "http://B\xC3\xBC" "cher.example/", "http://b%C3%BCcher.EXAMPLE/"},
      {"http://[2001:db8::1]/", "http://[2001:DB8:0:0:0:0:0:1]:80/", "http://[2001:0db8::0001]/"},
      {"http://example.com./", "http://example.com/"},
  };
  for (const auto& group : groups) {
    const UrlParse first = ParseUrl(group[0]);
    ASSERT_TRUE(first.ok()) << group[0] << ": " << first.error.ToString();
    for (const std::string& s : group) {
      const UrlParse p = ParseUrl(s);
      ASSERT_TRUE(p.ok()) << s << ": " << p.error.ToString();
      EXPECT_EQ(p.url->Spec(), first.url->Spec()) << s;
      EXPECT_EQ(ParseUrl(p.url->Spec()).url->Spec(), p.url->Spec()) << "not idempotent: " << s;
    }
  }
}

TEST(CrawlUrlNormalize, DistinctUrlsStayDistinct) {
  // §6.2.3: "/?" is not "/", a fragment differs, path case is significant, ports are kept.
  EXPECT_NE(ParseUrl("http://example.com/?").url->Spec(), ParseUrl("http://example.com/").url->Spec());
  EXPECT_NE(ParseUrl("http://example.com/A").url->Spec(), ParseUrl("http://example.com/a").url->Spec());
  EXPECT_EQ(ParseUrl("http://example.com:8080/").url->Spec(), "http://example.com:8080/");
  EXPECT_EQ(ParseUrl("https://example.com:80/").url->Spec(), "https://example.com:80/");
  EXPECT_EQ(ParseUrl("http://a/b?c%3Dd&e=f%26g").url->Spec(), "http://a/b?c%3Dd&e=f%26g");
}

TEST(CrawlUrlNormalize, Components) {
  const UrlParse p = ParseUrl("HTTPS://Docs.Example.ORG:8443/a/../b/./c?x=1&y=%7e#Top");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.url->scheme, "https");
  EXPECT_EQ(p.url->host, "docs.example.org");
  EXPECT_EQ(p.url->host_kind, HostKind::kName);
  EXPECT_EQ(p.url->port, std::optional<uint16_t>(8443));
  EXPECT_EQ(p.url->EffectivePort(), 8443);
  EXPECT_EQ(p.url->path, "/b/c");
  EXPECT_EQ(p.url->query, std::optional<std::string>("x=1&y=~"));
  EXPECT_EQ(p.url->fragment, std::optional<std::string>("Top"));
  const Url v4 = *ParseUrl("http://192.168.0.1/").url;
  EXPECT_EQ(v4.host_kind, HostKind::kIpv4);
  const Url v6 = *ParseUrl("http://[::FFFF:127.0.0.1]:8080/").url;
  EXPECT_EQ(v6.host_kind, HostKind::kIpv6);
  EXPECT_EQ(v6.host, "::ffff:127.0.0.1");
  EXPECT_EQ(v6.Spec(), "http://[::ffff:127.0.0.1]:8080/");
}

TEST(CrawlUrlCanonical, DropsFragmentAndTrackingKeepsOrder) {
  const Url u = *ParseUrl("https://example.com/p?b=2&utm_source=x&a=1&UTM_Medium=y&gclid=z&fbclid=q&mc_cid=1&mc_eid=2#s").url;
  EXPECT_EQ(CanonicalUrl(u), "https://example.com/p?b=2&a=1");
  const Url only = *ParseUrl("https://example.com/p?utm_campaign=spring").url;
  EXPECT_EQ(CanonicalUrl(only), "https://example.com/p");
  const Url empty = *ParseUrl("https://example.com/p?").url;
  EXPECT_EQ(CanonicalUrl(empty), "https://example.com/p?");
  CanonicalOptions opts;
  opts.extra_tracking_parameters = {"ref", "_hsenc"};
  const Url more = *ParseUrl("https://example.com/p?ref=hn&q=select&_HSENC=1&utm=keep").url;
  EXPECT_EQ(CanonicalUrl(more, opts), "https://example.com/p?q=select&utm=keep");
  EXPECT_EQ(CanonicalUrl(more), "https://example.com/p?ref=hn&q=select&_HSENC=1&utm=keep");
  CanonicalOptions keep;
  keep.drop_fragment = false;
  keep.drop_tracking_parameters = false;
  EXPECT_EQ(CanonicalUrl(u, keep), u.Spec());
  // A parameter whose value merely contains "utm_" stays.
  EXPECT_EQ(CanonicalUrl(*ParseUrl("http://a/?q=utm_source").url), "http://a/?q=utm_source");
}

struct Hostile {
  std::string input;
  UrlErrorCode code;
};

TEST(CrawlUrlParse, HostileInputsAreRefusedWithANamedReason) {
  const std::vector<Hostile> cases = {
      {"", UrlErrorCode::kEmpty},
      {"http://a/" + std::string(kMaxUrlBytes, 'x'), UrlErrorCode::kTooLong},
      {"http://exa\tmple.com/", UrlErrorCode::kControlCharacter},
      {"http://example.com/\r\nHost: evil", UrlErrorCode::kControlCharacter},
      {std::string("http://example.com/\0", 20), UrlErrorCode::kControlCharacter},
      {"http://example.com/\x7f", UrlErrorCode::kControlCharacter},
      {" http://example.com/", UrlErrorCode::kBadScheme},
      {"http:\\\\example.com\\", UrlErrorCode::kBackslash},
      {"//example.com/", UrlErrorCode::kMissingScheme},
      {"example.com/a", UrlErrorCode::kMissingScheme},
      {"1http://x/", UrlErrorCode::kBadScheme},
      {"ht_tp://x/", UrlErrorCode::kBadScheme},
      {"ftp://example.com/", UrlErrorCode::kUnsupportedScheme},
      {"file:///etc/passwd", UrlErrorCode::kUnsupportedScheme},
      {"javascript:alert(1)", UrlErrorCode::kUnsupportedScheme},
      {"http:example.com", UrlErrorCode::kMissingHost},
      {"http:/example.com", UrlErrorCode::kMissingHost},
      {"http:///path", UrlErrorCode::kMissingHost},
      {"http://:80/", UrlErrorCode::kMissingHost},
      {"http://user:pass@example.com/", UrlErrorCode::kUserinfo},
      {"http://example.com@169.254.169.254/", UrlErrorCode::kUserinfo},
      {"http://@example.com/", UrlErrorCode::kUserinfo},
      {"http://exa mple.com/", UrlErrorCode::kBadHost},
      {"http://exa<mple.com/", UrlErrorCode::kBadHost},
      {"http://a..b/", UrlErrorCode::kBadHost},
      {"http://" + std::string(64, 'a') + ".com/", UrlErrorCode::kBadHost},
      {"http://a!b.com/", UrlErrorCode::kBadHost},
      {"http://ex%ample.com/", UrlErrorCode::kBadPercentEncoding},
      {"http://ex%00ample.com/", UrlErrorCode::kNulByte},
      {"http://xn--a.example/", UrlErrorCode::kBadIdn},
      {"http://127.1/", UrlErrorCode::kAmbiguousIpv4},
      {"http://0x7f.0.0.1/", UrlErrorCode::kAmbiguousIpv4},
      {"http://0177.0.0.1/", UrlErrorCode::kAmbiguousIpv4},
      {"http://2130706433/", UrlErrorCode::kAmbiguousIpv4},
      {"http://256.0.0.1/", UrlErrorCode::kAmbiguousIpv4},
      {"http://1.2.3.4.5/", UrlErrorCode::kAmbiguousIpv4},
      {"http://169.254.169.254.0x0/", UrlErrorCode::kAmbiguousIpv4},
      {"http://\xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x97.1/", UrlErrorCode::kAmbiguousIpv4},  // fullwidth "127.1"
      {"http://[::1/", UrlErrorCode::kBadIpv6},
      {"http://[]/", UrlErrorCode::kBadIpv6},
      {"http://[1:2:3:4:5:6:7:8:9]/", UrlErrorCode::kBadIpv6},
      {"http://[::1::2]/", UrlErrorCode::kBadIpv6},
      {"http://[fe80::1%25eth0]/", UrlErrorCode::kBadIpv6},
      {"http://[v1.fe]/", UrlErrorCode::kBadIpv6},
      {"http://[::1]x/", UrlErrorCode::kBadIpv6},
      {"http://[12345::]/", UrlErrorCode::kBadIpv6},
      {"http://example.com:65536/", UrlErrorCode::kBadPort},
      {"http://example.com:99999999999999999999/", UrlErrorCode::kBadPort},
      {"http://example.com:0/", UrlErrorCode::kBadPort},
      {"http://example.com:-1/", UrlErrorCode::kBadPort},
      {"http://example.com:8o/", UrlErrorCode::kBadPort},
      {"http://example.com:80:80/", UrlErrorCode::kBadHost},
      {"http://[::1]:http/", UrlErrorCode::kBadPort},
      {"http://example.com/%", UrlErrorCode::kBadPercentEncoding},
      {"http://example.com/%4", UrlErrorCode::kBadPercentEncoding},
      {"http://example.com/%zz", UrlErrorCode::kBadPercentEncoding},
      {"http://example.com/?q=%G0", UrlErrorCode::kBadPercentEncoding},
      {"http://example.com/#%", UrlErrorCode::kBadPercentEncoding},
      {"http://example.com/a%00b", UrlErrorCode::kNulByte},
  };
  for (const Hostile& c : cases) {
    const UrlParse p = ParseUrl(c.input);
    ASSERT_FALSE(p.ok()) << c.input.substr(0, 80) << " parsed as " << p.url->Spec();
    EXPECT_EQ(p.error.code, c.code) << c.input.substr(0, 80) << ": " << p.error.ToString();
    EXPECT_FALSE(p.error.detail.empty());
    EXPECT_LE(p.error.offset, c.input.size());
  }
}

TEST(CrawlUrlParse, AcceptedEdgeCases) {
  EXPECT_EQ(ParseUrl("http://127.0.0.1:8080/").url->Spec(), "http://127.0.0.1:8080/");
  EXPECT_EQ(ParseUrl("http://[::]/").url->host, "::");
  EXPECT_EQ(ParseUrl("http://[::ffff:169.254.169.254]/").url->host, "::ffff:169.254.169.254");
  EXPECT_EQ(ParseUrl("http://under_score.example/").url->host, "under_score.example");
  EXPECT_EQ(ParseUrl("http://a/?x=[1]&y={2}|\"").url->query, std::optional<std::string>("x=%5B1%5D&y=%7B2%7D%7C%22"));
  EXPECT_EQ(ParseUrl("http://a/#frag#ment").url->fragment, std::optional<std::string>("frag%23ment"));
  EXPECT_EQ(ParseUrl("http://a/b?c/../d").url->Spec(), "http://a/b?c/../d");  // the query keeps dots
  EXPECT_EQ(ParseUrl("http://a/%2e%2e/%2e%2e/x").url->path, "/x");
  EXPECT_EQ(ParseUrl("http://1.2.3.4.example/").url->host_kind, HostKind::kName);
  EXPECT_EQ(ParseUrl(std::string("http://a/") + std::string(kMaxUrlBytes - 9, 'x')).ok(), true);
}

TEST(CrawlUrlSite, SameSiteIgnoresOneLeadingWww) {
  auto u = [](const char* s) { return *ParseUrl(s).url; };
  EXPECT_TRUE(SameSite(u("https://www.example.org/a"), u("http://example.org:8080/b")));
  EXPECT_TRUE(SameSite(u("https://WWW.Example.org/"), u("https://www.example.org/")));
  EXPECT_FALSE(SameSite(u("https://docs.example.org/"), u("https://example.org/")));
  EXPECT_FALSE(SameSite(u("https://example.org/"), u("https://example.org.evil.com/")));
  EXPECT_FALSE(SameSite(u("https://www.www.example.org/"), u("https://example.org/")));
  EXPECT_TRUE(SameSite(u("http://[::1]/"), u("http://[0::1]/")));
}

TEST(CrawlUrlVersion, AliasSegmentsAreReported) {
  auto aliases = [](const char* s) { return FindVersionAliases(*ParseUrl(s).url); };
  EXPECT_EQ(aliases("https://www.postgresql.org/docs/current/sql-select.html"),
            (std::vector<VersionAlias>{{1, "current"}}));
  EXPECT_EQ(aliases("https://docs.python.org/3/"), std::vector<VersionAlias>{});
  EXPECT_EQ(aliases("https://x.example/en/Latest/api/stable"), (std::vector<VersionAlias>{{1, "latest"}, {3, "stable"}}));
  EXPECT_EQ(aliases("https://x.example/en/%6Catest/"), (std::vector<VersionAlias>{{1, "latest"}}));
  EXPECT_EQ(aliases("https://x.example/currently/latest.html?v=stable"), std::vector<VersionAlias>{});
}

}  // namespace
}  // namespace attest
