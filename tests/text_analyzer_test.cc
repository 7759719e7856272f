#include "text/analyzer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace attest {
namespace {

using ::testing::ElementsAre;

struct Tok {
  std::string term;
  uint32_t position;
  bool operator==(const Tok&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Tok& t) { return os << t.term << "@" << t.position; }

std::vector<Tok> Analyze(std::string_view text, AnalyzerOptions options = {}) {
  Analyzer analyzer(options);
  std::vector<Token> tokens;
  analyzer.Analyze(text, &tokens);
  std::vector<Tok> out;
  for (const Token& t : tokens) out.push_back({t.term, t.position});
  return out;
}

// The token whose term is `term`, or nullptr.
const Token* Find(const std::vector<Token>& tokens, std::string_view term) {
  for (const Token& t : tokens) {
    if (t.term == term) return &t;
  }
  return nullptr;
}

// Found by the fuzzing campaign: a word made of default-ignorable characters (Hangul fillers) folds
// to nothing, and the analyzer emitted an empty term (indexed as "" and matched by nothing sane).
TEST(AnalyzerTest, Regression_AWordThatFoldsToNothingIsNoTerm) {
  Analyzer a;
  for (const char* text : {"\xEF\xBE\xA0", "alpha \xEF\xBE\xA0 beta", "\xE3\x85\xA4_\xEF\xBE\xA0 gamma"}) {
    std::vector<Token> tokens;
    a.Analyze(text, &tokens);
    for (const Token& t : tokens) EXPECT_FALSE(t.term.empty()) << text;
  }
  std::vector<Token> tokens;
  a.Analyze("alpha \xEF\xBE\xA0 beta", &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[1].position, tokens[0].position + 1) << "an ignorable word takes no position";
}

TEST(AnalyzerTest, StemsWithSnowballEnglish) {
  EXPECT_THAT(Analyze("running connections replicated"),
              ElementsAre(Tok{"run", 0}, Tok{"connect", 1}, Tok{"replic", 2}));
  EXPECT_THAT(Analyze("Generously"), ElementsAre(Tok{"generous", 0}));
}

TEST(AnalyzerTest, NoStemmingWhenDisabled) {
  AnalyzerOptions o;
  o.stem = false;
  EXPECT_THAT(Analyze("running connections", o), ElementsAre(Tok{"running", 0}, Tok{"connections", 1}));
}

TEST(AnalyzerTest, StopwordsRemovedButKeepPositions) {
  Analyzer analyzer;
  std::vector<Token> tokens;
  const uint32_t n = analyzer.Analyze("the cat is on the mat", &tokens);
  EXPECT_EQ(n, 6u);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].term, "cat");
  EXPECT_EQ(tokens[0].position, 1u);
  EXPECT_EQ(tokens[1].term, "mat");
  EXPECT_EQ(tokens[1].position, 5u);
}

TEST(AnalyzerTest, AllThirtyThreeLuceneStopwords) {
  const std::string words =
      "a an and are as at be but by for if in into is it no not of on or such that the their then there "
      "these they this to was will with";
  Analyzer analyzer;
  std::vector<Token> tokens;
  EXPECT_EQ(analyzer.Analyze(words, &tokens), 33u);
  EXPECT_TRUE(tokens.empty());
  // Words that merely look like stopwords survive.
  EXPECT_THAT(Analyze("which them those"), ElementsAre(Tok{"which", 0}, Tok{"them", 1}, Tok{"those", 2}));
}

TEST(AnalyzerTest, StopwordsKeptWhenDisabled) {
  AnalyzerOptions o;
  o.remove_stopwords = false;
  EXPECT_THAT(Analyze("the cat", o), ElementsAre(Tok{"the", 0}, Tok{"cat", 1}));
}

TEST(AnalyzerTest, FirstPositionOffsetsPositions) {
  Analyzer analyzer;
  std::vector<Token> tokens;
  EXPECT_EQ(analyzer.Analyze("quick fox", &tokens, 10), 2u);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].position, 10u);
  EXPECT_EQ(tokens[1].position, 11u);
}

TEST(AnalyzerTest, RemovesPossessives) {
  EXPECT_THAT(Analyze("John's book"), ElementsAre(Tok{"john", 0}, Tok{"book", 1}));
  EXPECT_THAT(Analyze("JOHN'S"), ElementsAre(Tok{"john", 0}));
  EXPECT_THAT(Analyze("Postgres\xE2\x80\x99s planner"), ElementsAre(Tok{"postgr", 0}, Tok{"planner", 1}));
  // Contractions that are not possessives are left to the stemmer.
  EXPECT_THAT(Analyze("don't"), ElementsAre(Tok{"don't", 0}));
}

