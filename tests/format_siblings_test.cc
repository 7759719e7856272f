// Format siblings (search/format_siblings.h): which document ids are the same document in another
// format, and which one is shown.
#include <gtest/gtest.h>

#include "search/format_siblings.h"

namespace attest {
namespace {

TEST(FormatSiblingsTest, RenderedPageAndItsSourceShareAStem) {
  auto html = FormatSiblingOf("git-rebase.html");
  auto txt = FormatSiblingOf("git-rebase.txt");
  ASSERT_TRUE(html && txt);
  EXPECT_EQ(html->stem, txt->stem);
  EXPECT_LT(html->preference, txt->preference);
  auto md = FormatSiblingOf("docs/Guide.MD");
  ASSERT_TRUE(md);
  EXPECT_EQ(md->stem, "docs/Guide");
  EXPECT_LT(FormatSiblingOf("docs/Guide.htm")->preference, md->preference);
  EXPECT_LT(md->preference, FormatSiblingOf("docs/Guide.adoc")->preference);
}

TEST(FormatSiblingsTest, OtherIdsAreNeverFolded) {
  EXPECT_FALSE(FormatSiblingOf("4983"));                 // a BEIR id
  EXPECT_FALSE(FormatSiblingOf("notes/.profile"));       // a hidden file, no extension
  EXPECT_FALSE(FormatSiblingOf("a.b/readme"));           // the dot is in a folder name
  EXPECT_FALSE(FormatSiblingOf("report.pdf"));           // not a text format
  EXPECT_FALSE(FormatSiblingOf("page.html?lang=en"));    // a URL with a query
  EXPECT_NE(FormatSiblingOf("a/x.html")->stem, FormatSiblingOf("b/x.txt")->stem);  // other folder
}

}  // namespace
}  // namespace attest
