#include <gtest/gtest.h>

#include "ingest/html_extractor.h"
#include "ingest/source_reader.h"
#include "ingest/text_util.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::BlocksToString;

ParsedDocument Extract(std::string_view html) {
  ParsedDocument doc;
  const Status st = ExtractHtml(html, &doc);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return doc;
}

// Found by the fuzzing campaign: gumbo decodes a numeric character reference that overflows and has
// no ';' into a lone byte (0xC7 for "&#11111111111"), which the extractor passed on as text.
TEST(IngestHtml, Regression_AnOverflowingNumericReferenceYieldsValidUtf8) {
  for (const char* html : {"&#11111111111", "<title>a &#11111111111 b</title><p>x &#99999999999999 y</p>",
                           "<p>caf\xC3\xA9 &#x1111111111111 ok</p>"}) {
    ParsedDocument doc;
    ASSERT_TRUE(ExtractHtml(html, &doc).ok()) << html;
    EXPECT_FALSE(ingest::FindInvalidUtf8(doc.title).has_value()) << html;
    for (const Block& b : doc.blocks) EXPECT_FALSE(ingest::FindInvalidUtf8(b.text).has_value()) << html << ": " << b.text;
  }
  EXPECT_EQ(ingest::ReplaceInvalidUtf8("a\xC7" "b\xC3\xA9"), "a\xEF\xBF\xBD" "b\xC3\xA9");
}

TEST(IngestHtml, KeepsStructureInReadingOrder) {
  const ParsedDocument doc = Extract(R"(<html><head><title>Guide</title></head><body>
    <h1>Top</h1><p>First  paragraph &amp; more.</p>
    <h3>Sub</h3><ul><li>one</li><li>two <b>bold</b></li></ul>
    <dl><dt>term</dt><dd>definition</dd></dl>
    <blockquote>quoted</blockquote>
    <pre>  line 1
    indented</pre>
    <div>loose <span>div</span> text</div>
    </body></html>)");
  EXPECT_EQ(doc.title, "Guide");
  EXPECT_EQ(BlocksToString(doc),
            "H1: Top\nP: First paragraph & more.\nH3: Sub\nLI: one\nLI: two bold\nDEF[term]: term\n"
            "DEF[term]: definition\n"
            "P: quoted\nCODE:   line 1\n    indented\nP: loose div text\n");
}

TEST(IngestHtml, DropsChromeScriptsAndHiddenElements) {
  const ParsedDocument doc = Extract(R"(<html><body>
    <script>var secret = 1;</script><style>p{}</style><noscript>enable js</noscript>
    <template><p>template text</p></template><svg><text>svg text</text></svg>
    <nav>nav links</nav><header>site banner</header><footer>copyright</footer><aside>sidebar</aside>
    <form><label>Search</label></form><iframe>frame</iframe>
    <div class="navheader">Prev Up Next</div><div class="navfooter">Home</div>
    <ol class="breadcrumb"><li>Docs</li></ol><div role="navigation">menu</div>
    <p hidden>hidden attr</p><p aria-hidden="true">aria hidden</p>
    <p style="color:red; display: none">display none</p><p style="VISIBILITY:hidden">invisible</p>
    <input type="hidden" value="token">
    <p>Kept text <a href="#x">§</a> here.</p>
    <article><header><h1>Article title</h1></header><p>Body</p></article>
    </body></html>)");
  const std::string text = BlocksToString(doc);
  EXPECT_EQ(text, "P: Kept text here.\nH1: Article title\nP: Body\n");
  for (const char* gone : {"secret", "enable js", "template", "svg", "nav links", "banner", "copyright", "sidebar",
                           "Search", "frame", "Prev", "Home", "Docs", "menu", "hidden", "display", "invisible",
                           "token", "§"}) {
    EXPECT_EQ(text.find(gone), std::string::npos) << gone;
  }
}

// A table with a header row: one block per body row, each cell with its column header, the row's
// first cell as its subject; the caption is a paragraph before them.
TEST(IngestHtml, TablesWithAHeaderRowBecomeOneBlockPerRow) {
  const ParsedDocument doc = Extract(R"(<body><p>Before</p>
    <table><caption>Table 1. Sizes</caption><thead><tr><th>Name</th><th>Size</th></tr></thead>
    <tbody><tr><td>a</td><td>1 <i>kB</i></td></tr><tr><td></td><td></td></tr><tr><td>b</td><td>2</td></tr></tbody>
    </table><p>After</p></body>)");
  EXPECT_EQ(BlocksToString(doc),
            "P: Before\nP: Table 1. Sizes\nROW[a]: Name: a | Size: 1 kB\nROW[b]: Name: b | Size: 2\nP: After\n");
}

