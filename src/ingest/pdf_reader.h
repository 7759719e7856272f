// PDF sources through Poppler's `pdftotext` (Debian poppler-utils), run as a separate process.
//
// Poppler is GPL, so it is never linked: ExtractPdfText runs
//   pdftotext -enc UTF-8 -eol unix FILE -
// (reading order, no -layout: on the shared-mime-info spec PDF -layout pads lines with 14% more
// spaces and interleaves columns; the plain mode gives paragraphs separated by blank lines) under
// the limits of ChildLimits (CPU, memory, no file writes, few descriptors, wall-clock timeout, a
// cap on the text). ParsePdfText turns its output into blocks: pages are separated by form feeds;
// each page of a multi-page PDF starts with a heading block "Page N" (so a passage is cited with
// its page), its paragraphs follow as plain text (see text_parser.h). Running headers and footers
// (the same first or last line on at least half of the pages, three or more) and bare page
// numbers at the top or bottom of a page are dropped, and so are paragraphs that are only a list
// bullet (pdftotext prints the bullet column apart from the item text). Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "attest/status.h"
#include "ingest/document.h"

namespace attest {

struct PdfLimits {
  std::string pdftotext = "pdftotext";     // pdf.pdftotext: program name (searched on $PATH) or path
  int timeout_ms = 60'000;                  // pdf.timeout_ms: wall clock per file; then it is killed
  int cpu_seconds = 60;                     // pdf.cpu_seconds: RLIMIT_CPU of the converter
  uint64_t max_memory_bytes = 2ull << 30;   // pdf.max_memory_bytes: RLIMIT_AS of the converter
};

// The UTF-8 text of the PDF at `path`, pages separated by '\f'. Errors: pdftotext missing
// ("PDF support needs pdftotext (Debian package poppler-utils)"), a damaged PDF (pdftotext's
// own message), the timeout, or text longer than `max_text_bytes`.
Result<std::string> ExtractPdfText(const std::filesystem::path& path, const PdfLimits& limits,
                                   uint64_t max_text_bytes);

// Blocks and title from pdftotext's output. The title is the running header seen at the top of
// most pages when there is one (it is the document's name far more often than its first line,
// which on a cover page is often an organisation or author), else the first non-empty line when
// shorter than 120 bytes, else `fallback_title`.
void ParsePdfText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc);

}  // namespace attest
