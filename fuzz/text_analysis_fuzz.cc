// Fuzz target: the analyzer, the sentence splitter and the chunker on arbitrary bytes (invalid
// UTF-8 included). Invariants: offsets stay inside the input, positions never go backwards and
// stay below the returned length, sentence spans are ordered and disjoint, chunks are non-empty.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "text/analyzer.h"
#include "text/chunker.h"
#include "text/sentence_splitter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const attest::Analyzer analyzer;
  std::vector<attest::Token> tokens;
  const uint32_t length = analyzer.Analyze(text, &tokens, 7);
  uint32_t last_start = 0;
  for (const attest::Token& t : tokens) {
    FUZZ_CHECK(!t.term.empty());
    FUZZ_CHECK(t.start < t.end && t.end <= size);
    FUZZ_CHECK(t.position >= 7 && t.position < 7 + length);
    FUZZ_CHECK(t.start >= last_start);
    last_start = t.start;
  }
  uint32_t prev_end = 0;
  for (const attest::SentenceSpan& s : attest::SplitSentences(text)) {
    FUZZ_CHECK(s.start < s.end && s.end <= size && s.start >= prev_end);
    prev_end = s.end;
  }
  attest::ParsedDocument doc;
  doc.blocks.push_back({attest::BlockKind::kHeading, 1, std::string(text.substr(0, 40))});
  doc.blocks.push_back({attest::BlockKind::kParagraph, 0, std::string(text)});
  for (const attest::TextChunk& c : attest::ChunkDocument(doc)) FUZZ_CHECK(!c.text.empty());
  return 0;
}