TEST(IngestHtml, TablesWithoutHeadersBecomeOneBlockWithRows) {
  const ParsedDocument doc = Extract(R"(<body><p>Before</p>
    <table><caption>Table 1. Sizes</caption>
    <tbody><tr><td>a</td><td>1 <i>kB</i></td></tr><tr><td></td><td></td></tr><tr><td>b</td><td>2</td></tr></tbody>
    </table><p>After</p></body>)");
  EXPECT_EQ(BlocksToString(doc), "P: Before\nTABLE: Table 1. Sizes\na | 1 kB\nb | 2\nP: After\n");
}

TEST(IngestHtml, ListItemWithParagraphsStaysOneBlockAndNestedListsSplit) {
  const ParsedDocument doc = Extract(
      "<body><ul><li><p>Fix a bug (Tom)</p><p>Details here.</p><ul><li>nested</li></ul>tail</li></ul></body>");
  EXPECT_EQ(BlocksToString(doc), "LI: Fix a bug (Tom)\nDetails here.\nLI: nested\nLI: tail\n");
}

TEST(IngestHtml, TitleCanonicalDatesAndLanguage) {
  const ParsedDocument doc = Extract(R"(<html lang="de-CH"><head>
    <title>Install Guide | Example Docs</title>
    <meta property="og:site_name" content="Example Docs">
    <link rel="alternate canonical" href="https://Docs.Example.com/guide/install">
    <meta property="article:published_time" content="2023-05-01T10:00:00Z">
    <meta name="dcterms.modified" content="June 2, 2023">
    </head><body><p>Text <time datetime="2020-01-01">then</time></p></body></html>)");
  EXPECT_EQ(doc.title, "Install Guide");
  EXPECT_EQ(doc.url, "https://Docs.Example.com/guide/install");
  ASSERT_TRUE(doc.published.has_value());
  EXPECT_EQ(FormatDate(*doc.published), "2023-05-01");
  ASSERT_TRUE(doc.updated.has_value());
  EXPECT_EQ(FormatDate(*doc.updated), "2023-06-02");
  EXPECT_EQ(doc.language, "de");
}

TEST(IngestHtml, FallbacksTimeElementFirstH1AndRelativeCanonicalIgnored) {
  const ParsedDocument doc = Extract(R"(<head><link rel="canonical" href="/relative">
    <meta name="date" content="not a date"></head>
    <body><h1>Heading <em>Title</em></h1><p>Posted <time datetime="2021-03-04T05:06">March 4</time></p></body>)");
  EXPECT_EQ(doc.title, "Heading Title");
  EXPECT_EQ(doc.url, "");
  ASSERT_TRUE(doc.published.has_value());
  EXPECT_EQ(FormatDate(*doc.published), "2021-03-04");
  EXPECT_FALSE(doc.updated.has_value());
}

TEST(IngestHtml, ReleaseNotesDetectedFromTitle) {
  ParsedDocument doc = Extract(
      "<head><title>E.17. Release 15.4</title></head><body><h2>E.17. Release 15.4</h2>"
      "<p><strong>Release date: </strong>2023-08-10</p><p>Fixes.</p></body>");
  EXPECT_EQ(doc.version, "15.4");
  EXPECT_EQ(doc.source_type, "release_notes");
  ASSERT_TRUE(doc.published.has_value());
  EXPECT_EQ(FormatDate(*doc.published), "2023-08-10");

  doc = Extract("<head><title>E.21. Release 15</title></head><body><p>x</p></body>");
  EXPECT_EQ(doc.version, "15");
  for (const char* title : {"Appendix E. Release Notes", "Prerelease 15.4", "Release 15.", "20.6. Replication"}) {
    doc = Extract(std::string("<head><title>") + title + "</title></head><body><p>x</p></body>");
    EXPECT_EQ(doc.version, "") << title;
    EXPECT_EQ(doc.source_type, "") << title;
  }
}

TEST(IngestHtml, TableOfContentsDroppedUnlessItIsAllThereIs) {
  ParsedDocument doc =
      Extract("<body><div class=\"toc\"><dl><dt><a href=a.html>1. Intro</a></dt></dl></div><p>Body text</p></body>");
  EXPECT_EQ(BlocksToString(doc), "P: Body text\n");
  doc = Extract("<body><div class=\"toc\"><dl><dt><a href=a.html>1. Intro</a></dt></dl></div></body>");
  EXPECT_EQ(BlocksToString(doc), "P: 1. Intro\n");
}

TEST(IngestHtml, SurvivesMalformedAndDeepMarkup) {
  std::string deep;  // within html.max_depth (512); deeper is refused (ingest_limits_test.cc)
  for (int i = 0; i < 500; ++i) deep += "<span>";
  deep += "deep text";
  ParsedDocument doc = Extract(deep);
  EXPECT_EQ(BlocksToString(doc), "P: deep text\n");
  doc = Extract("<p>unclosed <b>bold <i>both</p><table><tr><td>cell<td>cell2</table></div></div>");
  EXPECT_EQ(BlocksToString(doc), "P: unclosed bold both\nTABLE: cell | cell2\n");
}

