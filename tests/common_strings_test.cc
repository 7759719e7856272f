// The shared string helpers (common/strings.h): one Trim and one whitespace collapse, and the one
// place where callers differ, U+00A0.
#include <gtest/gtest.h>

#include "common/strings.h"

namespace attest {
namespace {

constexpr std::string_view kNbsp = "\xC2\xA0";

TEST(TrimTest, RemovesAsciiWhitespaceAtBothEnds) {
  EXPECT_EQ(Trim(" \t\n\v\f\rword in\tside \r\n"), "word in\tside");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t\r\n"), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(TrimTest, ReturnsAViewIntoTheInput) {
  const std::string s = "  abc  ";
  const std::string_view t = Trim(s);
  EXPECT_EQ(t.data(), s.data() + 2);
  EXPECT_EQ(t.size(), 3u);
}

TEST(TrimTest, NoBreakSpaceIsNotTrimmed) {
  const std::string s = std::string(kNbsp) + "a" + std::string(kNbsp);
  EXPECT_EQ(Trim(s), s);
}

TEST(TrimTest, HttpWhitespaceIsSpaceAndTabOnly) {
  EXPECT_EQ(Trim(" \tkey\t ", kHttpWhitespace), "key");
  EXPECT_EQ(Trim("\vkey\f", kHttpWhitespace), "\vkey\f");
  EXPECT_EQ(Trim("\r\n x \r\n", " \t\r\n"), "x");
}

TEST(CollapseWhitespaceTest, CollapsesRunsAndTrims) {
  for (Nbsp nbsp : {Nbsp::kKeep, Nbsp::kAsSpace}) {
    EXPECT_EQ(CollapseWhitespace("  a \t\n b\r\n\v\fc  ", nbsp), "a b c");
    EXPECT_EQ(CollapseWhitespace("", nbsp), "");
    EXPECT_EQ(CollapseWhitespace(" \n\t ", nbsp), "");
    EXPECT_EQ(CollapseWhitespace("one", nbsp), "one");
    EXPECT_EQ(CollapseWhitespace("caf\xC3\xA9  \xE2\x80\x94 x", nbsp), "caf\xC3\xA9 \xE2\x80\x94 x");
  }
}

TEST(CollapseWhitespaceTest, NoBreakSpaceKeptAsText) {
  const std::string in = std::string(kNbsp) + "a " + std::string(kNbsp) + " b" + std::string(kNbsp);
  EXPECT_EQ(CollapseWhitespace(in, Nbsp::kKeep), in);
  EXPECT_EQ(CollapseWhitespace("a\xC2\xA0\xC2\xA0 b", Nbsp::kKeep), "a\xC2\xA0\xC2\xA0 b");
}

TEST(CollapseWhitespaceTest, NoBreakSpaceAsWhitespace) {
  const std::string in = std::string(kNbsp) + "a " + std::string(kNbsp) + " b" + std::string(kNbsp);
  EXPECT_EQ(CollapseWhitespace(in, Nbsp::kAsSpace), "a b");
  EXPECT_EQ(CollapseWhitespace("a\xC2\xA0\xC2\xA0 b", Nbsp::kAsSpace), "a b");
  // A lone 0xC2 or 0xA0 byte is not a no-break space.
  EXPECT_EQ(CollapseWhitespace("a\xC2 b\xA0", Nbsp::kAsSpace), "a\xC2 b\xA0");
  // U+00C2 followed by a space stays.
  EXPECT_EQ(CollapseWhitespace("\xC3\x82\xC2\xA0x", Nbsp::kAsSpace), "\xC3\x82 x");
}

TEST(AsciiLowerTest, LowersAsciiLettersOnly) {
  EXPECT_EQ(AsciiLower("PostgreSQL 15 WAL_Level"), "postgresql 15 wal_level");
  // UTF-8 bytes pass through: "Ä" (C3 84) is not an ASCII letter and stays as written.
  EXPECT_EQ(AsciiLower("\xC3\x84RGER @[`{"), "\xC3\x84rger @[`{");
  EXPECT_EQ(AsciiLower(""), "");
}

}  // namespace
}  // namespace attest
