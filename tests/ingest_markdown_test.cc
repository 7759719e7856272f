#include <gtest/gtest.h>

#include "ingest/markdown_inline.h"
#include "ingest/markdown_parser.h"
#include "ingest/text_parser.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::BlocksToString;

ParsedDocument Md(std::string_view text) {
  ParsedDocument doc;
  Status st = ParseMarkdown(text, &doc);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return doc;
}

TEST(IngestMarkdown, FrontMatterAndHeadings) {
  const ParsedDocument doc = Md(
      "---\n"
      "title: \"Upgrade Guide\"\n"
      "date: 2023-08-10\n"
      "updated: 'September 1, 2023'\n"
      "version: 15.4\n"
      "url: https://docs.example.com/upgrade\n"
      "source_type: docs\n"
      "author: Jane\n"
      "---\n"
      "# Overview #\n"
      "Intro text\n"
      "continues here.\n"
      "\n"
      "Setext Title\n"
      "============\n"
      "Second level\n"
      "------------\n"
      "###### Six\n"
      "####### not a heading\n");
  EXPECT_EQ(doc.title, "Upgrade Guide");
  EXPECT_EQ(FormatDate(doc.published.value()), "2023-08-10");
  EXPECT_EQ(FormatDate(doc.updated.value()), "2023-09-01");
  EXPECT_EQ(doc.version, "15.4");
  EXPECT_EQ(doc.url, "https://docs.example.com/upgrade");
  EXPECT_EQ(doc.source_type, "docs");
  EXPECT_EQ(doc.metadata.at("author"), "Jane");
  EXPECT_EQ(BlocksToString(doc),
            "H1: Overview\nP: Intro text continues here.\nH1: Setext Title\nH2: Second level\nH6: Six\n"
            "P: ####### not a heading\n");
}

TEST(IngestMarkdown, ListsCodeTablesQuotes) {
  const ParsedDocument doc = Md(
      "Paragraph with *emphasis*, __strong__, `a_b * c`, [link text](http://x.y/z_(1)) and ![alt text](i.png).\n"
      "\n"
      "- item one\n"
      "  continued\n"
      "- [x] done task\n"
      "  1. nested ordered\n"
      "3) third\n"
      "\n"
      "```sql\n"
      "SELECT *\n"
      "  FROM t;\n"
      "```\n"
      "\n"
      "    indented code\n"
      "      more\n"
      "\n"
      "| Name | Value |\n"
      "|:-----|------:|\n"
      "| `a\\|b` | **1** |\n"
      "| c | 2 |\n"
      "\n"
      "> quoted line\n"
      "> continues\n"
      "\n"
      "***\n"
      "[ref]: http://example.com\n"
      "<!-- a comment\n"
      "spanning lines -->\n"
      "Final <span class=\"x\">html</span> snake_case 2 * 3 ~~gone~~ &amp; &#x41; \\*literal\\*\n");
  EXPECT_EQ(BlocksToString(doc),
            "P: Paragraph with emphasis, strong, a_b * c, link text and alt text.\n"
            "LI: item one continued\n"
            "LI: done task\n"
            "LI: nested ordered\n"
            "LI: third\n"
            "CODE: SELECT *\n  FROM t;\n"
            "CODE: indented code\n  more\n"
            "ROW[a|b]: Name: a|b | Value: 1\nROW[c]: Name: c | Value: 2\n"
            "P: quoted line continues\n"
            "P: Final html snake_case 2 * 3 gone & A *literal*\n");
  EXPECT_EQ(doc.title, "");
}

TEST(IngestMarkdown, TitleFromFirstH1AndUnclosedFence) {
  const ParsedDocument doc = Md("## Sub first\n\n# Main\n\n```\nnever closed\n  still code");
  EXPECT_EQ(doc.title, "Main");
  EXPECT_EQ(BlocksToString(doc), "H2: Sub first\nH1: Main\nCODE: never closed\n  still code\n");
}

TEST(IngestMarkdown, BadFrontMatterDateIsAnError) {
  ParsedDocument doc;
  Status st = ParseMarkdown("---\ndate: 2023-02-30\n---\ntext\n", &doc);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("\"date\""), std::string::npos) << st.message();
}

TEST(IngestMarkdown, InlineStripperOnHostileInputIsBoundedAndKeepsText) {
  // Shortcut references keep their brackets at any depth (nesting past the limit stays literal).
  EXPECT_EQ(StripMarkdownInline("[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]"), "[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]");
  EXPECT_EQ(StripMarkdownInline("[[x](u)]"), "[x]");
  const std::string deep = std::string(20, '[') + "x](u)" + std::string(19, ']');
  EXPECT_EQ(StripMarkdownInline(deep), deep);
  EXPECT_EQ(StripMarkdownInline("``` unclosed `code"), "``` unclosed `code");
  EXPECT_EQ(StripMarkdownInline("a < b > c"), "a < b > c");
  EXPECT_EQ(StripMarkdownInline("see <https://example.com/x> now"), "see https://example.com/x now");
  std::string many(200000, '[');
  many += std::string(200000, '`');
  EXPECT_EQ(StripMarkdownInline(many).size(), many.size());  // linear-time, no recursion blow-up
}

TEST(IngestPlainText, TitleAndParagraphs) {
  ParsedDocument doc;
  ParsePlainText("\n\n  Release Notes  \n\nFirst para\nline two\n\n\n\nSecond para\n", "notes.txt", &doc);
  EXPECT_EQ(doc.title, "Release Notes");
  EXPECT_EQ(BlocksToString(doc), "H1: Release Notes\nP: First para line two\nP: Second para\n");

  ParsedDocument long_doc;
  ParsePlainText(std::string(130, 'x') + "\n\nbody\n", "long.txt", &long_doc);
  EXPECT_EQ(long_doc.title, "long.txt");
  EXPECT_EQ(long_doc.blocks.size(), 2u);
  EXPECT_EQ(long_doc.blocks[0].kind, BlockKind::kParagraph);
}

}  // namespace
}  // namespace attest