// The real PostgreSQL 15 documentation (Debian package postgresql-doc-15).
class IngestHtmlPostgres : public ::testing::Test {
 protected:
  static constexpr const char* kDir = "/usr/share/doc/postgresql-doc-15/html";
  void SetUp() override {
    if (!std::filesystem::exists(std::string(kDir) + "/release-15-4.html")) {
      GTEST_SKIP() << "PostgreSQL docs not installed at " << kDir << " (Debian package postgresql-doc-15)";
    }
  }
  static ParsedDocument Page(const std::string& name) {
    auto parsed = testing_ingest::ParseFile(std::string(kDir) + "/" + name, SourceFormat::kHtml);
    EXPECT_TRUE(parsed.errors.empty()) << (parsed.errors.empty() ? "" : parsed.errors[0].ToString());
    EXPECT_EQ(parsed.docs.size(), 1u);
    return parsed.docs.empty() ? ParsedDocument{} : std::move(parsed.docs[0]);
  }
};

TEST_F(IngestHtmlPostgres, ReleasePageHasDateVersionAndCleanText) {
  const ParsedDocument doc = Page("release-15-4.html");
  EXPECT_EQ(doc.title, "E.17. Release 15.4");
  EXPECT_EQ(doc.version, "15.4");
  EXPECT_EQ(doc.source_type, "release_notes");
  ASSERT_TRUE(doc.published.has_value());
  EXPECT_EQ(FormatDate(*doc.published), "2023-08-10");
  EXPECT_EQ(doc.id, "release-15-4.html");
  ASSERT_FALSE(doc.blocks.empty());
  EXPECT_EQ(doc.blocks[0].kind, BlockKind::kHeading);
  EXPECT_EQ(doc.blocks[0].text, "E.17. Release 15.4");
  const std::string text = BlocksToString(doc);
  EXPECT_NE(text.find("CVE-2023-39417"), std::string::npos);
  EXPECT_NE(text.find("LI: Fix MERGE to enforce row security policies properly (Dean Rasheed)"), std::string::npos);
  for (const char* chrome : {"Prev\n", "Prev ", "Home", "§", "Appendix E. Release Notes", "Release 15.5", "Release 15.3"}) {
    EXPECT_EQ(text.find(chrome), std::string::npos) << chrome;
  }
  // The table of contents is dropped: the section heading appears once.
  const std::string heading = "E.17.1. Migration to Version 15.4";
  EXPECT_EQ(text.find(heading), text.rfind(heading));
}

TEST_F(IngestHtmlPostgres, OrdinaryPagesHaveNoVersion) {
  for (const char* name : {"logical-replication.html", "runtime-config-replication.html"}) {
    const ParsedDocument doc = Page(name);
    EXPECT_EQ(doc.version, "") << name;
    EXPECT_EQ(doc.source_type, "") << name;
    EXPECT_FALSE(doc.published.has_value()) << name;
    const std::string text = BlocksToString(doc);
    EXPECT_EQ(text.find("Prev\n"), std::string::npos) << name;
    EXPECT_EQ(text.find("Prev "), std::string::npos) << name;
    EXPECT_EQ(text.find("Table of Contents"), std::string::npos) << name;
  }
  const std::string text = BlocksToString(Page("runtime-config-replication.html"));
  EXPECT_NE(text.find("H3: 20.6.1. Sending Servers"), std::string::npos);
  EXPECT_NE(text.find("DEF[max_wal_senders (integer)]: max_wal_senders (integer)"), std::string::npos);
  EXPECT_NE(text.find("ROW[pgoutput]: Plugin: pgoutput | Description: Core plugin"), std::string::npos) << text;
  EXPECT_NE(text.find(": SELECT DISTINCT plugin FROM pg_replication_slots WHERE plugin IS NOT NULL;"),
            std::string::npos);
}

TEST_F(IngestHtmlPostgres, WholeDirectoryParsesWithoutErrors) {
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({kDir}, &files, &errors);
  EXPECT_TRUE(errors.empty()) << errors[0].ToString();
  EXPECT_GT(files.size(), 1000u);
  size_t docs = 0, releases = 0, errors_seen = 0;
  for (const SourceFile& f : files) {
    EXPECT_EQ(f.format, SourceFormat::kHtml) << f.relative;
    ParseSource(
        f, SourceOptions{},
        [&](ParsedDocument&& d, uint64_t) {
          ++docs;
          if (d.source_type == "release_notes") {
            ++releases;
            EXPECT_TRUE(d.published.has_value()) << f.relative;
          }
          EXPECT_FALSE(d.title.empty()) << f.relative;
        },
        [&](SourceError&& e) {
          ++errors_seen;
          ADD_FAILURE() << e.ToString();
        });
  }
  EXPECT_EQ(docs, files.size());
  EXPECT_EQ(errors_seen, 0u);
  EXPECT_GE(releases, 20u);
}

}  // namespace
}  // namespace attest