TEST(AnalyzerTest, NfkcCaseFolding) {
  EXPECT_THAT(Analyze("\xEF\xAC\x81le"), ElementsAre(Tok{"file", 0}));  // "ﬁle" with the fi ligature
  // Full-width digits and letters.
  EXPECT_THAT(Analyze("\xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x93"), ElementsAre(Tok{"123", 0}));
  EXPECT_THAT(Analyze("\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3"), ElementsAre(Tok{"abc", 0}));
  EXPECT_THAT(Analyze("STRASSE Stra\xC3\x9F" "e"), ElementsAre(Tok{"strass", 0}, Tok{"strass", 1}));
  EXPECT_EQ(Analyzer::Fold("\xEF\xAC\x81le \xEF\xBC\x91 MiXeD"), "file 1 mixed");
  EXPECT_EQ(Analyzer::Fold(""), "");
}

// The brief's worked example, position by position.
TEST(AnalyzerTest, IdentifierWholeAndPartsWithPositions) {
  Analyzer analyzer;
  std::vector<Token> tokens;
  const std::string text = "the max_wal_senders setting";
  EXPECT_EQ(analyzer.Analyze(text, &tokens), 5u);
  EXPECT_THAT(Analyze(text), ElementsAre(Tok{"max_wal_senders", 1}, Tok{"max", 1}, Tok{"wal", 2},
                                         Tok{"sender", 3}, Tok{"set", 4}));
}

struct IdentifierCase {
  std::string text;
  std::string whole;
  std::vector<std::string> parts;
};

TEST(AnalyzerTest, EveryIdentifierFindableWholeAndByParts) {
  const std::vector<IdentifierCase> cases = {
      {"max_wal_senders", "max_wal_senders", {"max", "wal", "sender"}},
      {"pg_stat_replication", "pg_stat_replication", {"pg", "stat", "replic"}},
      {"lr_example_parallel_apply", "lr_example_parallel_apply", {"lr", "exampl", "parallel", "appli"}},
      {"ERR-1234", "err-1234", {"err", "1234"}},
      {"15.4", "15.4", {"15", "4"}},
      {"postgresql.conf", "postgresql.conf", {"postgresql", "conf"}},
      {"v1.2.3", "v1.2.3", {"v1", "2", "3"}},
      {"http://example.com/a_b", "example.com/a_b", {"exampl", "com", "a", "b"}},
  };
  for (const IdentifierCase& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string text = "see " + c.text + " now";
    std::vector<Tok> expected = {{"see", 0}, {c.whole, 1}};
    for (size_t i = 0; i < c.parts.size(); ++i) expected.push_back({c.parts[i], static_cast<uint32_t>(1 + i)});
    expected.push_back({"now", static_cast<uint32_t>(1 + c.parts.size())});
    std::vector<Tok> got = Analyze(text);
    // "http:" is its own word before the joined identifier.
    if (c.text.rfind("http", 0) == 0) {
      ASSERT_GE(got.size(), 2u);
      EXPECT_EQ(got[1].term, "http");
      got.erase(got.begin() + 1);
      for (size_t i = 1; i < got.size(); ++i) --got[i].position;
    }
    EXPECT_EQ(got, expected);
  }
}

TEST(AnalyzerTest, HyphenatedEnglishCompoundsAreWordsNotIdentifiers) {
  // Letters-only hyphenated compounds give their parts only, stopwords removed, positions kept.
  EXPECT_THAT(Analyze("see state-of-the-art now"),
              ElementsAre(Tok{"see", 0}, Tok{"state", 1}, Tok{"art", 4}, Tok{"now", 5}));
  EXPECT_THAT(Analyze("T-cell counts"), ElementsAre(Tok{"t", 0}, Tok{"cell", 1}, Tok{"count", 2}));
  // A digit, or any other joiner, makes it an identifier again.
  EXPECT_THAT(Analyze("IL-6 levels"),
              ElementsAre(Tok{"il-6", 0}, Tok{"il", 0}, Tok{"6", 1}, Tok{"level", 2}));
  EXPECT_THAT(Analyze("wal-sender_proc"),
              ElementsAre(Tok{"wal-sender_proc", 0}, Tok{"wal", 0}, Tok{"sender", 1}, Tok{"proc", 2}));
}

TEST(AnalyzerTest, TermsIncludeIdentifierWholeAndParts) {
  Analyzer analyzer;
  EXPECT_THAT(analyzer.Terms("the ERR-1234 errors"), ElementsAre("err-1234", "err", "1234", "error"));
}

