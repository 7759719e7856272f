// Sitemaps (src/crawl/sitemap.h): the protocol's examples, namespaced and not, index files, text
// sitemaps, gzip, the 50,000-entry and 50 MB limits, a gzip bomb, malformed XML, and the parser's
// guards (external entities never loaded, parameter entities never parsed, entity expansion bounded).
#include "crawl/sitemap.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "crawl/seed_date.h"
#include "crawl/seed_kind.h"

namespace attest {
namespace {

std::string Gzip(const std::string& in, int level = Z_DEFAULT_COMPRESSION) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

bool HasNote(const SitemapResult& r, std::string_view part) {
  for (const SeedNote& n : r.ignored.notes) {
    if (n.reason.find(part) != std::string::npos) return true;
  }
  return false;
}

// The protocol page's urlset example, with its entity-escaped URL.
constexpr std::string_view kSpecUrlset = R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
   <url>
      <loc>http://www.example.com/</loc>
      <lastmod>2005-01-01</lastmod>
      <changefreq>monthly</changefreq>
      <priority>0.8</priority>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc>
      <changefreq>weekly</changefreq>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=73&amp;desc=vacation_new_zealand</loc>
      <lastmod>2004-12-23</lastmod>
      <changefreq>weekly</changefreq>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=74&amp;desc=vacation_newfoundland</loc>
      <lastmod>2004-12-23T18:00:15+00:00</lastmod>
      <priority>0.3</priority>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=83&amp;desc=vacation_usa</loc>
      <lastmod>2004-11-23</lastmod>
   </url>
</urlset>
)";

TEST(CrawlSitemap, ProtocolExampleUrlset) {
  const SitemapResult r = ParseSitemap(kSpecUrlset, "http://www.example.com/sitemap.xml");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.format, SitemapFormat::kUrlset);
  EXPECT_FALSE(r.gzip);
  ASSERT_EQ(r.urls.size(), 5u);
  EXPECT_EQ(r.urls[0].loc, "http://www.example.com/");
  ASSERT_TRUE(r.urls[0].lastmod);
  EXPECT_EQ(r.urls[0].lastmod->Day(), "2005-01-01");
  EXPECT_FALSE(r.urls[0].lastmod->unix_seconds);
  EXPECT_EQ(r.urls[0].changefreq, ChangeFreq::kMonthly);
  EXPECT_DOUBLE_EQ(r.urls[0].priority.value_or(-1), 0.8);
  EXPECT_EQ(r.urls[1].loc, "http://www.example.com/catalog?item=12&desc=vacation_hawaii");
  EXPECT_FALSE(r.urls[1].priority);
  EXPECT_EQ(r.urls[3].lastmod->Day(), "2004-12-23");
  EXPECT_EQ(r.urls[3].lastmod->unix_seconds.value_or(0), 1103824815);
  EXPECT_TRUE(r.ignored.notes.empty());
}

TEST(CrawlSitemap, WithoutNamespaceAndWithExtensions) {
  const std::string doc = R"(<urlset><url><loc> https://a.example/x </loc><lastmod>2024-02-29T10:00Z</lastmod></url></urlset>)";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_FALSE(r.error);
  ASSERT_EQ(r.urls.size(), 1u);
  EXPECT_EQ(r.urls[0].loc, "https://a.example/x");  // trimmed
  EXPECT_EQ(r.urls[0].lastmod->precision, DatePrecision::kMinute);

  // image: and news: extensions: their own <loc>-like children are never taken as the page's.
  const std::string ext = R"(<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url>
    <loc>https://a.example/page</loc>
    <image:image><image:loc>https://a.example/pic.jpg</image:loc></image:image>
    <news:news><news:publication_date>2008-12-23</news:publication_date><news:title>T</news:title></news:news>
  </url>
</urlset>)";
  const SitemapResult e = ParseSitemap(ext, "");
  ASSERT_FALSE(e.error);
  ASSERT_EQ(e.urls.size(), 1u);
  EXPECT_EQ(e.urls[0].loc, "https://a.example/page");
  EXPECT_FALSE(e.urls[0].lastmod);
}

