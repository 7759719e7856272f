// Documents given in memory (the HTTP API's documents routes): parsing a DocumentSpec into the
// ParsedDocument the indexer takes, reading a stored document back for a caller, and checking
// where cited chunks stand in the latest snapshot (render-time and mid-stream authorization).
//
// Thread-safety: pure functions over their arguments.
#pragma once

#include <vector>

#include "attest/engine.h"
#include "ingest/document.h"
#include "store/store.h"

namespace attest {

// Parses `spec.text` by its content type (text, markdown, html) into a ParsedDocument with the
// spec's metadata. kInvalidArgument naming the field for a bad id, date, content type, NUL byte,
// invalid UTF-8, or a body with no text.
Result<ParsedDocument> ParseDocumentSpec(const DocumentSpec& spec);

// Whether `who` may read `doc`: same tenant, and (admin, or a public document, or a shared group).
bool Admits(const SearchFilter& who, const DocumentRecord& doc);

// The live document `id` of who.tenant as `who` may see it; kNotFound when missing or not admitted.
// Before any text is returned, the row's copy of who may read it is compared with the segments'
// (store/access_attributes.h): when they disagree the stricter decides (kNotFound for a caller
// either refuses, kCorruption naming the document for one both admit). kCorruption too when a row
// fails its checksum or the chunk rows are not the row's chunk_count.
Result<DocumentInfo> ReadDocument(const Snapshot& snapshot, const SearchFilter& who, const std::string& id);

// A page of the listing from `snapshot` (Engine::ListDocuments). Rows that fail their checksum are
// reported in `corrupt` (and logged), never listed.
Result<DocumentListing> ListDocuments(const Snapshot& snapshot, const ListDocumentsOptions& options);

// Where each cited chunk stands in `latest` for `who` (a chunk whose document's two copies of
// access disagree is kForbidden: withdrawn).
Result<std::vector<CitationState>> CitationStates(const Snapshot& latest, const SearchFilter& who,
                                                  const std::vector<CitedChunk>& cited);

}  // namespace attest