TEST(AnalyzerTest, IdentifierSplittingCanBeDisabled) {
  AnalyzerOptions o;
  o.split_identifiers = false;
  EXPECT_THAT(Analyze("max_wal_senders ERR-1234", o),
              ElementsAre(Tok{"max_wal_send", 0}, Tok{"err", 1}, Tok{"1234", 2}));
}

TEST(AnalyzerTest, JoinersWithSpacesOrRepeatedDoNotJoin) {
  EXPECT_THAT(Analyze("alpha - beta"), ElementsAre(Tok{"alpha", 0}, Tok{"beta", 1}));
  EXPECT_THAT(Analyze("alpha--beta"), ElementsAre(Tok{"alpha", 0}, Tok{"beta", 1}));
  // A sentence-final period is not part of the identifier.
  EXPECT_THAT(Analyze("edit postgresql.conf."),
              ElementsAre(Tok{"edit", 0}, Tok{"postgresql.conf", 1}, Tok{"postgresql", 1}, Tok{"conf", 2}));
}

TEST(AnalyzerTest, OffsetsPointAtSurfaceText) {
  const std::string text = "Set \xEF\xAC\x81le MAX_WAL_SENDERS, then ERR-1234 and John's.";
  Analyzer analyzer;
  std::vector<Token> tokens;
  analyzer.Analyze(text, &tokens);
  auto surface = [&](const Token* t) { return text.substr(t->start, t->end - t->start); };
  ASSERT_NE(Find(tokens, "file"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "file")), "\xEF\xAC\x81le");
  ASSERT_NE(Find(tokens, "max_wal_senders"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "max_wal_senders")), "MAX_WAL_SENDERS");
  ASSERT_NE(Find(tokens, "wal"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "wal")), "WAL");
  ASSERT_NE(Find(tokens, "err-1234"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "err-1234")), "ERR-1234");
  ASSERT_NE(Find(tokens, "1234"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "1234")), "1234");
  ASSERT_NE(Find(tokens, "john"), nullptr);
  EXPECT_EQ(surface(Find(tokens, "john")), "John's");
  for (const Token& t : tokens) {
    EXPECT_LE(t.start, t.end);
    EXPECT_LE(t.end, text.size());
  }
}

TEST(AnalyzerTest, InvalidUtf8DoesNotCrashAndSeparatesWords) {
  const std::string text = "abc\xFF" "def \xC3 ghi \xE2\x82 jkl\xF0\x9F";
  EXPECT_THAT(Analyze(text), ElementsAre(Tok{"abc", 0}, Tok{"def", 1}, Tok{"ghi", 2}, Tok{"jkl", 3}));
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
  Analyzer analyzer;
  std::vector<Token> tokens;
  analyzer.Analyze(all_bytes + all_bytes, &tokens);
  for (const Token& t : tokens) EXPECT_LE(t.end, all_bytes.size() * 2);
  EXPECT_FALSE(tokens.empty());
}

TEST(AnalyzerTest, NonLatinScripts) {
  // Ideographs are segmented by ICU's dictionary; every token is non-empty and inside the text.
  const std::string text = "\xE6\x95\xB0\xE6\x8D\xAE\xE5\xBA\x93\xE5\xA4\x8D\xE5\x88\xB6 caf\xC3\xA9 "
                           "\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0";
  Analyzer analyzer;
  std::vector<Token> tokens;
  analyzer.Analyze(text, &tokens);
  ASSERT_GE(tokens.size(), 3u);
  EXPECT_NE(Find(tokens, "caf\xC3\xA9"), nullptr);
  EXPECT_NE(Find(tokens, "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0"), nullptr);  // folded "москва"
}

TEST(AnalyzerTest, EmptyAndPunctuationOnly) {
  Analyzer analyzer;
  std::vector<Token> tokens;
  EXPECT_EQ(analyzer.Analyze("", &tokens), 0u);
  EXPECT_EQ(analyzer.Analyze("  ... --- ___ !!! ", &tokens), 0u);
  EXPECT_TRUE(tokens.empty());
}

TEST(AnalyzerTest, SharedAcrossThreads) {
  Analyzer analyzer;
  const std::string text = "Replication slots keep max_wal_senders connections running, caf\xC3\xA9.";
  std::vector<Token> expected;
  analyzer.Analyze(text, &expected);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<Token> got;
        analyzer.Analyze(text, &got);
        bool same = got.size() == expected.size();
        for (size_t k = 0; same && k < got.size(); ++k) same = got[k].term == expected[k].term;
        ok[t] += same ? 1 : 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ok[t], 200);
}

}  // namespace
}  // namespace attest