TEST(CrawlSitemap, IndexFile) {
  const std::string doc = R"(<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
   <sitemap>
      <loc>http://www.example.com/sitemap1.xml.gz</loc>
      <lastmod>2004-10-01T18:23:17+00:00</lastmod>
   </sitemap>
   <sitemap>
      <loc>http://www.example.com/sitemap2.xml.gz</loc>
      <lastmod>2005-01-01</lastmod>
   </sitemap>
</sitemapindex>)";
  const SitemapResult r = ParseSitemap(doc, "http://www.example.com/sitemap_index.xml");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.format, SitemapFormat::kIndex);
  EXPECT_TRUE(r.urls.empty());
  ASSERT_EQ(r.sitemaps.size(), 2u);
  EXPECT_EQ(r.sitemaps[0].loc, "http://www.example.com/sitemap1.xml.gz");
  EXPECT_EQ(r.sitemaps[0].lastmod->unix_seconds.value_or(0), 1096654997);
  EXPECT_EQ(r.sitemaps[1].lastmod->Day(), "2005-01-01");
}

TEST(CrawlSitemap, TextSitemap) {
  const std::string doc = "\xEF\xBB\xBFhttp://www.example.com/a\r\n\nhttps://www.example.com/b?x=1\nnot a url\n  http://www.example.com/c  ";
  const SitemapResult r = ParseSitemap(doc, "http://www.example.com/sitemap.txt");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.format, SitemapFormat::kText);
  ASSERT_EQ(r.urls.size(), 3u);
  EXPECT_EQ(r.urls[0].loc, "http://www.example.com/a");
  EXPECT_EQ(r.urls[1].loc, "https://www.example.com/b?x=1");
  EXPECT_EQ(r.urls[2].loc, "http://www.example.com/c");
  ASSERT_EQ(r.ignored.notes.size(), 1u);
  EXPECT_NE(r.ignored.notes[0].reason.find("not an absolute"), std::string::npos);
  EXPECT_EQ(r.ignored.notes[0].position.line, 4u);
}

TEST(CrawlSitemap, InvalidFieldsAreDroppedWithNotes) {
  const std::string doc = R"(<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://e.example/1</loc><lastmod>yesterday</lastmod><changefreq>sometimes</changefreq><priority>1.5</priority></url>
<url><lastmod>2020-01-01</lastmod></url>
<url><loc>http://e.example/2</loc><changefreq> Daily </changefreq><priority>0</priority><lastmod>2020-13-01</lastmod></url>
</urlset>)";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_FALSE(r.error);
  ASSERT_EQ(r.urls.size(), 2u);
  EXPECT_FALSE(r.urls[0].lastmod);
  EXPECT_EQ(r.urls[0].changefreq, ChangeFreq::kUnspecified);
  EXPECT_FALSE(r.urls[0].priority);
  EXPECT_EQ(r.urls[1].changefreq, ChangeFreq::kDaily);
  EXPECT_DOUBLE_EQ(r.urls[1].priority.value_or(-1), 0.0);
  EXPECT_FALSE(r.urls[1].lastmod);  // month 13
  EXPECT_TRUE(HasNote(r, "'yesterday' is not a W3C Datetime"));
  EXPECT_TRUE(HasNote(r, "'sometimes'"));
  EXPECT_TRUE(HasNote(r, "'1.5'"));
  EXPECT_TRUE(HasNote(r, "without <loc>"));
  EXPECT_EQ(r.ignored.notes[0].position.line, 2u);
}

