#include "text/chunker.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/sentence_splitter.h"

namespace attest {
namespace {

Block Heading(int level, std::string text) { return Block{BlockKind::kHeading, level, std::move(text)}; }
Block Para(std::string text) { return Block{BlockKind::kParagraph, 0, std::move(text)}; }

// A sentence of exactly `words` words; the first word is a unique tag "sN".
std::string MakeSentence(int id, int words) {
  static const char* kWords[] = {"replication", "server", "stream", "apply", "worker", "standby", "commit",
                                 "index", "vacuum", "table", "query", "planner", "buffer", "checkpoint"};
  std::string s = "S" + std::to_string(id);
  for (int i = 1; i < words; ++i) s += std::string(" ") + kWords[(id * 7 + i) % 14];
  return s + ".";
}

// A paragraph of `sentences` sentences of 8..20 words; `next_id` numbers the sentences.
std::string MakeParagraph(std::mt19937* rng, int sentences, int* next_id) {
  std::string p;
  for (int i = 0; i < sentences; ++i) {
    if (!p.empty()) p += " ";
    p += MakeSentence((*next_id)++, 8 + static_cast<int>((*rng)() % 13));
  }
  return p;
}

TEST(ChunkerTest, CountWordTokens) {
  EXPECT_EQ(CountWordTokens("Hello, world! max_wal_senders 15.4 -- ..."), 4u);
  EXPECT_EQ(CountWordTokens(""), 0u);
  EXPECT_EQ(CountWordTokens("caf\xC3\xA9 \xE2\x80\x94 na\xC3\xAFve"), 2u);
}

TEST(ChunkerTest, NoTextNoChunks) {
  ParsedDocument doc;
  EXPECT_TRUE(ChunkDocument(doc).empty());
  doc.blocks = {Para("   "), Para("--- *** ..."), Block{BlockKind::kCode, 0, "{}\n"}};
  EXPECT_TRUE(ChunkDocument(doc).empty());
}

TEST(ChunkerTest, TinyDocumentIsOneChunkWithoutRepeatingHeading) {
  ParsedDocument doc;
  doc.blocks = {Heading(1, "Install Guide"), Para("Run the installer."), Para("Then reboot.")};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].ordinal, 0u);
  EXPECT_EQ(chunks[0].section_path, "Install Guide");
  EXPECT_EQ(chunks[0].text, "Run the installer.\n\nThen reboot.");
  EXPECT_EQ(chunks[0].token_count, 5u);
}

TEST(ChunkerTest, HeadingWithoutBodyIsKeptAsText) {
  ParsedDocument doc;
  doc.blocks = {Heading(1, "Release Notes"), Heading(2, "Version 15.4")};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_NE(chunks[0].text.find("Release Notes"), std::string::npos);
  EXPECT_NE(chunks[0].text.find("Version 15.4"), std::string::npos);
}

TEST(ChunkerTest, SectionPathsFollowHeadingLevels) {
  std::mt19937 rng(1);
  int id = 0;
  ParsedDocument doc;
  doc.blocks = {Heading(1, "Guide"), Heading(2, "Install"), Heading(3, "Linux"), Para(MakeParagraph(&rng, 20, &id)),
                Heading(3, "Windows"), Para(MakeParagraph(&rng, 20, &id)),
                Heading(2, "Configure"), Para(MakeParagraph(&rng, 20, &id))};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  std::vector<std::string> paths;
  for (const TextChunk& c : chunks) {
    if (paths.empty() || paths.back() != c.section_path) paths.push_back(c.section_path);
  }
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0], "Guide > Install > Linux");
  EXPECT_EQ(paths[1], "Guide > Install > Windows");
  EXPECT_EQ(paths[2], "Guide > Configure");
  for (const TextChunk& c : chunks) EXPECT_EQ(c.text.find("Windows"), std::string::npos);  // headings not in body
}

