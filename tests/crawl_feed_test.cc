// RSS 2.0 and Atom 1.0 feeds (src/crawl/feed.h): realistic shapes of both, RSS 1.0, links from
// guid and xml:base, the date forms, CDATA and entities, limits, malformed XML, and the parser's
// guards; and RFC 3986 reference resolution (src/crawl/uri_reference.h), which xml:base uses.
#include "crawl/feed.h"

#include <gtest/gtest.h>

#include <string>

#include "crawl/uri_reference.h"

namespace attest {
namespace {

bool HasNote(const FeedResult& r, std::string_view part) {
  for (const SeedNote& n : r.ignored.notes) {
    if (n.reason.find(part) != std::string::npos) return true;
  }
  return false;
}

// A blog-engine style RSS 2.0 feed: namespaces for content, dc, atom self link; CDATA descriptions.
constexpr std::string_view kRss = R"(<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Example Engineering &amp; Ops</title>
    <link>https://blog.example.com/</link>
    <atom:link href="https://blog.example.com/feed.xml" rel="self" type="application/rss+xml"/>
    <description>Release notes</description>
    <lastBuildDate>Mon, 06 May 2024 09:15:00 +0000</lastBuildDate>
    <item>
      <title>Version 4.2 released</title>
      <link>https://blog.example.com/2024/05/v4-2</link>
      <guid isPermaLink="false">post-4812</guid>
      <pubDate>Mon, 06 May 2024 09:00:00 +0000</pubDate>
      <dc:creator>Ops Team</dc:creator>
      <description><![CDATA[<p>What's <b>new</b> in 4.2 &amp; more</p>]]></description>
      <content:encoded><![CDATA[<p>Long text <title>not a title</title></p>]]></content:encoded>
    </item>
    <item>
      <title><![CDATA[Upgrading from 3.x: <notes>]]></title>
      <guid>https://blog.example.com/2024/04/upgrading</guid>
      <pubDate>Tue, 30 Apr 2024 17:30:00 EDT</pubDate>
    </item>
    <item>
      <title>  Multi
        line   title  </title>
      <link>https://blog.example.com/2024/04/multi</link>
      <dc:date>2024-04-01T08:00:00Z</dc:date>
    </item>
    <item>
      <description>No title, no link</description>
      <pubDate>sometime last week</pubDate>
    </item>
  </channel>
</rss>
)";

TEST(CrawlFeed, Rss2RealWorldShape) {
  const FeedResult r = ParseFeed(kRss, "https://blog.example.com/feed.xml");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.format, FeedFormat::kRss);
  EXPECT_EQ(r.title, "Example Engineering & Ops");
  EXPECT_EQ(r.link, "https://blog.example.com/");
  ASSERT_TRUE(r.updated);
  EXPECT_EQ(r.updated->Day(), "2024-05-06");
  ASSERT_EQ(r.entries.size(), 4u);

  EXPECT_EQ(r.entries[0].title, "Version 4.2 released");
  EXPECT_EQ(r.entries[0].link, "https://blog.example.com/2024/05/v4-2");
  EXPECT_EQ(r.entries[0].id, "post-4812");
  ASSERT_TRUE(r.entries[0].published);
  EXPECT_EQ(r.entries[0].published->unix_seconds.value_or(0), 1714986000);

  // No <link>: the permalink guid is the link; CDATA title kept verbatim.
  EXPECT_EQ(r.entries[1].link, "https://blog.example.com/2024/04/upgrading");
  EXPECT_EQ(r.entries[1].title, "Upgrading from 3.x: <notes>");
  EXPECT_EQ(r.entries[1].published->unix_seconds.value_or(0), 1714512600);  // 21:30Z
  EXPECT_EQ(r.entries[1].published->Day(), "2024-04-30");

  EXPECT_EQ(r.entries[2].title, "Multi line title");
  ASSERT_TRUE(r.entries[2].published);  // from dc:date
  EXPECT_EQ(r.entries[2].published->Day(), "2024-04-01");

  EXPECT_TRUE(r.entries[3].link.empty());
  EXPECT_FALSE(r.entries[3].published);
  EXPECT_TRUE(HasNote(r, "'sometime last week' not understood"));
  EXPECT_TRUE(HasNote(r, "without a link"));
}

TEST(CrawlFeed, RssNonPermalinkGuidIsNotALink) {
  const FeedResult r = ParseFeed(
      R"(<rss version="2.0"><channel><title>t</title><item><title>a</title><guid isPermaLink="false">https://x.example/a</guid><pubDate>2024-03-01T10:00:00Z</pubDate></item></channel></rss>)",
      "");
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_TRUE(r.entries[0].link.empty());
  EXPECT_EQ(r.entries[0].id, "https://x.example/a");
  ASSERT_TRUE(r.entries[0].published);  // an ISO 8601 pubDate, as some generators write
  EXPECT_EQ(r.entries[0].published->Day(), "2024-03-01");
}

// An Atom feed in the shape of RFC 4287 §1.1's extensive example, with xml:base on the feed and on
// one entry, several links per entry, and an xhtml title.
constexpr std::string_view kAtom = R"(<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://docs.example.org/news/">
  <title type="text">dive into docs</title>
  <subtitle type="html">A &lt;em&gt;lot&lt;/em&gt; of effort went into making this effortless</subtitle>
  <updated>2005-07-31T12:29:29Z</updated>
  <id>tag:example.org,2003:3</id>
  <link rel="self" type="application/atom+xml" href="https://docs.example.org/feed.atom"/>
  <link rel="alternate" type="text/html" hreflang="en" href="/"/>
  <entry>
    <title>Atom draft-07 snapshot</title>
    <link rel="enclosure" type="audio/mpeg" length="1337" href="http://example.org/audio/ph34r_my_podcast.mp3"/>
    <link rel="alternate" type="application/pdf" href="2005/04/02/atom.pdf"/>
    <link rel="alternate" type="text/html" href="2005/04/02/atom"/>
    <id>tag:example.org,2003:3.2397</id>
    <updated>2005-07-31T12:29:29Z</updated>
    <published>2003-12-13T08:29:29-04:00</published>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p><i>[Update: The Atom draft is finished.]</i></p></div></content>
  </entry>
  <entry xml:base="https://other.example.net/blog/2024/">
    <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Less: <em>&lt;</em> &amp; more</div></title>
    <link href="../2023/./post?id=1#top"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <updated>2024-02-29T23:59:60+00:00</updated>
  </entry>
  <entry>
    <title>Only related links</title>
    <link rel="related" href="https://elsewhere.example/"/>
    <link rel="http://www.iana.org/assignments/relation/alternate" xml:base="https://b.example/x/" href="y"/>
    <id>e3</id>
    <updated>not a date</updated>
  </entry>
</feed>
)";

TEST(CrawlFeed, AtomWithXmlBase) {
  const FeedResult r = ParseFeed(kAtom, "https://docs.example.org/feed.atom");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.format, FeedFormat::kAtom);
  EXPECT_EQ(r.title, "dive into docs");
  EXPECT_EQ(r.link, "https://docs.example.org/");
  EXPECT_EQ(r.updated->unix_seconds.value_or(0), 1122812969);
  ASSERT_EQ(r.entries.size(), 3u);