TEST(CrawlSitemap, CdataAndEntities) {
  const std::string doc = R"(<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY host "docs.example.org"> ]>
<urlset><url><loc><![CDATA[https://docs.example.org/a?x=1&y=2]]></loc></url>
<url><loc>https://&host;/b?q=&#x263A;&amp;r=&lt;</loc></url></urlset>)";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.urls.size(), 2u);
  EXPECT_EQ(r.urls[0].loc, "https://docs.example.org/a?x=1&y=2");
  EXPECT_EQ(r.urls[1].loc, "https://docs.example.org/b?q=\xE2\x98\xBA&r=<");
}

TEST(CrawlSitemap, Utf16) {
  const std::string utf8 = "<urlset><url><loc>https://u.example/\xC3\xA9</loc></url></urlset>";
  std::string utf16 = "\xFF\xFE";  // little-endian with its byte order mark
  for (const char c : std::string("<urlset><url><loc>https://u.example/")) utf16 += std::string{c, '\0'};
  utf16 += std::string{'\xE9', '\0'};
  for (const char c : std::string("</loc></url></urlset>")) utf16 += std::string{c, '\0'};
  const SitemapResult r = ParseSitemap(utf16, "");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.urls.size(), 1u);
  EXPECT_EQ(r.urls[0].loc, ParseSitemap(utf8, "").urls.at(0).loc);
  EXPECT_EQ(DetectSeedKind(utf16, ""), SeedKind::kUrlset);
}

TEST(CrawlSitemap, Gzip) {
  const std::string gz = Gzip(std::string(kSpecUrlset));
  const SitemapResult r = ParseSitemap(gz, "http://www.example.com/sitemap.xml.gz");
  ASSERT_FALSE(r.error);
  EXPECT_TRUE(r.gzip);
  EXPECT_EQ(r.urls.size(), 5u);
  EXPECT_EQ(r.decoded_bytes, kSpecUrlset.size());
  EXPECT_TRUE(r.ignored.notes.empty());

  // By magic, not by name; and a .gz name without the magic is read as is, with a note.
  EXPECT_EQ(ParseSitemap(gz, "http://x.example/sitemap").urls.size(), 5u);
  const SitemapResult plain = ParseSitemap(kSpecUrlset, "http://x.example/sitemap.xml.gz?v=2");
  EXPECT_EQ(plain.urls.size(), 5u);
  EXPECT_TRUE(HasNote(plain, "not gzip-compressed"));

  // Two concatenated members are one stream.
  const std::string half = "http://e.example/1\n";
  const SitemapResult two = ParseSitemap(Gzip(half) + Gzip("http://e.example/2\n"), "");
  EXPECT_EQ(two.urls.size(), 2u);

  // A truncated gzip file: an error, and the URLs before the cut.
  std::string cut = Gzip(std::string(kSpecUrlset), 0);
  cut.resize(cut.size() / 2);
  const SitemapResult c = ParseSitemap(cut, "");
  ASSERT_TRUE(c.error);
  EXPECT_NE(c.error->message.find("gzip"), std::string::npos);
  EXPECT_GE(c.urls.size(), 1u);
}

std::string GeneratedUrlset(size_t n) {
  std::string doc = "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (size_t i = 0; i < n; ++i) doc += "<url><loc>https://big.example/p/" + std::to_string(i) + "</loc></url>\n";
  return doc + "</urlset>\n";
}

TEST(CrawlSitemap, FiftyThousandEntryLimit) {
  const SitemapResult exact = ParseSitemap(GeneratedUrlset(50000), "");
  ASSERT_FALSE(exact.error);
  EXPECT_EQ(exact.urls.size(), 50000u);
  EXPECT_EQ(exact.entries_over_limit, 0u);

  const SitemapResult over = ParseSitemap(GeneratedUrlset(50007), "");
  ASSERT_FALSE(over.error);
  EXPECT_EQ(over.urls.size(), 50000u);
  EXPECT_EQ(over.urls.back().loc, "https://big.example/p/49999");
  EXPECT_EQ(over.entries_over_limit, 7u);
  EXPECT_TRUE(HasNote(over, "beyond the limit of 50000"));

  std::string text;
  for (int i = 0; i < 50002; ++i) text += "https://t.example/" + std::to_string(i) + "\n";
  const SitemapResult t = ParseSitemap(text, "");
  EXPECT_EQ(t.urls.size(), 50000u);
  EXPECT_EQ(t.entries_over_limit, 2u);
}

TEST(CrawlSitemap, FiftyMegabyteLimit) {
  // A urlset whose padding (a long comment) pushes it beyond 50 MB: the URLs before the cap are
  // read, the rest is not, and no XML error is reported for the cut.
  std::string doc = "<urlset><url><loc>https://e.example/first</loc></url><!--";
  doc.append(50ull * 1024 * 1024, 'x');
  doc += "--><url><loc>https://e.example/late</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(doc, "");
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.truncated_at_size);
  EXPECT_EQ(r.decoded_bytes, 50ull * 1024 * 1024);
  ASSERT_EQ(r.urls.size(), 1u);
  EXPECT_TRUE(HasNote(r, "beyond 52428800 uncompressed bytes"));

  // Exactly at the cap is not truncated.
  SitemapLimits small;
  small.max_bytes = 64;
  const std::string fits = "<urlset><url><loc>https://e.example/a</loc></url></urlset>";
  EXPECT_FALSE(ParseSitemap(fits, "", small).truncated_at_size);
}