TEST(ChunkerTest, ShortSectionsShareAChunkAndKeepTheirHeadings) {
  ParsedDocument doc;
  doc.blocks = {Heading(1, "Guide"),  Heading(2, "Alpha"), Para("Alpha text here."),
                Heading(2, "Beta"),   Para("Beta text here."), Heading(2, "Gamma"), Para("Gamma text.")};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].section_path, "Guide > Alpha");
  EXPECT_EQ(chunks[0].text, "Alpha text here.\n\nBeta\n\nBeta text here.\n\nGamma\n\nGamma text.");
}

// Checks [min, max] for every chunk but the last one of the document.
void ExpectBounds(const std::vector<TextChunk>& chunks, const ChunkerOptions& o) {
  for (size_t i = 0; i < chunks.size(); ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    EXPECT_EQ(chunks[i].ordinal, i);
    EXPECT_EQ(chunks[i].token_count, CountWordTokens(chunks[i].text));
    EXPECT_LE(chunks[i].token_count, o.max_tokens);
    if (i + 1 < chunks.size()) {
      EXPECT_GE(chunks[i].token_count, o.min_tokens);
    }
  }
}

TEST(ChunkerTest, LongGeneratedDocumentsStayWithinBounds) {
  const ChunkerOptions options;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    int id = 0;
    ParsedDocument doc;
    for (int section = 0; section < 5; ++section) {
      doc.blocks.push_back(Heading(1 + static_cast<int>(rng() % 3), "Section " + std::to_string(section)));
      const int paragraphs = 6 + static_cast<int>(rng() % 10);
      for (int p = 0; p < paragraphs; ++p) doc.blocks.push_back(Para(MakeParagraph(&rng, 1 + static_cast<int>(rng() % 12), &id)));
    }
    const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
    ASSERT_GE(chunks.size(), 5u);
    ExpectBounds(chunks, options);
    // Every sentence appears in some chunk.
    std::string all;
    for (const TextChunk& c : chunks) all += c.text + "\n";
    for (int s = 0; s < id; ++s) EXPECT_NE(all.find("S" + std::to_string(s) + " "), std::string::npos) << s;
    // Average close to the target.
    uint64_t total = 0;
    for (const TextChunk& c : chunks) total += c.token_count;
    EXPECT_GE(total / chunks.size(), 200u);
  }
}

TEST(ChunkerTest, LongParagraphSplitsOnSentences) {
  std::mt19937 rng(5);
  int id = 0;
  ParsedDocument doc;
  doc.blocks = {Para(MakeParagraph(&rng, 150, &id))};  // ~2100 words in one block
  const ChunkerOptions options;
  const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
  ASSERT_GE(chunks.size(), 5u);
  ExpectBounds(chunks, options);
  for (const TextChunk& c : chunks) {
    // Chunks start at a sentence start and end at a sentence end.
    EXPECT_EQ(c.text[0], 'S') << c.text.substr(0, 40);
    EXPECT_EQ(c.text.back(), '.');
  }
}

TEST(ChunkerTest, OverlapRepeatsWholeTrailingSentencesWithinSection) {
  std::mt19937 rng(9);
  int id = 0;
  ParsedDocument doc;
  doc.blocks.push_back(Heading(1, "One"));
  for (int p = 0; p < 12; ++p) doc.blocks.push_back(Para(MakeParagraph(&rng, 6, &id)));
  doc.blocks.push_back(Heading(1, "Two"));
  for (int p = 0; p < 12; ++p) doc.blocks.push_back(Para(MakeParagraph(&rng, 6, &id)));
  const ChunkerOptions options;
  const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
  ASSERT_GE(chunks.size(), 4u);
  int overlaps = 0;
  for (size_t i = 1; i < chunks.size(); ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    const std::string& prev = chunks[i - 1].text;
    const std::string& cur = chunks[i].text;
    // The first sentence of this chunk: is it also in the previous chunk?
    const std::vector<SentenceSpan> spans = SplitSentences(cur);
    ASSERT_FALSE(spans.empty());
    const std::string first = cur.substr(spans[0].start, spans[0].end - spans[0].start);
    const size_t at = prev.find(first);
    if (chunks[i].section_path != chunks[i - 1].section_path) {
      EXPECT_EQ(at, std::string::npos) << "overlap across sections";
      continue;
    }
    ASSERT_NE(at, std::string::npos) << "no overlap within a section";
    // The repeated text is a whole-sentence suffix of the previous chunk of at most overlap_tokens.
    const std::string repeated = prev.substr(at);
    EXPECT_EQ(cur.compare(0, repeated.size(), repeated), 0);
    EXPECT_LE(CountWordTokens(repeated), options.overlap_tokens);
    EXPECT_GT(CountWordTokens(repeated), 0u);
    ++overlaps;
  }
  EXPECT_GE(overlaps, 2);
}

