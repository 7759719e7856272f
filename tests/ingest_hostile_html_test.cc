// Regression tests for hostile HTML (issue 10): documents that crashed the process or took seconds
// in gumbo are refused, quickly, with an error that names the limit. Through ParseSource, the entry
// point of `attest ingest`. Time bounds are loose (a loaded CI machine); the bench tool
// ingest_adversarial reports the real figures.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::MakeTempDir;
using testing_ingest::ParseContent;

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Parses `html` as a file named `name`; expects one error naming `limit` within 5 s, no document.
void ExpectRefused(const std::string& name, const std::string& html, const std::string& limit) {
  const auto dir = MakeTempDir();
  const auto t0 = std::chrono::steady_clock::now();
  const testing_ingest::Parsed p = ParseContent(dir, name, html, SourceFormat::kHtml);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(p.docs.empty()) << name;
  ASSERT_EQ(p.errors.size(), 1u) << name;
  EXPECT_EQ(p.errors[0].file, name);
  EXPECT_NE(p.errors[0].message.find("(limit " + limit + ")"), std::string::npos) << p.errors[0].ToString();
  EXPECT_LT(seconds, 5.0) << name;
  std::filesystem::remove_all(dir);
}

TEST(IngestHostileHtml, Regression_ThreeHundredThousandNestedSpansAreRefusedWithANamedLimit) {
  for (const char* tag : {"span", "b", "i", "em", "strong", "code"}) {
    const std::string html = "<p>" + Repeat("<" + std::string(tag) + ">", 300000) + "x</p>";
    ExpectRefused(std::string("nested_") + tag + ".html", html, "html.max_depth");
  }
}

TEST(IngestHostileHtml, Regression_FortyThousandUnclosedDivsAreRefusedQuickly) {
  ExpectRefused("unclosed.html", Repeat("<div>", 40000), "html.max_depth");
}

TEST(IngestHostileHtml, Regression_HundredThousandNestedDivsAreRefusedQuickly) {
  ExpectRefused("nested_divs.html", Repeat("<div>", 100000) + "x" + Repeat("</div>", 100000), "html.max_depth");
}

TEST(IngestHostileHtml, Regression_SixtyThousandAttributesOnOneElementAreRefusedQuickly) {
  std::string html = "<p";
  for (int i = 0; i < 60000; ++i) html += " a" + std::to_string(i) + "=\"1\"";
  ExpectRefused("attributes.html", html + ">x</p>", "html.max_attributes");
}

// Formatting elements left open across paragraphs are re-created in every later paragraph: 300 of
// them in 10,000 paragraphs would make gumbo build three million elements from 80 KB.
TEST(IngestHostileHtml, Regression_ReopenedFormattingElementsAreRefusedByTheElementLimit) {
  std::string html = "<p>";
  for (int i = 0; i < 300; ++i) html += "<b id=" + std::to_string(i) + ">";
  ExpectRefused("reopened.html", html + "</p>" + Repeat("<p>x</p>", 10000), "html.max_elements");
}

TEST(IngestHostileHtml, Regression_AHugeAttributeValueIsRefusedWithANamedLimit) {
  ExpectRefused("big_attribute.html", "<p title=\"" + std::string(2 << 20, 'x') + "\">x</p>",
                "html.max_attribute_bytes");
}

// Debian's gumbo keeps its assert()s, and these two 50-byte documents fail one: abort() ended the
// process (the CLI, or the server for every tenant). They are refused and the process goes on.
TEST(IngestHostileHtml, Regression_MarkupThatFailsAGumboAssertionIsRefusedAndTheProcessSurvives) {
  const auto dir = MakeTempDir();
  for (const char* html : {"<table><th><svg><select><foreignObject><table><table>",
                           "<template><tbody><math><mi><![CDATA[ x ]]>text"}) {
    const testing_ingest::Parsed p = ParseContent(dir, "assert.html", html, SourceFormat::kHtml);
    EXPECT_TRUE(p.docs.empty()) << html;
    ASSERT_EQ(p.errors.size(), 1u) << html;
    EXPECT_NE(p.errors[0].message.find("html: the parser failed one of its internal checks"), std::string::npos)
        << p.errors[0].ToString();
  }
  // And the next document parses normally.
  const testing_ingest::Parsed ok = ParseContent(dir, "ok.html", "<p>still here</p>", SourceFormat::kHtml);
  ASSERT_EQ(ok.docs.size(), 1u);
  EXPECT_EQ(ok.docs[0].blocks[0].text, "still here");
  std::filesystem::remove_all(dir);
}

// What real pages do stays accepted: deep but sane nesting, unclosed p / li / td, formatting
// reopened across a few paragraphs, inline SVG with self-closing children.
TEST(IngestHostileHtml, OrdinaryMessyPagesStillParse) {
  const auto dir = MakeTempDir();
  std::string html = "<html><body>" + Repeat("<div>", 200) + "<p>deep" + Repeat("</div>", 200);
  html += "<ul>" + Repeat("<li>item <b>bold", 2000) + "</ul>";
  html += "<table>" + Repeat("<tr><td>cell<td>cell", 3000) + "</table>";
  html += "<svg>" + Repeat("<path d=\"M0 0\"/>", 5000) + "</svg>";
  html += "<p><font size=2>" + Repeat("<p>para", 3000);
  const testing_ingest::Parsed p = ParseContent(dir, "messy.html", html, SourceFormat::kHtml);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].ToString();
  ASSERT_EQ(p.docs.size(), 1u);
  EXPECT_GT(p.docs[0].blocks.size(), 5000u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attest