TEST(CrawlSitemap, GzipBombStopsAtTheDecodedCap) {
  // 1 GiB of newlines after one URL, as 16 concatenated gzip members of 64 MiB each: about 1 MB
  // on the wire; only the first 50 MB are ever inflated.
  std::string member_body(size_t{64} << 20, '\n');
  const std::string member = Gzip(member_body, 9);
  member_body.clear();
  member_body.shrink_to_fit();
  std::string bomb = Gzip("http://bomb.example/a\n");
  for (int i = 0; i < 16; ++i) bomb += member;
  EXPECT_LT(bomb.size(), 2u * 1024 * 1024);
  const SitemapResult r = ParseSitemap(bomb, "http://bomb.example/sitemap.txt.gz");
  EXPECT_TRUE(r.gzip);
  EXPECT_TRUE(r.truncated_at_size);
  EXPECT_EQ(r.decoded_bytes, 50ull * 1024 * 1024);
  EXPECT_EQ(r.urls.size(), 1u);
  EXPECT_FALSE(r.error);
}

TEST(CrawlSitemap, MalformedXmlReportsWhereAndKeepsWhatCameBefore) {
  const std::string doc = "<urlset>\n<url><loc>https://e.example/1</loc></url>\n<url><loc>https://e.example/2</loc></url>\n"
                          "<url><loc>https://e.example/3</lo></url>\n</urlset>";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("malformed XML: mismatched tag"), std::string::npos) << r.error->message;
  EXPECT_EQ(r.error->position.line, 4u);
  EXPECT_GT(r.error->position.byte_offset, 80u);
  EXPECT_EQ(r.urls.size(), 2u);

  // Leading whitespace before the declaration is tolerated; positions still count from byte 0.
  const SitemapResult ws = ParseSitemap("\n\n  <?xml version=\"1.0\"?><urlset><url><loc>a</loc></url><oops></urlset>", "");
  ASSERT_TRUE(ws.error);
  EXPECT_EQ(ws.error->position.line, 3u);
  EXPECT_EQ(ws.urls.size(), 1u);

  EXPECT_TRUE(ParseSitemap("", "").error);
  EXPECT_TRUE(ParseSitemap("<urlset><url><loc>x</loc>", "").error);  // unclosed at end of input
  const SitemapResult html = ParseSitemap("<html><body>Not found</body></html>", "");
  ASSERT_TRUE(html.error);
  EXPECT_NE(html.error->message.find("not a sitemap"), std::string::npos);
}

TEST(CrawlSitemap, ExternalEntitiesAreNeverLoaded) {
  // A file:// external entity (classic XXE): the reference is dropped, never read.
  const std::string xxe = R"(<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<urlset><url><loc>https://e.example/&xxe;</loc></url></urlset>)";
  const SitemapResult r = ParseSitemap(xxe, "");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.urls.size(), 1u);
  EXPECT_EQ(r.urls[0].loc, "https://e.example/");
  EXPECT_EQ(r.urls[0].loc.find("root"), std::string::npos);
  EXPECT_TRUE(HasNote(r, "external entity 'file:///etc/passwd' not loaded"));

  // Parameter entities (an external DTD pulled in through %x;) are never parsed.
  const std::string param = R"(<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY % remote SYSTEM "http://127.0.0.1:1/evil.dtd"> %remote; ]>
