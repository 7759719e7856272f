// Chunk spans (text/chunker.h): property tests on random structured documents, and the rule that
// a definition entry is not split across chunks unless it alone exceeds max_tokens.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/strings.h"
#include "text/chunker.h"

namespace attest {
namespace {

Block Make(BlockKind kind, std::string text, std::string subject = "", int level = 0) {
  return Block{kind, level, std::move(text), std::move(subject)};
}

// A sentence of `words` words whose first word is the unique tag "wN".
std::string Sentence(int* id, int words) {
  static const char* kWords[] = {"sets", "the", "default", "value", "of", "server", "mode", "standby", "index"};
  std::string s = "W" + std::to_string((*id)++);
  for (int i = 1; i < words; ++i) s += std::string(" ") + kWords[(*id + i) % 9];
  return s + ".";
}

std::string Paragraph(std::mt19937* rng, int* id, int max_sentences) {
  std::string p;
  const int n = 1 + static_cast<int>((*rng)() % max_sentences);
  for (int i = 0; i < n; ++i) p += (p.empty() ? "" : " ") + Sentence(id, 4 + static_cast<int>((*rng)() % 20));
  return p;
}

SpanRole RoleOfKind(BlockKind k) {
  switch (k) {
    case BlockKind::kHeading: return SpanRole::kHeading;
    case BlockKind::kListItem: return SpanRole::kListItem;
    case BlockKind::kCode: return SpanRole::kCode;
    case BlockKind::kDefinition: return SpanRole::kDefinition;
    case BlockKind::kTable:
    case BlockKind::kTableRow: return SpanRole::kTableRow;
    default: return SpanRole::kText;
  }
}

// A random documentation page: headings, prose, definition lists (term line + 1..4 paragraphs,
// sometimes a code block), headed table rows, list items; `long_entries` adds descriptions far
// beyond max_tokens.
ParsedDocument RandomPage(std::mt19937* rng, bool long_entries) {
  ParsedDocument doc;
  int id = 0;
  int term = 0;
  for (int section = 0; section < 4; ++section) {
    doc.blocks.push_back(Make(BlockKind::kHeading, "Section " + std::to_string(section), "", 2));
    doc.blocks.push_back(Make(BlockKind::kParagraph, Paragraph(rng, &id, 4)));
    const int entries = 3 + static_cast<int>((*rng)() % 12);
    for (int e = 0; e < entries; ++e) {
      const std::string subject = "opt.name" + std::to_string(term++);
      doc.blocks.push_back(Make(BlockKind::kDefinition, subject, subject));
      const int paras = 1 + static_cast<int>((*rng)() % (long_entries && e % 3 == 0 ? 30 : 4));
      for (int p = 0; p < paras; ++p) doc.blocks.push_back(Make(BlockKind::kDefinition, Paragraph(rng, &id, 5), subject));
      if ((*rng)() % 4 == 0) doc.blocks.push_back(Make(BlockKind::kCode, "git config " + subject + " value", subject));
    }
    for (int r = 0; r < 3; ++r) {
      const std::string row = "row" + std::to_string(term++);
      doc.blocks.push_back(Make(BlockKind::kTableRow, "Name: " + row + " | Default: " + std::to_string(r), row));
    }
    doc.blocks.push_back(Make(BlockKind::kListItem, Paragraph(rng, &id, 2)));
    doc.blocks.push_back(Make(BlockKind::kListItem, Paragraph(rng, &id, 2)));
  }
  return doc;
}

// Spans are ordered, disjoint, inside the text, and each is (part of) the text of a block with
// that role and subject; the bridge headings the chunker adds are headings without subject.
void CheckSpans(const ParsedDocument& doc, const std::vector<TextChunk>& chunks) {
  for (const TextChunk& c : chunks) {
    ASSERT_FALSE(c.spans.empty()) << c.text;
    uint32_t previous_end = 0;
    for (const ChunkSpan& s : c.spans) {
      ASSERT_LE(previous_end, s.begin);
      ASSERT_LT(s.begin, s.end);
      ASSERT_LE(s.end, c.text.size());
      previous_end = s.end;
      const std::string text = c.text.substr(s.begin, s.end - s.begin);
      EXPECT_EQ(Trim(text), text);
      bool found = false;
      for (const Block& b : doc.blocks) {
        const std::string block_text = b.kind == BlockKind::kHeading ? b.text : std::string(Trim(b.text));
        if (b.subject == s.subject && RoleOfKind(b.kind) == s.role && block_text.find(text) != std::string::npos) {
          found = true;
          break;
        }
      }
      if (!found) {
        EXPECT_EQ(s.role, SpanRole::kHeading) << text;  // a bridge heading: a section path tail
        EXPECT_EQ(s.subject, "") << text;
      }
    }
    // Only separators lie between spans.
    size_t at = 0;
    for (const ChunkSpan& s : c.spans) {
      EXPECT_EQ(Trim(std::string_view(c.text).substr(at, s.begin - at)), "") << c.text;
      at = s.end;
    }
    EXPECT_EQ(at, c.text.size());
  }
}

TEST(ChunkSpans, RandomPagesHaveExactSpansAndWholeEntries) {
  std::mt19937 rng(12);
  for (int round = 0; round < 40; ++round) {
    const ParsedDocument doc = RandomPage(&rng, /*long_entries=*/false);
    const ChunkerOptions options;
    const std::vector<TextChunk> chunks = ChunkDocument(doc, options);
    ASSERT_FALSE(chunks.empty());
    CheckSpans(doc, chunks);
    // An entry that fits in max_tokens has all its text in one chunk.
    std::map<std::string, uint32_t> entry_tokens;
    for (const Block& b : doc.blocks) {
      if (!b.subject.empty()) entry_tokens[b.subject] += CountWordTokens(b.text);
    }
    std::map<std::string, std::set<uint32_t>> chunks_of;
    for (const TextChunk& c : chunks) {
      EXPECT_LE(c.token_count, options.max_tokens);
      for (const ChunkSpan& s : c.spans) {
        if (!s.subject.empty()) chunks_of[s.subject].insert(c.ordinal);
      }
    }
    size_t whole = 0;
    for (const auto& [subject, in] : chunks_of) {
      if (entry_tokens[subject] > options.max_tokens) continue;
      EXPECT_EQ(in.size(), 1u) << subject << " round " << round;
      ++whole;
    }
    EXPECT_GT(whole, 10u);
  }
}

TEST(ChunkSpans, AnEntryLongerThanMaxTokensIsSplitAndItsPartsKeepTheSubject) {
  std::mt19937 rng(7);
  for (int round = 0; round < 10; ++round) {
    const ParsedDocument doc = RandomPage(&rng, /*long_entries=*/true);
    const std::vector<TextChunk> chunks = ChunkDocument(doc);
    CheckSpans(doc, chunks);
    for (const TextChunk& c : chunks) EXPECT_LE(c.token_count, ChunkerOptions{}.max_tokens);
  }
}

// A description that continues in the next chunk starts with its overlap sentences, which keep
// the subject of the entry they come from.
TEST(ChunkSpans, OverlapSentencesCarryTheirSpan) {
  ParsedDocument doc;
  int id = 0;
  std::string long_text;
  for (int i = 0; i < 60; ++i) long_text += (long_text.empty() ? "" : " ") + Sentence(&id, 12);
  doc.blocks = {Make(BlockKind::kDefinition, "core.eol", "core.eol"),
                Make(BlockKind::kDefinition, long_text, "core.eol")};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_GE(chunks.size(), 2u);
  CheckSpans(doc, chunks);
  for (size_t i = 1; i < chunks.size(); ++i) {
    ASSERT_EQ(chunks[i].spans.size(), 1u);  // the overlap and the rest of the paragraph: one span
    EXPECT_EQ(chunks[i].spans[0].subject, "core.eol");
    EXPECT_EQ(chunks[i].spans[0].begin, 0u);
    EXPECT_EQ(chunks[i].spans[0].end, chunks[i].text.size());
  }
}

TEST(ChunkSpans, PlainParagraphDocumentsHaveNoSpans) {
  ParsedDocument doc;
  std::mt19937 rng(3);
  int id = 0;
  for (int i = 0; i < 30; ++i) doc.blocks.push_back(Make(BlockKind::kParagraph, Paragraph(&rng, &id, 6)));
  for (const TextChunk& c : ChunkDocument(doc)) EXPECT_TRUE(c.spans.empty());
}

TEST(ChunkSpans, SmallPageSpansAndSubjectAt) {
  ParsedDocument doc;
  doc.blocks = {Make(BlockKind::kHeading, "Options", "", 2), Make(BlockKind::kParagraph, "Intro text."),
                Make(BlockKind::kDefinition, "--onto <newbase>", "--onto <newbase>"),
                Make(BlockKind::kDefinition, "Starting point. The default is upstream.", "--onto <newbase>"),
                Make(BlockKind::kListItem, "one", "--onto <newbase>"), Make(BlockKind::kListItem, "two")};
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_EQ(chunks.size(), 1u);
  const TextChunk& c = chunks[0];
  EXPECT_EQ(c.text, "Intro text.\n\n--onto <newbase>\n\nStarting point. The default is upstream.\n\none\ntwo");
  ASSERT_EQ(c.spans.size(), 5u);
  EXPECT_EQ(c.spans[0].role, SpanRole::kText);
  EXPECT_EQ(c.spans[1].role, SpanRole::kDefinition);
  EXPECT_EQ(c.text.substr(c.spans[2].begin, c.spans[2].end - c.spans[2].begin),
            "Starting point. The default is upstream.");
  EXPECT_EQ(c.spans[3].role, SpanRole::kListItem);
  EXPECT_EQ(c.spans[3].subject, "--onto <newbase>");
  EXPECT_EQ(c.spans[4].subject, "");
  const size_t def = c.text.find("The default");
  EXPECT_EQ(SubjectAt(c.spans, def), "--onto <newbase>");
  EXPECT_EQ(SubjectAt(c.spans, 0), "");
  EXPECT_EQ(SubjectAt(c.spans, c.text.find("\n\nStarting")), "");  // a separator
  EXPECT_EQ(SubjectAt(c.spans, c.text.size()), "");
  EXPECT_EQ(SubjectAt({}, 3), "");
  EXPECT_EQ(SpanAt(c.spans, def), &c.spans[2]);
  EXPECT_EQ(SpanRoleName(SpanRole::kTableRow), "table_row");
}

// A short chunk that runs into the next section shows that section's heading once, not before
// each of its paragraphs (each later paragraph also ended the chunk once it had min_tokens).
TEST(ChunkSpans, Regression_ABridgeHeadingIsAddedOnce) {
  ParsedDocument doc;
  int id = 0;
  doc.blocks = {Make(BlockKind::kHeading, "First", "", 2), Make(BlockKind::kParagraph, Sentence(&id, 20)),
                Make(BlockKind::kHeading, "Second", "", 2)};
  for (int i = 0; i < 8; ++i) doc.blocks.push_back(Make(BlockKind::kParagraph, Sentence(&id, 30)));
  const std::vector<TextChunk> chunks = ChunkDocument(doc);
  ASSERT_FALSE(chunks.empty());
  const std::string& text = chunks[0].text;
  EXPECT_EQ(text.find("Second"), text.rfind("Second")) << text;
  EXPECT_EQ(chunks.size(), 1u) << text;
}

}  // namespace
}  // namespace attest
