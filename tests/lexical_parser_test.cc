// ParseLexicalQuery with the real Analyzer, and end-to-end search over analyzed chunks.
#include <gtest/gtest.h>

#include "lexical/lexical_searcher.h"
#include "lexical/segment_writer.h"
#include "text/analyzer.h"

namespace attest {
namespace {

const Analyzer& TheAnalyzer() {
  static const Analyzer* a = new Analyzer();
  return *a;
}

LexicalQuery Parse(std::string_view text) {
  auto q = ParseLexicalQuery(text, TheAnalyzer());
  EXPECT_TRUE(q.ok()) << text << ": " << q.status().ToString();
  return q.ok() ? *q : LexicalQuery{};
}

std::string Show(const LexicalQuery& q) {
  std::string s;
  for (const auto& c : q.clauses) {
    s += c.occur == Occur::kMust ? "+" : c.occur == Occur::kMustNot ? "-" : "";
    if (c.phrase) s += "\"";
    for (size_t i = 0; i < c.terms.size(); ++i) {
      if (i) s += " ";
      s += c.terms[i] + "@" + std::to_string(c.positions[i]);
    }
    if (c.phrase) s += "\"";
    s += " | ";
  }
  return s;
}

TEST(LexicalParserTest, PlainWordsAreAnalyzedShouldTerms) {
  EXPECT_EQ(Show(Parse("Running  replication")), "run@0 | replic@0 | ");
  // Stopwords vanish.
  EXPECT_EQ(Show(Parse("the replication")), "replic@0 | ");
}

TEST(LexicalParserTest, IdentifierContributesWholeAndParts) {
  EXPECT_EQ(Show(Parse("max_wal_senders")), "max_wal_senders@0 | max@0 | wal@0 | sender@0 | ");
}

TEST(LexicalParserTest, SignedIdentifierIsTheWholeIdentifier) {
  EXPECT_EQ(Show(Parse("+max_wal_senders vacuum")), "+max_wal_senders@0 | vacuum@0 | ");
  EXPECT_EQ(Show(Parse("vacuum -ERR-1234")), "vacuum@0 | -err-1234@0 | ");
  // Several words without a covering identifier: the phrase of them.
  EXPECT_EQ(Show(Parse("+foo,bar")), "+\"foo@0 bar@1\" | ");
}

TEST(LexicalParserTest, PhrasesKeepStopwordGapsAndAreRequiredUnlessSigned) {
  EXPECT_EQ(Show(Parse("\"release of the date\"")), "+\"releas@0 date@3\" | ");
  EXPECT_EQ(Show(Parse("vacuum -\"release date\"")), "vacuum@0 | -\"releas@0 date@1\" | ");
  EXPECT_EQ(Show(Parse("+\"release date\" 15.4")), "+\"releas@0 date@1\" | 15.4@0 | 15@0 | 4@0 | ");
  // A one-term phrase is a plain required term.
  EXPECT_EQ(Show(Parse("\"the vacuum\"")), "+vacuum@0 | ");
  // An unterminated quote runs to the end of the query.
  EXPECT_EQ(Show(Parse("\"release date")), "+\"releas@0 date@1\" | ");
}

TEST(LexicalParserTest, LoneSignsAreIgnored) {
  EXPECT_EQ(Show(Parse("vacuum + freeze -")), "vacuum@0 | freez@0 | ");
}

TEST(LexicalParserTest, RejectsEmptyStopwordOnlyAndExcludedOnly) {
  for (std::string_view bad : {"", "   ", "the of", "\"\"", "-vacuum", "-vacuum -\"release date\""}) {
    auto q = ParseLexicalQuery(bad, TheAnalyzer());
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_FALSE(q.status().message().empty());
  }
}

IndexedChunk Analyzed(uint64_t id, std::string_view title, std::string_view body) {
  IndexedChunk c;
  c.id = ChunkId(id);
  c.fields[0].length = TheAnalyzer().Analyze(title, &c.fields[0].tokens);
  c.fields[2].length = TheAnalyzer().Analyze(body, &c.fields[2].tokens);
  return c;
}

TEST(LexicalParserTest, EndToEndOverAnalyzedChunks) {
  SegmentWriter w;
  ASSERT_TRUE(w.Add(Analyzed(1, "Replication", "Set max_wal_senders for streaming replication.")).ok());
  ASSERT_TRUE(w.Add(Analyzed(2, "Release notes", "The release of the date 15.4 was announced.")).ok());
  ASSERT_TRUE(w.Add(Analyzed(3, "Vacuum", "VACUUM FREEZE runs without autovacuum.")).ok());
  ASSERT_TRUE(w.Add(Analyzed(4, "Vacuum", "Autovacuum runs VACUUM in the background.")).ok());
  auto seg = Segment::FromBytes(w.Serialize());
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  LexicalSearcher s({{SegmentId(1), *seg, nullptr}});
  auto ids = [&](std::string_view text) {
    LexicalQuery q = Parse(text);
    LexicalSearchArgs args;
    args.query = &q;
    auto fast = s.TopK(args);
    EXPECT_EQ(fast, s.Exhaustive(args)) << text;
    std::vector<uint64_t> out;
    for (const auto& c : fast) out.push_back(c.id.get());
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(ids("wal senders"), std::vector<uint64_t>{1});
  EXPECT_EQ(ids("max_wal_senders"), std::vector<uint64_t>{1});
  EXPECT_EQ(ids("\"max wal senders\""), std::vector<uint64_t>{1});
  EXPECT_EQ(ids("\"release of the date\""), std::vector<uint64_t>{2});
  EXPECT_TRUE(ids("\"release date\"").empty());  // the stopword gap is real
  EXPECT_EQ(ids("vacuum freeze -autovacuum"), std::vector<uint64_t>{});  // 3 and 4 both mention autovacuum
  EXPECT_EQ(ids("vacuum -background"), (std::vector<uint64_t>{3}));
  EXPECT_EQ(ids("+vacuum replication"), (std::vector<uint64_t>{3, 4}));
}

}  // namespace
}  // namespace attest
