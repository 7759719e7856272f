#include "ingest/jsonl_reader.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_guard.h"
#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

using nlohmann::json;

// After this many errors in one file only a count is reported.
constexpr uint64_t kMaxErrorsPerFile = 1000;

// One pass over a line before nlohmann::json sees it (its parser recurses, and a million members
// cost seconds): nesting depth and an upper count of values (members and array elements: one
// more than the ',' outside strings, plus one per '{' / '['). Empty when within `limits`.
std::string CheckJsonShape(std::string_view line, const JsonlLimits& limits) {
  const JsonShapeScan scan = ScanJsonShape(line, limits.max_depth, limits.max_values);
  switch (scan.problem) {
    case JsonShapeScan::Problem::kNone: return "";
    case JsonShapeScan::Problem::kTooDeep:
      return "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels at column " +
             std::to_string(scan.offset + 1) + " (limit jsonl.max_depth)";
    case JsonShapeScan::Problem::kTooManyValues:
      return "more than " + std::to_string(limits.max_values) + " JSON values on one line (limit jsonl.max_values)";
  }
  return "";
}

std::string Quoted(std::string_view field) { return "field \"" + std::string(field) + "\""; }

// Reads an optional string member; null or absent leaves `out` untouched.
Status OptionalString(const json& obj, const char* key, std::string_view field_name, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) {
    return Status::InvalidArgument(Quoted(field_name) + " must be a string, not " + it->type_name());
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

Status OptionalDate(const json& obj, const char* key, std::string_view field_name,
                    std::optional<DayNumber>* out) {
  std::string text;
  ATTEST_RETURN_IF_ERROR(OptionalString(obj, key, field_name, &text));
  if (text.empty()) return Status::Ok();
  auto day = ParseDate(text);
  if (!day) return Status::InvalidArgument(Quoted(field_name) + " is not a recognised date: \"" + text + "\"");
  *out = day;
  return Status::Ok();
}

Status ReadMetadata(const json& meta, ParsedDocument* doc) {
  if (meta.is_null()) return Status::Ok();
  if (!meta.is_object()) {
    return Status::InvalidArgument(Quoted("metadata") + " must be an object, not " + meta.type_name());
  }
  ATTEST_RETURN_IF_ERROR(OptionalString(meta, "url", "metadata.url", &doc->url));
  ATTEST_RETURN_IF_ERROR(OptionalString(meta, "site", "metadata.site", &doc->site));
  ATTEST_RETURN_IF_ERROR(OptionalDate(meta, "published", "metadata.published", &doc->published));
  if (!doc->published) ATTEST_RETURN_IF_ERROR(OptionalDate(meta, "date", "metadata.date", &doc->published));
  ATTEST_RETURN_IF_ERROR(OptionalDate(meta, "updated", "metadata.updated", &doc->updated));
  auto version = meta.find("version");
  if (version != meta.end() && version->is_number_integer()) {
    doc->version = version->dump();
  } else {
    ATTEST_RETURN_IF_ERROR(OptionalString(meta, "version", "metadata.version", &doc->version));
  }
  ATTEST_RETURN_IF_ERROR(OptionalString(meta, "source_type", "metadata.source_type", &doc->source_type));
  std::string language;
  ATTEST_RETURN_IF_ERROR(OptionalString(meta, "language", "metadata.language", &language));
  if (!language.empty()) doc->language = AsciiLower(language);

  static constexpr std::string_view kRecognised[] = {"url",     "site",        "published", "date",
                                                     "updated", "source_type", "language",  "version"};
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    bool known = false;
    for (std::string_view k : kRecognised) known = known || it.key() == k;
    if (known || it->is_null()) continue;
    doc->metadata[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
  }
  return Status::Ok();
}

Status ParseObject(const json& j, const SourceOptions& options, ParsedDocument* doc) {
  if (!j.is_object()) return Status::InvalidArgument(std::string("line is a JSON ") + j.type_name() + ", not an object");
  auto id = j.find("_id");
  if (id == j.end() || id->is_null()) return Status::InvalidArgument("missing required " + Quoted("_id"));
  if (id->is_string()) {
    doc->id = id->get<std::string>();
  } else if (id->is_number_integer()) {
    doc->id = id->dump();
  } else {
    return Status::InvalidArgument(Quoted("_id") + " must be a string or an integer, not " + id->type_name());
  }
  if (Trim(doc->id).empty()) return Status::InvalidArgument(Quoted("_id") + " is empty");
  if (doc->id.size() > options.jsonl.max_id_bytes) {
    return Status::InvalidArgument(Quoted("_id") + " is " + std::to_string(doc->id.size()) + " bytes, over " +
                                   std::to_string(options.jsonl.max_id_bytes) + " (limit jsonl.max_id_bytes)");
  }

  std::string title;
  ATTEST_RETURN_IF_ERROR(OptionalString(j, "title", "title", &title));
  doc->title = CollapseWhitespace(title, Nbsp::kAsSpace);

  auto text = j.find("text");
  if (text == j.end()) return Status::InvalidArgument("missing required " + Quoted("text"));
  if (!text->is_string() && !text->is_null()) {
    return Status::InvalidArgument(Quoted("text") + " must be a string, not " + text->type_name());
  }
  auto meta = j.find("metadata");
  if (meta != j.end()) ATTEST_RETURN_IF_ERROR(ReadMetadata(*meta, doc));

  if (text->is_string()) {
    for (std::string& p : ingest::SplitParagraphs(text->get_ref<const std::string&>())) {
      doc->blocks.push_back(Block{BlockKind::kParagraph, 0, std::move(p), {}});
    }
  }
  // A title-only document (half of CACM) is a document: DocumentIndexer gives it one chunk holding
  // its title, so it is searchable and citable.
  if (doc->blocks.empty() && !ingest::HasWordCharacter(doc->title)) {
    return Status::InvalidArgument("empty document: neither \"title\" nor \"text\" has words");
  }
  if (doc->site.empty()) doc->site = ingest::UrlHost(doc->url);
  if (doc->site.empty()) doc->site = options.site;
  return Status::Ok();
}

}  // namespace