TEST(ChunkerTest, NoOverlapWhenDisabled) {
  std::mt19937 rng(3);
  int id = 0;
  ParsedDocument doc;
  for (int p = 0; p < 20; ++p) doc.blocks.push_back(Para(MakeParagraph(&rng, 5, &id)));
  ChunkerOptions options;
  options.overlap_tokens = 0;
  const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
  ASSERT_GE(chunks.size(), 2u);
  uint32_t total = 0;
  for (const TextChunk& c : chunks) total += c.token_count;
  uint32_t source = 0;
  for (const Block& b : doc.blocks) source += CountWordTokens(b.text);
  EXPECT_EQ(total, source);
}

TEST(ChunkerTest, SentenceLongerThanMaxSplitsOnWords) {
  std::string words;
  for (int i = 0; i < 1000; ++i) words += "w" + std::to_string(i) + " ";
  ParsedDocument doc;
  doc.blocks = {Para(words)};
  const ChunkerOptions options;
  const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
  ASSERT_GE(chunks.size(), 3u);
  ExpectBounds(chunks, options);
  EXPECT_EQ(chunks[0].text.rfind("w0 w1 ", 0), 0u);
}

TEST(ChunkerTest, CodeBlocksStayWholeUnlessTooLong) {
  std::mt19937 rng(11);
  int id = 0;
  std::string code;
  for (int i = 0; i < 15; ++i) code += "SELECT col" + std::to_string(i) + " FROM pg_stat_replication WHERE x = 1;\n";
  ParsedDocument doc;
  doc.blocks = {Para(MakeParagraph(&rng, 8, &id)), Block{BlockKind::kCode, 0, code}, Para(MakeParagraph(&rng, 8, &id))};
  std::vector<TextChunk> chunks = ChunkDocument(doc);
  bool whole = false;
  for (const TextChunk& c : chunks) whole |= c.text.find(code) != std::string::npos;
  EXPECT_TRUE(whole);

  std::string big;
  for (int i = 0; i < 120; ++i) big += "| row" + std::to_string(i) + " | alpha beta | gamma delta |\n";
  doc.blocks = {Block{BlockKind::kTable, 0, big}};
  const ChunkerOptions options;
  chunks = ChunkDocument(doc, options);
  ASSERT_GE(chunks.size(), 2u);
  ExpectBounds(chunks, options);
  for (int i = 0; i < 120; ++i) {
    const std::string line = "| row" + std::to_string(i) + " | alpha beta | gamma delta |";
    bool found = false;
    for (const TextChunk& c : chunks) found |= c.text.find(line) != std::string::npos;
    EXPECT_TRUE(found) << line;
  }
}

TEST(ChunkerTest, ListItemsJoinWithNewlines) {
  ParsedDocument doc;
  doc.blocks = {Para("Steps:"), Block{BlockKind::kListItem, 0, "Stop the server"},
                Block{BlockKind::kListItem, 0, "Edit postgresql.conf"}};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "Steps:\n\nStop the server\nEdit postgresql.conf");
}

}  // namespace
}  // namespace attest
