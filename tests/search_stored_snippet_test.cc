// Snippets from the segment's stored body tokens (format version 4) against their exact oracle,
// MakeSnippet over a fresh analysis of the text: the same text, highlights and window for every
// chunk and query, including identifiers (whose parts share or follow the whole's start), URLs,
// accents, stopwords and repeated terms; a version 3 segment (no stored tokens) and stored tokens
// that do not fit the text fall back to analysis.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "lexical/segment.h"
#include "lexical/segment_impl.h"
#include "lexical/segment_writer.h"
#include "search/snippet.h"
#include "search/stored_snippet.h"
#include "text/analyzer.h"

namespace attest {
namespace {

const std::vector<std::string>& Words() {
  static const std::vector<std::string> w = {
      "the", "of", "Replication", "replicas", "slot", "slots", "logical", "WAL", "max_wal_senders", "pg_stat_activity",
      "HTTPServer", "parseJSONResponse", "café", "naïve", "Straße", "über", "https://example.org/a?b=c", "v1.2.3",
      "x86_64", "e-mail", "don't", "(see", "below)", "1,000", "42", "—", "running", "runs", "ran", "index", "indexes",
      "indices", "CREATE", "INDEX", "CONCURRENTLY", "vacuum", "freeze", "autovacuum_naptime", "\n\n", "\t", ";", ":"};
  return w;
}

std::string RandomText(std::mt19937& rng, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i) {
    if (!s.empty()) s += rng() % 5 == 0 ? ". " : " ";
    s += Words()[rng() % Words().size()];
  }
  return s;
}

struct Built {
  std::vector<std::string> texts;  // text of chunk id i + 1
  std::shared_ptr<const Segment> segment;
};

Built Build(const Analyzer& analyzer, uint32_t version, std::mt19937& rng, size_t n) {
  Built b;
  SegmentWriter w(version);
  for (size_t i = 0; i < n; ++i) {
    b.texts.push_back(RandomText(rng, 1 + rng() % 120));
    IndexedChunk c;
    c.id = ChunkId(i + 1);
    AnalyzedField& body = c.fields[static_cast<int>(Field::kBody)];
    body.length = analyzer.Analyze(b.texts.back(), &body.tokens);
    EXPECT_TRUE(w.Add(c).ok());
  }
  auto seg = Segment::FromBytes(w.Serialize());
  EXPECT_TRUE(seg.ok()) << seg.status().message();
  b.segment = *seg;
  return b;
}

void ExpectSame(const Snippet& a, const Snippet& b, const std::string& context) {
  EXPECT_EQ(a.text, b.text) << context;
  ASSERT_EQ(a.highlights.size(), b.highlights.size()) << context;
  for (size_t i = 0; i < a.highlights.size(); ++i) {
    EXPECT_EQ(a.highlights[i].start, b.highlights[i].start) << context;
    EXPECT_EQ(a.highlights[i].end, b.highlights[i].end) << context;
  }
}

TEST(StoredSnippet, EqualsTheSnippetOfAFreshAnalysis) {
  Analyzer analyzer;
  std::mt19937 rng(16);
  const Built b = Build(analyzer, Segment::CurrentFormatVersion(), rng, 300);
  ASSERT_TRUE(b.segment->impl().has_body_tokens());
  const std::vector<SegmentView> views = {SegmentView{SegmentId(1), b.segment, nullptr}};
  size_t with_highlights = 0;
  for (int q = 0; q < 60; ++q) {
    std::unordered_set<std::string> terms;
    for (const std::string& t : analyzer.Terms(RandomText(rng, 1 + rng() % 6))) terms.insert(t);
    const size_t max_words = 5 + rng() % 40;
    HitSnippets snippets(views, terms, analyzer, max_words);
    for (size_t i = 0; i < b.texts.size(); i += 1 + rng() % 7) {
      const Snippet stored = snippets.Make(ChunkId(i + 1), b.texts[i]);
      const Snippet fresh = MakeSnippet(b.texts[i], terms, analyzer, max_words);
      ExpectSame(stored, fresh, "chunk " + std::to_string(i + 1) + ": " + b.texts[i]);
      with_highlights += fresh.highlights.empty() ? 0 : 1;
    }
    EXPECT_EQ(snippets.analysed(), 0u);
    EXPECT_GT(snippets.from_stored(), 0u);
  }
  EXPECT_GT(with_highlights, 100u);  // the comparison covered snippets that highlight something
}

TEST(StoredSnippet, OlderSegmentsAndTokensThatDoNotFitTheTextAreAnalysed) {
  Analyzer analyzer;
  std::mt19937 rng(17);
  const Built v3 = Build(analyzer, 3, rng, 20);
  EXPECT_FALSE(v3.segment->impl().has_body_tokens());
  EXPECT_EQ(v3.segment->impl().version(), 3u);
  std::unordered_set<std::string> terms;
  for (const std::string& t : analyzer.Terms("replication slot index vacuum café")) terms.insert(t);
  {
    const std::vector<SegmentView> views = {SegmentView{SegmentId(1), v3.segment, nullptr}};
    HitSnippets snippets(views, terms, analyzer, 12);
    for (size_t i = 0; i < v3.texts.size(); ++i) {
      ExpectSame(snippets.Make(ChunkId(i + 1), v3.texts[i]), MakeSnippet(v3.texts[i], terms, analyzer, 12), v3.texts[i]);
    }
    EXPECT_EQ(snippets.from_stored(), 0u);
    EXPECT_EQ(snippets.analysed(), v3.texts.size());
  }
  // Stored tokens of a longer text than the one given: not trusted.
  const Built v4 = Build(analyzer, Segment::CurrentFormatVersion(), rng, 20);
  const std::vector<SegmentView> views = {SegmentView{SegmentId(1), v4.segment, nullptr}};
  HitSnippets snippets(views, terms, analyzer, 12);
  const std::string cut = "replication slot";
  size_t longest = 0;
  for (size_t i = 1; i < v4.texts.size(); ++i) longest = v4.texts[i].size() > v4.texts[longest].size() ? i : longest;
  ASSERT_GT(v4.texts[longest].size(), cut.size());
  ExpectSame(snippets.Make(ChunkId(longest + 1), cut), MakeSnippet(cut, terms, analyzer, 12), cut);
  EXPECT_EQ(snippets.analysed(), 1u);
  // A chunk no segment holds is analysed too.
  ExpectSame(snippets.Make(ChunkId(999), cut), MakeSnippet(cut, terms, analyzer, 12), cut);
  EXPECT_EQ(snippets.analysed(), 2u);
}

TEST(StoredSnippet, TokensRoundTripThroughTheSegment) {
  Analyzer analyzer;
  std::mt19937 rng(18);
  const Built b = Build(analyzer, Segment::CurrentFormatVersion(), rng, 50);
  const SegmentImpl& seg = b.segment->impl();
  for (size_t i = 0; i < b.texts.size(); ++i) {
    std::vector<Token> tokens;
    analyzer.Analyze(b.texts[i], &tokens);
    size_t k = 0;
    const bool ok = seg.ForEachBodyToken(static_cast<uint32_t>(i), [&](uint32_t term, uint32_t start, uint32_t end) {
      ASSERT_LT(k, tokens.size());
      EXPECT_EQ(seg.term(term), tokens[k].term);
      EXPECT_EQ(start, tokens[k].start);
      EXPECT_EQ(end, tokens[k].end);
      ++k;
    });
    EXPECT_TRUE(ok);
    EXPECT_EQ(k, tokens.size()) << b.texts[i];
  }
}

}  // namespace
}  // namespace attest
