// Fetched bodies that are not text: PDF (through pdftotext, a separate resource-limited process),
// DOCX and ODT (their body XML), and gzip-compressed HTML, Markdown or text, read by the file
// readers of src/ingest. PDF and office documents need a file: the body is written to a private
// temporary file (mode 0600, removed at once after reading). The result is text the crawler
// indexes like a fetched page: Markdown (headings kept) for PDF and office documents, the inner
// format for gzip.
//
// Thread-safety: pure functions (each call has its own temporary file).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "attest/status.h"

namespace attest {

struct ConvertedBody {
  std::string content_type;  // html | markdown | text
  std::string text;          // UTF-8
  std::string title;         // from the document, or ""
};

// nullopt when `media_type` is none of the binary formats read here; an error (reason word first:
// "pdf: ...", "office: ...", "gzip: ...") when the body cannot be read.
Result<std::optional<ConvertedBody>> ConvertBinaryBody(std::string_view media_type, std::string_view url_path,
                                                       std::string_view body, uint64_t max_text_bytes);

}  // namespace attest
