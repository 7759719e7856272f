// Fuzz target: the structure path. The first byte picks what the rest is: Markdown, plain text or
// HTML to parse and chunk (every chunk's spans must be ordered, disjoint, non-empty and inside its
// text, and survive the catalog's span encoding), or a span blob for the catalog's decoder (an
// error or spans inside the text, never a crash, and a decoded blob re-encodes to itself).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/html_extractor.h"
#include "ingest/markdown_parser.h"
#include "ingest/text_parser.h"
#include "ingest/text_util.h"
#include "store/span_codec.h"
#include "text/chunker.h"

namespace {

void CheckSpans(const std::vector<attest::ChunkSpan>& spans, size_t text_size) {
  uint32_t at = 0;
  for (const attest::ChunkSpan& s : spans) {
    FUZZ_CHECK(at <= s.begin);
    FUZZ_CHECK(s.begin < s.end);
    FUZZ_CHECK(s.end <= text_size);
    FUZZ_CHECK(static_cast<uint8_t>(s.role) <= static_cast<uint8_t>(attest::SpanRole::kCode));
    at = s.end;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 3) {  // a text size (its first byte times 4), then a span blob
    if (rest.empty()) return 0;
    const size_t text_size = static_cast<uint8_t>(rest[0]) * 4;
    auto spans = attest::DecodeSpans(rest.substr(1), text_size);
    if (!spans.ok()) {
      FUZZ_CHECK(!spans.status().message().empty());
      return 0;
    }
    CheckSpans(*spans, text_size);
    auto again = attest::DecodeSpans(attest::EncodeSpans(*spans), text_size);
    FUZZ_CHECK(again.ok() && *again == *spans);
    return 0;
  }
  if (attest::ingest::FindInvalidUtf8(rest)) return 0;  // the pipeline rejects such files first
  attest::ParsedDocument doc;
  if (mode == 0) {
    if (!attest::ParseMarkdown(rest, &doc).ok()) return 0;
  } else if (mode == 1) {
    attest::ParsePlainText(rest, "fuzz.txt", &doc);
  } else if (!attest::ExtractHtml(rest, &doc).ok()) {
    return 0;
  }
  attest::ChunkerOptions small;
  small.min_tokens = 8;
  small.target_tokens = 12;
  small.max_tokens = 16;
  small.overlap_tokens = 4;
  for (const attest::ChunkerOptions& options : {attest::ChunkerOptions{}, small}) {
    for (const attest::TextChunk& c : attest::ChunkDocument(doc, options)) {
      CheckSpans(c.spans, c.text.size());
      if (c.spans.empty()) continue;
      auto back = attest::DecodeSpans(attest::EncodeSpans(c.spans), c.text.size());
      FUZZ_CHECK(back.ok() && *back == c.spans);
    }
  }
  return 0;
}
