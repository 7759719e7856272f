// CitationStreamParser: marker grammar, held-back prefixes, dropped markers, sentence events, and
// the property that any split of the input into deltas yields the same events as one chunk.
#include "write/citation_stream.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace attest {
namespace {

using Kind = CitationStreamEvent::Kind;

std::vector<CitationStreamEvent> Coalesce(std::vector<CitationStreamEvent> in) {
  std::vector<CitationStreamEvent> out;
  for (auto& e : in) {
    if (e.kind == Kind::kText && !out.empty() && out.back().kind == Kind::kText) {
      out.back().text += e.text;
    } else {
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<CitationStreamEvent> Parse(const std::vector<std::string>& deltas, int pack = 3) {
  std::vector<std::string> ids;
  for (int i = 1; i <= pack; ++i) ids.push_back("S" + std::to_string(i));
  CitationStreamParser p(ids);
  std::vector<CitationStreamEvent> out;
  for (const auto& d : deltas) p.Feed(d, &out);
  p.Finish(&out);
  return Coalesce(std::move(out));
}

std::string Text(const std::vector<CitationStreamEvent>& ev) {
  std::string s;
  for (const auto& e : ev) {
    if (e.kind == Kind::kText) s += e.text;
  }
  return s;
}

std::vector<CitationStreamEvent> Sentences(const std::vector<CitationStreamEvent>& ev) {
  std::vector<CitationStreamEvent> s;
  for (const auto& e : ev) {
    if (e.kind == Kind::kSentenceDone) s.push_back(e);
  }
  return s;
}

TEST(CitationStream, MarkersAreRemovedAndAttachedToTheirSentence) {
  auto ev = Parse({"The Nova 3 has a 5,000 mAh battery [1]. It ships in May [S2][3]. Price is unknown."});
  EXPECT_EQ(Text(ev), "The Nova 3 has a 5,000 mAh battery. It ships in May. Price is unknown.");
  auto s = Sentences(ev);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].text, "The Nova 3 has a 5,000 mAh battery.");
  EXPECT_EQ(s[0].cites, (std::vector<std::string>{"S1"}));
  EXPECT_EQ(s[1].text, "It ships in May.");
  EXPECT_EQ(s[1].cites, (std::vector<std::string>{"S2", "S3"}));
  EXPECT_TRUE(s[2].cites.empty());
}

TEST(CitationStream, ListMarkersAndMarkersAfterThePeriod) {
  auto ev = Parse({"Alpha is first.[1, 3] Beta is second. [ s2 ,1 ] gamma continues? Yes [2]"});
  auto s = Sentences(ev);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].cites, (std::vector<std::string>{"S1", "S3"}));
  // "gamma" starts lowercase: the sentence after "second." continues (e.g. abbreviations).
  EXPECT_EQ(s[1].text, "Beta is second. gamma continues?");
  EXPECT_EQ(s[1].cites, (std::vector<std::string>{"S2", "S1"}));
  EXPECT_EQ(s[2].text, "Yes");
  EXPECT_EQ(s[2].cites, (std::vector<std::string>{"S2"}));
  // Citation events carry the pack id and the marker as written (normalised).
  std::vector<std::string> markers;
  for (const auto& e : ev) {
    if (e.kind == Kind::kCitation) markers.push_back(e.marker + "=" + e.source);
  }
  EXPECT_EQ(markers, (std::vector<std::string>{"[1]=S1", "[3]=S3", "[S2]=S2", "[1]=S1", "[2]=S2"}));
}

TEST(CitationStream, BracketsThatAreNotMarkersStayText) {
  auto ev = Parse({"See [note] and [1a] and [] and [ ] and a[b]c and [S] x [12345] y [1,] z [1 2]."});
  EXPECT_EQ(Text(ev), "See [note] and [1a] and [] and [ ] and a[b]c and [S] x [12345] y [1,] z [1 2].");
  for (const auto& e : ev) EXPECT_NE(e.kind, Kind::kCitation);
  // A markdown link is text too; a nested "[" restarts the scan.
  ev = Parse({"Read [the docs](http://x) [[2]"});
  EXPECT_EQ(Text(ev), "Read [the docs](http://x) [");
  EXPECT_EQ(Sentences(ev)[0].cites, (std::vector<std::string>{"S2"}));
}

