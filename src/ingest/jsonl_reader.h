// BEIR-style JSONL: one JSON object per line,
//   {"_id": "d1", "title": "...", "text": "...", "metadata": {"url": ..., "published": ...}}
// `_id` is required (a non-empty string, or an integer which becomes its decimal string); `title`
// and `metadata` are optional; `text` is required and becomes paragraph blocks split on blank
// lines. Recognised metadata keys: url, site, published (or date), updated, version, source_type,
// language; any other key is kept as a string in ParsedDocument::metadata (non-string values as
// their compact JSON text). A value of the wrong type is an error naming the field; null counts
// as absent. Nothing here throws. Thread-safe (no shared state).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "attest/status.h"
#include "ingest/document.h"
#include "ingest/source_reader.h"

namespace attest {

// Parses one line (without its newline) into `doc`. The line must already be valid UTF-8.
Status ParseJsonlLine(std::string_view line, const SourceOptions& options, ParsedDocument* doc);

// Parses a whole in-memory JSONL buffer: one document or one error per non-blank line. `file`
// names the source in errors. Also the entry point of the JSONL fuzz target.
void ParseJsonlBuffer(std::string_view data, std::string_view file, const SourceOptions& options,
                      const DocumentSink& on_doc, const ErrorSink& on_error);

// Checks and parses raw JSONL lines as ReadJsonlFile does: a BOM on line 1 and a trailing '\r' are
// stripped, blank lines skipped, then size, NUL bytes and UTF-8 are checked before parsing. Errors
// name `file` and the line; after 1,000 errors only a count of the rest is reported (at destruction).
class JsonlLineParser {
 public:
  JsonlLineParser(std::string_view file, const SourceOptions& options, const DocumentSink& on_doc,
                  const ErrorSink& on_error);
  ~JsonlLineParser();
  JsonlLineParser(const JsonlLineParser&) = delete;
  JsonlLineParser& operator=(const JsonlLineParser&) = delete;

  void Line(uint64_t line_no, std::string_view line);
  // Reports a line that was too long to hold (its text was not kept).
  void Oversize(uint64_t line_no, uint64_t size);

 private:
  void Error(uint64_t line_no, std::string message);
  std::string file_;
  const SourceOptions& options_;
  DocumentSink on_doc_;  // held by value: callers often pass lambdas converted to temporaries
  ErrorSink on_error_;
  uint64_t errors_ = 0;
  uint64_t suppressed_ = 0;
};

// Reads a JSONL file line by line holding at most one line (bounded by max_document_bytes) in
// memory. `on_line(line_no, text, 0)` gets each line without its newline; a longer line is skipped
// and reported as `on_line(line_no, "", its_size)`. Read errors go to `on_error`.
using JsonlLineSink = std::function<void(uint64_t line_no, std::string_view line, uint64_t oversize_bytes)>;
void StreamJsonlLines(const SourceFile& file, const SourceOptions& options, const JsonlLineSink& on_line,
                      const ErrorSink& on_error);

// Streams a JSONL file, holding at most one line (bounded by max_document_bytes) in memory.
void ReadJsonlFile(const SourceFile& file, const SourceOptions& options, const DocumentSink& on_doc,
                   const ErrorSink& on_error);

}  // namespace attest