  // The HTML alternate wins over the PDF one; relative to the feed's xml:base.
  EXPECT_EQ(r.entries[0].link, "https://docs.example.org/news/2005/04/02/atom");
  EXPECT_EQ(r.entries[0].title, "Atom draft-07 snapshot");
  EXPECT_EQ(r.entries[0].id, "tag:example.org,2003:3.2397");
  EXPECT_EQ(r.entries[0].updated->unix_seconds.value_or(0), 1122812969);
  EXPECT_EQ(r.entries[0].published->Day(), "2003-12-13");
  EXPECT_EQ(r.entries[0].published->unix_seconds.value_or(0), 1071318569);

  // No rel is "alternate"; the entry's own xml:base; dot segments removed; a leap second.
  EXPECT_EQ(r.entries[1].link, "https://other.example.net/blog/2023/post?id=1#top");
  EXPECT_EQ(r.entries[1].title, "Less: < & more");
  ASSERT_TRUE(r.entries[1].updated);
  EXPECT_EQ(r.entries[1].updated->Day(), "2024-02-29");

  // The IANA URI form of "alternate", with xml:base on the link element itself.
  EXPECT_EQ(r.entries[2].link, "https://b.example/x/y");
  EXPECT_FALSE(r.entries[2].updated);
  EXPECT_TRUE(HasNote(r, "'not a date' not understood"));
}

TEST(CrawlFeed, AtomRelativeLinkWithoutBase) {
  const FeedResult r = ParseFeed(
      R"(<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title><link href="/a/b"/><updated>2024-01-01T00:00:00Z</updated></entry></feed>)",
      "");
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].link, "/a/b");
  EXPECT_TRUE(HasNote(r, "no absolute base"));
  // With the document's URL as base.
  const FeedResult b = ParseFeed(
      R"(<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="b/c"/></entry></feed>)",
      "https://s.example/feeds/all.atom");
  EXPECT_EQ(b.entries[0].link, "https://s.example/feeds/b/c");
}

TEST(CrawlFeed, Rss1Rdf) {
  const std::string doc = R"(<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
         xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://r.example/"><title>R</title><link>https://r.example/</link>
    <items><rdf:Seq><rdf:li resource="https://r.example/1"/></rdf:Seq></items></channel>
  <item rdf:about="https://r.example/1"><title>One</title><link>https://r.example/1</link><dc:date>2002-09-01T12:00:00+02:00</dc:date></item>
</rdf:RDF>)";
  const FeedResult r = ParseFeed(doc, "");
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.title, "R");
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].link, "https://r.example/1");
  EXPECT_EQ(r.entries[0].published->unix_seconds.value_or(0), 1030874400);
}

