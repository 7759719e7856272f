// Fuzz target: the Markdown block parser and inline stripper on arbitrary (UTF-8) text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/markdown_parser.h"
#include "ingest/text_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (attest::ingest::FindInvalidUtf8(text)) return 0;  // the pipeline rejects such files first
  attest::ParsedDocument doc;
  attest::Status st = attest::ParseMarkdown(text, &doc);
  if (!st.ok()) FUZZ_CHECK(!st.message().empty());
  for (const attest::Block& b : doc.blocks) {
    FUZZ_CHECK(!b.text.empty());
    FUZZ_CHECK(b.kind != attest::BlockKind::kHeading || (b.level >= 1 && b.level <= 6));
    FUZZ_CHECK(b.text.size() <= size * 4 + 16);  // entity decoding can grow text only a little
  }
  return 0;
}
