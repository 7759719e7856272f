// Fuzz target: the HTML extractor (gumbo + block walker + metadata) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/html_extractor.h"
#include "ingest/text_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  attest::ParsedDocument doc;
  const attest::Status st = attest::ExtractHtml(html, &doc);
  // A refusal says what was wrong with the HTML and leaves the document empty.
  if (!st.ok()) {
    FUZZ_CHECK(st.message().rfind("html: ", 0) == 0);
    FUZZ_CHECK(doc.blocks.empty() && doc.title.empty());
  }
  const bool valid_input = !attest::ingest::FindInvalidUtf8(html).has_value();
  for (const attest::Block& b : doc.blocks) {
    FUZZ_CHECK(!b.text.empty());
    FUZZ_CHECK(b.kind != attest::BlockKind::kHeading || (b.level >= 1 && b.level <= 6));
    // Text extracted from valid UTF-8 is valid UTF-8 (the pipeline only ever passes valid input).
    if (valid_input) FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(b.text).has_value());
  }
  if (doc.published) FUZZ_CHECK(attest::ParseDate(attest::FormatDate(*doc.published)) == doc.published);
  if (!doc.url.empty()) FUZZ_CHECK(!attest::ingest::UrlHost(doc.url).empty());
  return 0;
}
