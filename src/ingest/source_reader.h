// Finding and parsing source files: HTML, Markdown, plain text, BEIR JSONL, PDF (see pdf_reader.h),
// DOCX and ODT (see office_reader.h), and gzip-compressed HTML, Markdown and text.
//
// ListSources walks the given roots (files or directories) deterministically and classifies each
// file by extension (or by sniffing its first bytes). ParseSource turns one file into
// ParsedDocuments: one per HTML/Markdown/text file, one per line of a JSONL file.
//
// Every file is untrusted input. Problems are reported as SourceError values naming the file (and
// the line, for JSONL); a bad JSONL line does not stop the rest of the file. Nothing here throws.
// Thread-safety: the functions are stateless and may run concurrently on different files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/document.h"
#include "ingest/html_limits.h"
#include "ingest/pdf_reader.h"

namespace attest {

enum class SourceFormat { kHtml, kMarkdown, kText, kBeirJsonl, kPdf, kDocx, kOdt };

std::string_view SourceFormatName(SourceFormat format);

struct SourceFile {
  std::filesystem::path path;
  std::string relative;  // relative to the root argument, '/'-separated; a file root gives its filename
  SourceFormat format = SourceFormat::kText;  // the format of the (decoded) content
  uint64_t size = 0;                          // bytes on disk (compressed, for a gzip file)
  // A gzip-compressed file ("x.html.gz"): decoded with zlib, the per-document cap applying to the
  // decoded bytes, then parsed as `format`. Its document id and url drop the ".gz" (a page and its
  // precompressed copy are the same document); `relative` keeps the name on disk for errors.
  bool gzip = false;
};

struct SourceError {
  std::string file;
  uint64_t line = 0;  // 1-based line of a JSONL file; 0 = the whole file
  std::string message;

  // "file:line: message" or "file: message".
  std::string ToString() const;
};

// Walks `roots` in order. Directories recurse in byte-wise sorted order, skipping entries whose
// name starts with '.', and skipping web assets that are never documents (.css, .js, images,
// fonts; see kSkippedAssetExtensions in source_lister.cc). Symlinked directories are followed
// once (cycles are cut). Formats by extension: .html .htm .xhtml; .md .markdown; .txt .text;
// .jsonl .ndjson; .pdf; .docx; .odt. "<name>.<ext>.gz" is gzip-compressed and takes the format of <ext>; a ".gz"
// with no known inner extension is skipped in directory walks (compressed changelogs and the
// like) and, named as a root, decoded (its first 8 KiB) and sniffed; web assets such as
// ".css.gz" are skipped like their uncompressed form; compressed JSONL, PDF, DOCX, ODT are refused.
// Other files are sniffed: text -> kText, otherwise the error "binary file".
// A missing root is an error naming it. Appends to `files` and `errors`.
void ListSources(const std::vector<std::filesystem::path>& roots, std::vector<SourceFile>* files,
                 std::vector<SourceError>* errors);

// Lists the files `relatives` ('/'-separated, relative to the directory `root`) exactly as the walk
// of ListSources({root}) would list them: the same `relative` names and formats, the same skips (a
// name starting with '.' anywhere on the path, web assets, a ".gz" with no known inner extension),
// in the order given. A missing file is an error naming it; a name that is not a plain relative
// path ("", "..", an absolute path) is an error too.
void ListSourcesUnder(const std::filesystem::path& root, const std::vector<std::string>& relatives,
                      std::vector<SourceFile>* files, std::vector<SourceError>* errors);

// Whether a directory walk enters or lists an entry of this name (not "" and not starting with '.').
inline bool WalkedName(std::string_view name) { return !name.empty() && name[0] != '.'; }

// Limits on one line of a BEIR JSONL file, checked by a scan before the JSON parser runs.
struct JsonlLimits {
  int max_depth = 64;              // jsonl.max_depth: arrays / objects nested (documents need two)
  size_t max_values = 100'000;     // jsonl.max_values: JSON values on one line (a document has ~10)
  size_t max_id_bytes = 1024;      // jsonl.max_id_bytes: the "_id" (a store key)
};

struct SourceOptions {
  uint64_t max_document_bytes = 50ull << 20;  // per file (HTML/Markdown/text) or per JSONL line
  std::string site;                           // site label when no canonical URL gives a host
  HtmlLimits html;                            // checked before an HTML file reaches the parser
  JsonlLimits jsonl;                          // checked before a JSONL line reaches the parser
  PdfLimits pdf;                              // the pdftotext child (max_document_bytes caps its text)
  uint64_t max_archive_entries = 10'000;      // DOCX/ODT: ZIP entries (max_document_bytes caps the XML)
};

using DocumentSink = std::function<void(ParsedDocument&&, uint64_t source_bytes)>;
using ErrorSink = std::function<void(SourceError&&)>;

// Parses one file. `on_doc` receives each document with the number of source bytes it came from
// (the file size, or the JSONL line length); `on_error` receives each problem. Errors never abort
// the other lines of a JSONL file.
void ParseSource(const SourceFile& file, const SourceOptions& options, const DocumentSink& on_doc,
                 const ErrorSink& on_error);

}  // namespace attest
