// ParseSource: size and encoding checks, then the per-format parser, then id/url/site.
#include "ingest/source_reader.h"

#include <sys/stat.h>

#include "common/file_util.h"
#include "common/strings.h"
#include "ingest/gzip_reader.h"
#include "ingest/html_extractor.h"
#include "ingest/jsonl_reader.h"
#include "ingest/markdown_parser.h"
#include "ingest/office_reader.h"
#include "ingest/text_parser.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

// Checks the bytes of a whole-file document; returns an error message or "".
std::string CheckContent(std::string_view data) {
  if (auto nul = ingest::FindNul(data)) return "binary file: NUL byte at offset " + std::to_string(*nul);
  if (auto bad = ingest::FindInvalidUtf8(data)) return "invalid UTF-8 at byte offset " + std::to_string(*bad);
  return "";
}

bool HasText(const ParsedDocument& doc) {
  for (const Block& b : doc.blocks) {
    if (!Trim(b.text).empty()) return true;
  }
  return false;
}

// "x.html.gz" -> "x.html": a compressed page is the same document as the page.
std::string WithoutGz(const std::string& name, bool gzip) {
  if (gzip && name.size() > 3 && AsciiLower(name.substr(name.size() - 3)) == ".gz") {
    return name.substr(0, name.size() - 3);
  }
  return name;
}

// The bytes of a whole-file document (decoded, for gzip), bounded by `max_bytes`.
Result<std::string> ReadContent(const SourceFile& file, const SourceOptions& options) {
  const uint64_t max_bytes = options.max_document_bytes;
  if (file.format == SourceFormat::kPdf) return ExtractPdfText(file.path, options.pdf, max_bytes);
  if (file.gzip) return ingest::ReadGzipFile(file.path, max_bytes);
  // ReadFileToString checks the size with fstat before reading anything.
  Result<std::string> data = ReadFileToString(file.path, max_bytes);
  if (!data.ok() && data.status().code() == StatusCode::kResourceExhausted) {
    struct stat st{};
    const uint64_t size = ::stat(file.path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : file.size;
    return Status::ResourceExhausted("file is " + std::to_string(size) + " bytes, over the limit of " +
                                     std::to_string(max_bytes) + " bytes");
  }
  return data;
}

// Turns one whole-file source into `doc`; `source_bytes` is the size it was parsed from.
Status ParseWholeFile(const SourceFile& file, const SourceOptions& options, ParsedDocument* doc,
                      uint64_t* source_bytes) {
  const std::string filename = WithoutGz(file.path.filename().string(), file.gzip);
  if (file.format == SourceFormat::kDocx || file.format == SourceFormat::kOdt) {
    *source_bytes = file.size;
    const OfficeFormat format = file.format == SourceFormat::kDocx ? OfficeFormat::kDocx : OfficeFormat::kOdt;
    return ReadOfficeDocument(file.path, format, {options.max_archive_entries, options.max_document_bytes}, filename,
                              doc);
  }
  Result<std::string> data = ReadContent(file, options);
  if (!data.ok()) return data.status();
  *source_bytes = data->size();
  if (std::string problem = CheckContent(*data); !problem.empty()) return Status::InvalidArgument(problem);
  const std::string_view text = ingest::StripBom(*data);
  switch (file.format) {
    case SourceFormat::kHtml:
      ATTEST_RETURN_IF_ERROR(ExtractHtml(text, doc, options.html));
      if (doc->title.empty()) doc->title = filename;
      break;
    case SourceFormat::kMarkdown:
      ATTEST_RETURN_IF_ERROR(ParseMarkdown(text, doc));
      if (doc->title.empty()) doc->title = filename;
      break;
    case SourceFormat::kText:
      ParsePlainText(text, filename, doc);
      break;
    case SourceFormat::kPdf:
      ParsePdfText(text, filename, doc);
      break;
    case SourceFormat::kBeirJsonl:
    case SourceFormat::kDocx:
    case SourceFormat::kOdt:
      return Status::Internal("unreachable format");  // handled before
  }
  return Status::Ok();
}

}  // namespace

void ParseSource(const SourceFile& file, const SourceOptions& options, const DocumentSink& on_doc,
                 const ErrorSink& on_error) {
  auto error = [&](std::string message) { on_error(SourceError{file.relative, 0, std::move(message)}); };
  if (file.format == SourceFormat::kBeirJsonl) {
    ReadJsonlFile(file, options, on_doc, on_error);
    return;
  }
  ParsedDocument doc;
  uint64_t source_bytes = 0;
  if (Status st = ParseWholeFile(file, options, &doc, &source_bytes); !st.ok()) {
    error(st.message());
    return;
  }
  if (!HasText(doc)) {
    error("empty document: no text after extraction");
    return;
  }
  const std::string canonical = doc.url;
  const std::string relative = WithoutGz(file.relative, file.gzip);
  doc.id = canonical.empty() ? relative : canonical;
  if (doc.url.empty()) doc.url = relative;
  if (doc.site.empty()) doc.site = ingest::UrlHost(canonical);
  if (doc.site.empty()) doc.site = options.site;
  on_doc(std::move(doc), source_bytes);
}

}  // namespace attest