TEST(CitationStream, OutOfPackMarkersAreDroppedAndRecorded) {
  std::vector<std::string> ids = {"S1", "S2"};
  CitationStreamParser p(ids);
  std::vector<CitationStreamEvent> ev;
  p.Feed("Claim one [1][7]. Claim two [S9, 2]. Zero [0].", &ev);
  p.Finish(&ev);
  EXPECT_EQ(p.dropped(), (std::vector<std::string>{"[7]", "[S9]", "[0]"}));
  EXPECT_EQ(p.clean_text(), "Claim one. Claim two. Zero.");
  auto s = Sentences(Coalesce(ev));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].cites, (std::vector<std::string>{"S1"}));
  EXPECT_EQ(s[1].cites, (std::vector<std::string>{"S2"}));
  EXPECT_TRUE(s[2].cites.empty());
  int dropped_events = 0;
  for (const auto& e : ev) dropped_events += e.kind == Kind::kDropped;
  EXPECT_EQ(dropped_events, 3);
}

TEST(CitationStream, NeverEmitsHalfAMarker) {
  std::vector<std::string> ids = {"S1", "S2", "S3"};
  CitationStreamParser p(ids);
  std::vector<CitationStreamEvent> ev;
  const std::string input = "Battery is big [S1, 3]. Done";
  for (char c : input) {
    p.Feed(std::string(1, c), &ev);
    for (const auto& e : ev) {
      if (e.kind == Kind::kText) {
        EXPECT_EQ(e.text.find('['), std::string::npos) << "half a marker shown after '" << c << "'";
      }
    }
  }
  p.Finish(&ev);
  EXPECT_EQ(p.clean_text(), "Battery is big. Done");
  // An unfinished marker at the end of the input is text.
  auto tail = Parse({"The end [2"});
  EXPECT_EQ(Text(tail), "The end [2");
}

TEST(CitationStream, LineBreaksEndSentences) {
  auto s = Sentences(Parse({"Key facts\n- Nova has 5 GB [1]\n- Pro has 8 GB [2]\n\nBoth ship in May [3]."}));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].text, "Key facts");
  EXPECT_EQ(s[1].text, "- Nova has 5 GB");
  EXPECT_EQ(s[1].cites, (std::vector<std::string>{"S1"}));
  EXPECT_EQ(s[2].cites, (std::vector<std::string>{"S2"}));
  EXPECT_EQ(s[3].cites, (std::vector<std::string>{"S3"}));
}

// Property: for random inputs built from markers, near-markers, text and punctuation, every random
// split into deltas yields the same (coalesced) events as feeding the input in one piece.
TEST(CitationStream, AnySplitGivesTheSameEventsAsOneChunk) {
  const std::vector<std::string> atoms = {"[1]", "[S2]", "[1, 3]", "[S1][S3]", "[9]", "[S7]", "[", "]", "[x]",
                                          "[1", "S", " ", "  ", "\n", ".", "!", "?", "\"", ")", "word", "Word",
                                          "lower", "3.5", "e.g.", ",", "[ 2 ]", "[1,", "ü", "[[", "]]"};
  std::mt19937 rng(20240607);
  for (int round = 0; round < 400; ++round) {
    std::string input;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) input += atoms[rng() % atoms.size()];
    const auto whole = Parse({input});
    for (int split = 0; split < 8; ++split) {
      std::vector<std::string> deltas;
      size_t at = 0;
      while (at < input.size()) {
        const size_t len = 1 + rng() % 5;
        deltas.push_back(input.substr(at, len));
        at += len;
      }
      ASSERT_EQ(Parse(deltas), whole) << "input: " << input;
    }
    // Byte-by-byte as well.
    std::vector<std::string> bytes;
    for (char c : input) bytes.emplace_back(1, c);
    ASSERT_EQ(Parse(bytes), whole) << "input: " << input;
  }
}

}  // namespace
}  // namespace attest
