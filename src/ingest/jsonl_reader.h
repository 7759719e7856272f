// BEIR-style JSONL: one JSON object per line,
//   {"_id": "d1", "title": "...", "text": "...", "metadata": {"url": ..., "published": ...}}
// `_id` is required (a non-empty string, or an integer which becomes its decimal string); `title`
// and `metadata` are optional; `text` is required and becomes paragraph blocks split on blank
// lines. Recognised metadata keys: url, site, published (or date), updated, version, source_type,
// language; any other key is kept as a string in ParsedDocument::metadata (non-string values as
// their compact JSON text). A value of the wrong type is an error naming the field; null counts
// as absent. Nothing here throws. Thread-safe (no shared state).
#pragma once

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

// Streams a JSONL file, holding at most one line (bounded by max_document_bytes) in memory.
void ReadJsonlFile(const SourceFile& file, const SourceOptions& options, const DocumentSink& on_doc,
                   const ErrorSink& on_error);

}  // namespace attest
