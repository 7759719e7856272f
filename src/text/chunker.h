// Splits a parsed document into retrieval chunks on heading and paragraph boundaries.
//
// Chunks aim at `target_tokens` (default 300) and stay within [min_tokens, max_tokens] (200..400)
// where the text allows it: a heading starts a new chunk when the current one has at least
// min_tokens; paragraphs are packed greedily; a paragraph longer than max_tokens is split on ICU
// sentence boundaries (and a sentence longer than max_tokens on word boundaries). Consecutive
// chunks of the same section overlap by up to `overlap_tokens` worth of whole trailing sentences.
// Each chunk carries its section path ("Chapter > Section > Subsection") from the headings.
// Token counts here are word counts (ICU word breaks, letters/numbers only).
#pragma once

#include <cstdint>
#include <string>
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
};

struct TextChunk {
  uint32_t ordinal = 0;       // 0-based position within the document
  std::string section_path;   // headings joined with " > ", empty when none
  std::string text;           // body text, blocks joined by "\n\n"
  uint32_t token_count = 0;
  std::vector<ChunkSpan> spans;  // empty for documents without markup (e.g. BEIR JSONL)
};

std::vector<TextChunk> ChunkDocument(const ParsedDocument& doc, const ChunkerOptions& options = {});

// Number of word tokens in `text` as counted by the chunker.
uint32_t CountWordTokens(std::string_view text);

}  // namespace attest