<urlset><url><loc>https://e.example/ok</loc></url></urlset>)";
  const SitemapResult p = ParseSitemap(param, "");
  EXPECT_EQ(p.urls.size(), 1u);
  EXPECT_FALSE(HasNote(p, "evil.dtd")) << "a parameter entity reached the external entity handler";

  // An external DTD subset is not fetched either.
  const SitemapResult dtd = ParseSitemap(
      R"(<!DOCTYPE urlset SYSTEM "file:///etc/passwd"><urlset><url><loc>https://e.example/d</loc></url></urlset>)", "");
  EXPECT_EQ(dtd.urls.size(), 1u);
}

TEST(CrawlSitemap, BillionLaughsIsRefused) {
  std::string doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n <!ENTITY lol0 \"lollollollollollollollollollol\">\n";
  for (int i = 1; i <= 9; ++i) {
    doc += " <!ENTITY lol" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) doc += "&lol" + std::to_string(i - 1) + ";";
    doc += "\">\n";
  }
  doc += "]>\n<urlset><url><loc>https://e.example/&lol9;</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("amplification"), std::string::npos) << r.error->message;
  EXPECT_TRUE(r.urls.empty());
}

TEST(CrawlSitemap, DeepNestingIsRefused) {
  std::string doc = "<urlset>";
  for (int i = 0; i < 1000; ++i) doc += "<a>";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("nested deeper"), std::string::npos);
}

TEST(CrawlSitemap, OverlongLocIsSkipped) {
  const std::string doc = "<urlset><url><loc>https://e.example/" + std::string(3000, 'a') +
                          "</loc></url><url><loc>https://e.example/ok</loc></url></urlset>";
  const SitemapResult r = ParseSitemap(doc, "");
  ASSERT_EQ(r.urls.size(), 1u);
  EXPECT_EQ(r.urls[0].loc, "https://e.example/ok");
  EXPECT_TRUE(HasNote(r, "longer than 2048"));
}

