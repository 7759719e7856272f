#include "text/sentence_splitter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attest {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Sentences(std::string_view text) {
  std::vector<std::string> out;
  for (const SentenceSpan& s : SplitSentences(text)) {
    EXPECT_LT(s.start, s.end);
    EXPECT_LE(s.end, text.size());
    out.emplace_back(text.substr(s.start, s.end - s.start));
  }
  return out;
}

TEST(SentenceSplitterTest, SplitsRealSentenceEnds) {
  EXPECT_THAT(Sentences("The server starts. It reads the config! Does it fail? No."),
              ElementsAre("The server starts.", "It reads the config!", "Does it fail?", "No."));
}

TEST(SentenceSplitterTest, SpansExcludeSurroundingWhitespace) {
  const std::string text = "   First one.   Second one.  \n ";
  const std::vector<SentenceSpan> spans = SplitSentences(text);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].start, 3u);
  EXPECT_EQ(text.substr(spans[0].start, spans[0].end - spans[0].start), "First one.");
  EXPECT_EQ(text.substr(spans[1].start, spans[1].end - spans[1].start), "Second one.");
}

TEST(SentenceSplitterTest, TitlesDoNotSplit) {
  EXPECT_THAT(Sentences("Dr. Smith arrived at 3 p.m. on Monday. Mr. Jones and Mrs. Lee left."),
              ElementsAre("Dr. Smith arrived at 3 p.m. on Monday.", "Mr. Jones and Mrs. Lee left."));
  EXPECT_THAT(Sentences("We met Prof. Knuth and Ms. Hopper. Then lunch."),
              ElementsAre("We met Prof. Knuth and Ms. Hopper.", "Then lunch."));
}

TEST(SentenceSplitterTest, LatinAbbreviationsDoNotSplit) {
  EXPECT_THAT(Sentences("Use a tool, e.g. Postgres, for this. Other engines, i.e. MySQL, differ."),
              ElementsAre("Use a tool, e.g. Postgres, for this.", "Other engines, i.e. MySQL, differ."));
  EXPECT_THAT(Sentences("Compare Fig. 3 with the text, cf. Smith et al. 2019. Done."),
              ElementsAre("Compare Fig. 3 with the text, cf. Smith et al. 2019.", "Done."));
}

TEST(SentenceSplitterTest, DottedAcronymsAndInitialsDoNotSplit) {
  EXPECT_THAT(Sentences("The U.S. Army and the U.K. Navy met. J. R. Smith wrote it."),
              ElementsAre("The U.S. Army and the U.K. Navy met.", "J. R. Smith wrote it."));
}

TEST(SentenceSplitterTest, TimesDoNotSplitBeforeLowercaseOrDigits) {
  EXPECT_THAT(Sentences("It ran at 9 a.m. and stopped at 5 p.m. every day. See No. 5 for more."),
              ElementsAre("It ran at 9 a.m. and stopped at 5 p.m. every day.", "See No. 5 for more."));
}

// Documented choice: "etc." followed by a capitalised word ends the sentence.
TEST(SentenceSplitterTest, EtcBeforeCapitalEndsSentence) {
  EXPECT_THAT(Sentences("Tables, indexes, etc. The next step is vacuum."),
              ElementsAre("Tables, indexes, etc.", "The next step is vacuum."));
  EXPECT_THAT(Sentences("Tables, indexes, etc. are stored on disk."),
              ElementsAre("Tables, indexes, etc. are stored on disk."));
}

TEST(SentenceSplitterTest, SingleLineBreaksAreNotSentenceEnds) {
  EXPECT_THAT(Sentences("This line is hard\nwrapped in the middle. Next\r\nsentence here.\n\nNew paragraph"),
              ElementsAre("This line is hard\nwrapped in the middle.", "Next\r\nsentence here.", "New paragraph"));
}

TEST(SentenceSplitterTest, EmptyAndWhitespaceOnly) {
  EXPECT_TRUE(SplitSentences("").empty());
  EXPECT_TRUE(SplitSentences(" \n\t  ").empty());
  EXPECT_THAT(Sentences("no terminal punctuation"), ElementsAre("no terminal punctuation"));
}

TEST(SentenceSplitterTest, InvalidUtf8IsHandled) {
  const std::string text = "Bad \xFF\xFE bytes here. Then \xC3 more. End \xE2\x82";
  std::vector<std::string> s = Sentences(text);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "Bad \xFF\xFE bytes here.");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (const SentenceSpan& sp : SplitSentences(all + ". " + all)) EXPECT_LE(sp.end, all.size() * 2 + 2);
}

TEST(SentenceSplitterTest, NonAsciiText) {
  EXPECT_THAT(Sentences("Caf\xC3\xA9 is open. \xC3\x9C" "ber alles."),
              ElementsAre("Caf\xC3\xA9 is open.", "\xC3\x9C" "ber alles."));
}

TEST(SentenceSplitterTest, SpansAreOrderedAndDisjoint) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "Sentence number " + std::to_string(i) + " ends here. ";
  const std::vector<SentenceSpan> spans = SplitSentences(text);
  EXPECT_EQ(spans.size(), 200u);
  for (size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].end, spans[i].start);
}

}  // namespace
}  // namespace attest
