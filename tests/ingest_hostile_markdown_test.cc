// Hostile Markdown (issue 10): inputs that used to take super-linear time, and guards that the
// shapes known to hurt CommonMark parsers stay linear here. Time bounds are loose (a loaded CI
// machine); bench/tools/ingest_adversarial reports the real figures.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

#include "ingest/markdown_inline.h"
#include "ingest/markdown_parser.h"
#include "ingest/source_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

double SecondsToParse(const std::string& name, const std::string& markdown, testing_ingest::Parsed* out) {
  const auto dir = testing_ingest::MakeTempDir();
  const auto t0 = std::chrono::steady_clock::now();
  *out = testing_ingest::ParseContent(dir, name, markdown, SourceFormat::kMarkdown);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::filesystem::remove_all(dir);
  return s;
}

// Every opener scanned ahead for a closer of its length: runs of length 1..4,000 with no closers
// (8 MB) took minutes. Closers are now looked up by length.
TEST(IngestHostileMarkdown, Regression_BacktickRunsOfManyLengthsWithoutClosersParseInLinearTime) {
  std::string md;
  for (int n = 1; n <= 4000; ++n) md += std::string(n, '`') + " a ";
  testing_ingest::Parsed p;
  const double seconds = SecondsToParse("ticks.md", md, &p);
  EXPECT_LT(seconds, 5.0);
  ASSERT_EQ(p.docs.size(), 1u);
  EXPECT_EQ(p.docs[0].blocks.size(), 1u);
}

// The lookup keeps CommonMark's code spans: a closer is a run of the same length, a backslash
// does not escape it, and inside link text the span must close inside the brackets.
TEST(IngestHostileMarkdown, CodeSpansStillCloseOnARunOfTheSameLength) {
  EXPECT_EQ(StripMarkdownInline("a `foo\\` b"), "a foo\\ b");
  EXPECT_EQ(StripMarkdownInline("``a`b`` and `c`"), "a`b and c");
  EXPECT_EQ(StripMarkdownInline("` `` `"), "``");
  EXPECT_EQ(StripMarkdownInline("x ``` y ` z"), "x ``` y ` z");
  EXPECT_EQ(StripMarkdownInline("[a `b](u) c` d"), "a `b c` d");
  EXPECT_EQ(StripMarkdownInline("\\`not code\\` and `code`"), "`not code` and code");
}

// Shapes that hurt other CommonMark implementations stay linear here (none of these finds a
// super-linear path today; they guard against one appearing).
TEST(IngestHostileMarkdown, PathologicalNestingAndDelimitersStayLinear) {
  const std::pair<std::string, std::function<std::string()>> cases[] = {
      {"100,000 nested >", [] { return Repeat(">", 100000) + " x\n"; }},
      {"100,000 quoted lines", [] { return Repeat("> > > > > quoted text\n", 100000); }},
      {"list nested 2,000 levels",
       [] {
         std::string s;
         for (int i = 0; i < 2000; ++i) s += std::string(2 * i, ' ') + "- item\n";
         return s;
       }},
      {"1,000,000 emphasis openers", [] { return Repeat("*a", 1000000); }},
      {"200,000 [ then ]", [] { return Repeat("[", 200000) + "x" + Repeat("]", 200000); }},
      {"200,000 unclosed links", [] { return Repeat("[a](", 200000); }},
      {"200,000 image openers", [] { return Repeat("![[", 200000); }},
      {"500,000 unclosed tags", [] { return Repeat("<a ", 500000); }},
      {"500,000 unclosed comments", [] { return "x\n\n" + Repeat("a <!-- x ", 500000); }},
      {"100,000 table rows", [] { return "a | b\n--|--\n" + Repeat("1 | 2\n", 100000); }},
      {"100,000 fences", [] { return Repeat("```\ncode\n", 100000); }},
      {"100,000 setext underlines", [] { return Repeat("title\n===\n", 100000); }},
  };
  for (const auto& [name, make] : cases) {
    testing_ingest::Parsed p;
    const double seconds = SecondsToParse("hostile.md", make(), &p);
    EXPECT_LT(seconds, 5.0) << name;
    EXPECT_EQ(p.docs.size() + p.errors.size(), 1u) << name;
  }
}

}  // namespace
}  // namespace attest