Status ParseJsonlLine(std::string_view line, const SourceOptions& options, ParsedDocument* doc) {
  if (std::string problem = CheckJsonShape(line, options.jsonl); !problem.empty()) {
    return Status::InvalidArgument(std::move(problem));
  }
  try {
    const json j = json::parse(line.begin(), line.end());
    return ParseObject(j, options, doc);
  } catch (const json::exception& e) {
    return Status::InvalidArgument("invalid JSON: " + CleanJsonErrorMessage(e.what()));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("cannot parse line: ") + e.what());
  }
}

JsonlLineParser::JsonlLineParser(std::string_view file, const SourceOptions& options, const DocumentSink& on_doc,
                                 const ErrorSink& on_error)
    : file_(file), options_(options), on_doc_(on_doc), on_error_(on_error) {}

JsonlLineParser::~JsonlLineParser() {
  if (suppressed_ > 0) {
    on_error_(SourceError{file_, 0,
                          std::to_string(suppressed_) + " more line errors not shown (limit " +
                              std::to_string(kMaxErrorsPerFile) + " per file)"});
  }
}

void JsonlLineParser::Line(uint64_t line_no, std::string_view line) {
  if (line_no == 1) line = ingest::StripBom(line);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (Trim(line).empty()) return;
  if (line.size() > options_.max_document_bytes) return Oversize(line_no, line.size());
  if (auto nul = ingest::FindNul(line)) {
    return Error(line_no, "binary data: NUL byte at column " + std::to_string(*nul + 1));
  }
  if (auto bad = ingest::FindInvalidUtf8(line)) {
    return Error(line_no, "invalid UTF-8 at column " + std::to_string(*bad + 1));
  }
  ParsedDocument doc;
  Status st = ParseJsonlLine(line, options_, &doc);
  if (!st.ok()) return Error(line_no, st.message());
  on_doc_(std::move(doc), line.size());
}

void JsonlLineParser::Oversize(uint64_t line_no, uint64_t size) {
  Error(line_no, "line is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(options_.max_document_bytes) + " bytes");
}

void JsonlLineParser::Error(uint64_t line_no, std::string message) {
  if (errors_ >= kMaxErrorsPerFile) {
    ++suppressed_;
    return;
  }
  ++errors_;
  on_error_(SourceError{file_, line_no, std::move(message)});
}

void ParseJsonlBuffer(std::string_view data, std::string_view file, const SourceOptions& options,
                      const DocumentSink& on_doc, const ErrorSink& on_error) {
  JsonlLineParser handler(file, options, on_doc, on_error);
  uint64_t line_no = 0;
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    handler.Line(++line_no, data.substr(start, end - start));
    start = end + 1;
  }
}

void StreamJsonlLines(const SourceFile& file, const SourceOptions& options, const JsonlLineSink& on_line,
                      const ErrorSink& on_error) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(file.path.c_str(), "rb"), &std::fclose);
  if (!f) {
    on_error(SourceError{file.relative, 0, "cannot open " + file.path.string()});
    return;
  }
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kChunk]);
  std::string line;
  uint64_t line_no = 1;
  uint64_t overflow_bytes = 0;  // > 0 while skipping the rest of an oversized line
  auto finish_line = [&] {
    on_line(line_no, overflow_bytes > 0 ? std::string_view() : std::string_view(line), overflow_bytes);
    line.clear();
    overflow_bytes = 0;
    ++line_no;
  };
  for (;;) {
    const size_t got = std::fread(buf.get(), 1, kChunk, f.get());
    if (got == 0) break;
    std::string_view chunk(buf.get(), got);
    while (!chunk.empty()) {
      const size_t nl = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, nl == std::string_view::npos ? chunk.size() : nl);
      if (overflow_bytes > 0) {
        overflow_bytes += piece.size();
      } else if (line.size() + piece.size() > options.max_document_bytes + 1) {  // +1: a trailing '\r'
        overflow_bytes = line.size() + piece.size();
        line.clear();
        line.shrink_to_fit();
      } else {
        line.append(piece);
      }
      if (nl == std::string_view::npos) break;
      finish_line();
      chunk.remove_prefix(nl + 1);
    }
  }
  if (std::ferror(f.get())) {
    on_error(SourceError{file.relative, line_no, "read error in " + file.path.string()});
    return;
  }
  if (!line.empty() || overflow_bytes > 0) finish_line();
}

void ReadJsonlFile(const SourceFile& file, const SourceOptions& options, const DocumentSink& on_doc,
                   const ErrorSink& on_error) {
  JsonlLineParser parser(file.relative, options, on_doc, on_error);
  StreamJsonlLines(
      file, options,
      [&](uint64_t line_no, std::string_view line, uint64_t oversize) {
        if (oversize > 0) {
          parser.Oversize(line_no, oversize);
        } else {
          parser.Line(line_no, line);
        }
      },
      on_error);
}

}  // namespace attest
