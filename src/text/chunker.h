// Splits a parsed document into retrieval chunks on heading and paragraph boundaries.
//
// Chunks aim at `target_tokens` (default 300) and stay within [min_tokens, max_tokens] (200..400)
// where the text allows it: a heading starts a new chunk when the current one has at least
// min_tokens; paragraphs are packed greedily; a paragraph longer than max_tokens is split on ICU
// sentence boundaries (and a sentence longer than max_tokens on word boundaries). Consecutive
// chunks of the same section overlap by up to `overlap_tokens` worth of whole trailing sentences.
// Each chunk carries its section path ("Chapter > Section > Subsection") from the headings.
//
// Structure: a definition entry (consecutive blocks with the same non-empty Block::subject: a
// term and its description, a table row) is not split across chunks unless it alone exceeds
// max_tokens: one that would not fit in the current chunk starts the next, and a chunk past its
// target is not ended inside an entry whose rest still fits; overlap never crosses into another
// entry. Each chunk records its spans: for every block in it, the byte range of its text (or of
// its part in this chunk; overlap sentences carry their block's span), with role and subject.
// Documents made only of paragraphs without subjects (BEIR JSONL, plain prose) get no spans and
// chunk exactly as before.
// Token counts here are word counts (ICU word breaks, letters/numbers only).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/document.h"

namespace attest {

struct ChunkerOptions {
  uint32_t min_tokens = 200;
  uint32_t target_tokens = 300;
  uint32_t max_tokens = 400;
  uint32_t overlap_tokens = 40;
};

// The structural role of a span of chunk text (docs/formats.md, "chunk structure").
enum class SpanRole : uint8_t { kText = 0, kHeading = 1, kDefinition = 2, kTableRow = 3, kListItem = 4, kCode = 5 };

// A byte range [begin, end) of `TextChunk::text` that came from one block, with the subject the
// block is about ("" = the chunk's innermost heading). Spans are in order and do not overlap.
struct ChunkSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
  SpanRole role = SpanRole::kText;
  std::string subject;
  bool operator==(const ChunkSpan&) const = default;
};

struct TextChunk {
  uint32_t ordinal = 0;       // 0-based position within the document
  std::string section_path;   // headings joined with " > ", empty when none
  std::string text;           // body text, blocks joined by "\n\n"
  uint32_t token_count = 0;
  std::vector<ChunkSpan> spans;  // empty for documents without markup (e.g. BEIR JSONL)
};

// The span of `spans` (ordered, as in TextChunk::spans) that holds byte `offset` of the chunk
// text, or nullptr (a separator between blocks, or a chunk without spans).
const ChunkSpan* SpanAt(std::span<const ChunkSpan> spans, size_t offset);

// What byte `offset` of the chunk text is about: its span's subject, else "" (the section path's
// innermost heading is then the context).
std::string_view SubjectAt(std::span<const ChunkSpan> spans, size_t offset);

// "text", "heading", "definition", "table_row", "list_item", "code".
std::string_view SpanRoleName(SpanRole role);

std::vector<TextChunk> ChunkDocument(const ParsedDocument& doc, const ChunkerOptions& options = {});

// Number of word tokens in `text` as counted by the chunker.
uint32_t CountWordTokens(std::string_view text);

}  // namespace attest
