// Fuzz target: the BEIR JSONL line parser (line splitting, UTF-8 and size checks, JSON, fields)
// on arbitrary bytes, through the in-memory entry point.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/jsonl_reader.h"
#include "ingest/text_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  attest::SourceOptions options;
  options.max_document_bytes = 2048;  // small, so the oversize path is reached too
  options.site = "fuzz";
  uint64_t last_line = 0;
  attest::ParseJsonlBuffer(
      input, "fuzz.jsonl", options,
      [&](attest::ParsedDocument&& doc, uint64_t bytes) {
        FUZZ_CHECK(!doc.id.empty());
        // Text, or a title with words (a title-only document).
        FUZZ_CHECK(!doc.blocks.empty() || attest::ingest::HasWordCharacter(doc.title));
        FUZZ_CHECK(bytes <= options.max_document_bytes);
        FUZZ_CHECK(!doc.site.empty());
        for (const attest::Block& b : doc.blocks) {
          FUZZ_CHECK(!b.text.empty());
          FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(b.text).has_value());
        }
      },
      [&](attest::SourceError&& error) {
        FUZZ_CHECK(!error.message.empty());
        FUZZ_CHECK(error.file == "fuzz.jsonl");
        if (error.line != 0) {
          FUZZ_CHECK(error.line > last_line);  // one error per line, in order
          last_line = error.line;
        }
      });
  return 0;
}