TEST(CrawlFeed, NotAFeed) {
  const FeedResult s = ParseFeed("<urlset><url><loc>a</loc></url></urlset>", "");
  ASSERT_TRUE(s.error);
  EXPECT_NE(s.error->message.find("(a sitemap)"), std::string::npos);
  EXPECT_TRUE(ParseFeed("hello", "").error);
  EXPECT_TRUE(ParseFeed("", "").error);
  // An Atom root in the wrong namespace is not Atom 1.0.
  EXPECT_TRUE(ParseFeed("<feed><entry/></feed>", "").error);
}

TEST(CrawlFeed, MalformedKeepsEarlierEntries) {
  const std::string doc = "<rss version=\"2.0\"><channel>\n<item><link>https://m.example/1</link></item>\n"
                          "<item><link>https://m.example/2</link></item>\n<item><link>https://m.example/3</item>\n";
  const FeedResult r = ParseFeed(doc, "");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("mismatched tag"), std::string::npos) << r.error->message;
  EXPECT_EQ(r.error->position.line, 4u);
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[1].link, "https://m.example/2");
}

TEST(CrawlFeed, EntryLimitAndGzipCap) {
  std::string doc = "<rss version=\"2.0\"><channel>";
  for (int i = 0; i < 30; ++i) doc += "<item><link>https://l.example/" + std::to_string(i) + "</link></item>";
  doc += "</channel></rss>";
  FeedLimits limits;
  limits.max_entries = 25;
  const FeedResult r = ParseFeed(doc, "", limits);
  EXPECT_EQ(r.entries.size(), 25u);
  EXPECT_EQ(r.entries_over_limit, 5u);
  limits.max_bytes = 100;
  const FeedResult cut = ParseFeed(doc, "", limits);
  EXPECT_TRUE(cut.truncated_at_size);
  EXPECT_FALSE(cut.error);
  EXPECT_EQ(cut.entries.size(), 1u);
}

TEST(CrawlFeed, XxeAndBillionLaughs) {
  const FeedResult x = ParseFeed(R"(<?xml version="1.0"?>
<!DOCTYPE rss [ <!ENTITY xxe SYSTEM "file:///etc/hostname"> <!ENTITY % p SYSTEM "file:///etc/passwd"> %p; ]>
<rss version="2.0"><channel><item><title>&xxe;</title><link>https://x.example/1</link></item></channel></rss>)",
                                 "");
  ASSERT_EQ(x.entries.size(), 1u);
  EXPECT_EQ(x.entries[0].title, "");
  EXPECT_EQ(x.entries[0].link, "https://x.example/1");

  std::string bomb = "<!DOCTYPE rss [<!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">";
  std::string prev = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string("<!ENTITY ") + c + " \"";
    for (int k = 0; k < 10; ++k) bomb += "&" + prev + ";";
    bomb += "\">";
    prev = std::string(1, c);
  }
  bomb += "]><rss><channel><item><title>&j;</title></item></channel></rss>";
  const FeedResult b = ParseFeed(bomb, "");
  ASSERT_TRUE(b.error);
  EXPECT_NE(b.error->message.find("amplification"), std::string::npos) << b.error->message;
}

TEST(CrawlUriReference, Rfc3986Examples) {
  // RFC 3986 §5.4.1 normal examples and a selection of §5.4.2 abnormal ones.
  const std::string base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"g:h", "g:h"},           {"g", "http://a/b/c/g"},       {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"}, {"/g", "http://a/g"},          {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"}, {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"}, {";x", "http://a/b/c/;x"},   {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},    {"./", "http://a/b/c/"},       {"..", "http://a/b/"},
      {"../", "http://a/b/"},    {"../g", "http://a/b/g"},      {"../..", "http://a/"},
      {"../../g", "http://a/g"}, {"../../../g", "http://a/g"},  {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},   {"g.", "http://a/b/c/g."},     {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"}, {"g/./h", "http://a/b/c/g/h"}, {"g/../h", "http://a/b/c/h"},
      {"g;x=1/../y", "http://a/b/c/y"}, {"g?y/./x", "http://a/b/c/g?y/./x"}, {"http:g", "http:g"},
  };
  for (const auto& [ref, want] : cases) EXPECT_EQ(ResolveUriReference(base, ref).value_or("?"), want) << ref;
  EXPECT_FALSE(ResolveUriReference("", "rel/path"));
  EXPECT_EQ(ResolveUriReference("", "https://x.example/a/../b").value_or(""), "https://x.example/b");
  EXPECT_EQ(ResolveUriReference("https://h.example", "p").value_or(""), "https://h.example/p");
}

}  // namespace
}  // namespace attest