TEST(CrawlSeedKind, DetectsEachKind) {
  EXPECT_EQ(DetectSeedKind(kSpecUrlset, ""), SeedKind::kUrlset);
  EXPECT_EQ(DetectSeedKind(Gzip(std::string(kSpecUrlset)), "application/gzip"), SeedKind::kUrlset);
  EXPECT_EQ(DetectSeedKind("<?xml version='1.0'?><!-- c --><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>", ""),
            SeedKind::kSitemapIndex);
  EXPECT_EQ(DetectSeedKind("https://e.example/a\nhttps://e.example/b\n", ""), SeedKind::kTextSitemap);
  EXPECT_EQ(DetectSeedKind("<rss version=\"2.0\"><channel>", "text/xml"), SeedKind::kRss);
  EXPECT_EQ(DetectSeedKind("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">", ""), SeedKind::kRss);
  EXPECT_EQ(DetectSeedKind("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>", ""), SeedKind::kAtom);
  EXPECT_EQ(DetectSeedKind("<!doctype html><html><head><meta charset=utf-8><title>x</title>", ""), SeedKind::kHtml);
  EXPECT_EQ(DetectSeedKind("<!DOCTYPE html>\n<html lang=\"en\"><body><p>hi", "text/html"), SeedKind::kHtml);
  EXPECT_EQ(DetectSeedKind("hello world", "text/html; charset=utf-8"), SeedKind::kHtml);
  EXPECT_EQ(DetectSeedKind("", "application/atom+xml"), SeedKind::kAtom);
  EXPECT_EQ(DetectSeedKind("\x01\x02", ""), SeedKind::kUnknown);
  EXPECT_EQ(SeedKindName(SeedKind::kSitemapIndex), "sitemap index");
}

TEST(CrawlSeedDate, W3cDatetimeForms) {
  EXPECT_EQ(ParseW3cDatetime("1997")->precision, DatePrecision::kYear);
  EXPECT_EQ(ParseW3cDatetime("1997")->Day(), "1997-01-01");
  EXPECT_EQ(ParseW3cDatetime("1997-07")->Day(), "1997-07-01");
  EXPECT_EQ(ParseW3cDatetime("1997-07-16")->precision, DatePrecision::kDay);
  const auto minute = ParseW3cDatetime("1997-07-16T19:20+01:00");
  ASSERT_TRUE(minute);
  EXPECT_EQ(minute->unix_seconds.value_or(0), 869077200);  // 18:20Z
  EXPECT_EQ(ParseW3cDatetime("1997-07-16T19:20:30+01:00")->unix_seconds.value_or(0), 869077230);
  const auto frac = ParseW3cDatetime(" 1997-07-16T19:20:30.45Z ");
  ASSERT_TRUE(frac);
  EXPECT_EQ(frac->unix_seconds.value_or(0), 869080830);
  EXPECT_EQ(frac->Day(), "1997-07-16");
  // The calendar date stays the one written, even when the instant is on another UTC day.
  const auto late = ParseW3cDatetime("2024-01-01T23:30:00-05:00");
  EXPECT_EQ(late->Day(), "2024-01-01");
  EXPECT_EQ(late->unix_seconds.value_or(0), 1704169800);
  for (const char* bad : {"", "97", "1997-7-16", "1997-07-16T19:20", "1997-07-16T25:00Z", "1997-02-30",
                          "1997-07-16T19:20:30+0100", "1997-07-16 19:20:30Z", "2024-01-01Tx"}) {
    EXPECT_FALSE(ParseW3cDatetime(bad)) << bad;
  }
}

TEST(CrawlSeedDate, Rfc3339AndRfc822) {
  EXPECT_EQ(ParseRfc3339("2003-12-13T18:30:02Z")->unix_seconds.value_or(0), 1071340202);
  EXPECT_EQ(ParseRfc3339("2003-12-13t18:30:02.25z")->unix_seconds.value_or(0), 1071340202);
  EXPECT_EQ(ParseRfc3339("2003-12-13 18:30:02-08:00")->unix_seconds.value_or(0), 1071340202 + 8 * 3600);
  EXPECT_FALSE(ParseRfc3339("2003-12"));
  EXPECT_FALSE(ParseRfc3339("2003-12-13T18:30Z"));  // RFC 3339 requires seconds

  EXPECT_EQ(ParseRfc822Datetime("Sat, 07 Sep 2002 09:42:31 GMT")->unix_seconds.value_or(0), 1031391751);
  EXPECT_EQ(ParseRfc822Datetime("Sat, 07 Sep 2002 00:00:01 GMT")->Day(), "2002-09-07");
  EXPECT_EQ(ParseRfc822Datetime("Mon, 26 Mar 2007 18:38:58 +0000")->unix_seconds.value_or(0), 1174934338);
  EXPECT_EQ(ParseRfc822Datetime("Tue, 10 Jun 2003 04:00:00 EDT")->unix_seconds.value_or(0), 1055232000);
  EXPECT_EQ(ParseRfc822Datetime("10 Jun 03 04:00 PST")->unix_seconds.value_or(0), 1055246400);
  EXPECT_EQ(ParseRfc822Datetime("Thursday, 1 January 1970 00:00:00 +0530")->unix_seconds.value_or(1), -19800);
  EXPECT_EQ(ParseRfc822Datetime("1 Jan 99 00:00 Z")->Day(), "1999-01-01");
  EXPECT_EQ(ParseRfc822Datetime("Wed, 02 Oct 2002")->precision, DatePrecision::kDay);
  for (const char* bad : {"", "Funday, 01 Jan 2020 00:00 GMT", "32 Jan 2020 00:00 GMT", "01 Foo 2020 00:00 GMT",
                          "01 Jan 2020 24:00 GMT", "01 Jan 2020 10:00 XYZ", "01 Jan 202 10:00 GMT"}) {
    EXPECT_FALSE(ParseRfc822Datetime(bad)) << bad;
  }
}

}  // namespace
}  // namespace attest
