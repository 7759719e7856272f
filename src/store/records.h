// Rows of the catalog as the rest of the engine sees them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/strong_id.h"
#include "common/date.h"
#include "lexical/indexed_chunk.h"
#include "text/chunker.h"

namespace attest {

// One version of one document, as stored.
struct DocumentRecord {
  DocNum num;
  std::string tenant;
  std::string id;           // external stable id, unique per tenant among live documents
  std::string url;
  std::string title;
  std::string site;
  std::optional<DayNumber> published;
  std::optional<DayNumber> updated;
  std::string version;
  std::string source_type;
  std::string language;
  std::vector<std::string> acl_groups;
  // Access label (docs/security.md): "" = unlabelled, the lowest configured level; otherwise one of
  // the configured levels (e.g. public < internal < confidential < restricted).
  std::string access_label;
  // Non-empty for a document that is an authoritative feed of this kind, e.g. "versions": the
  // product's list of current releases, against which answers about "latest" check freshness.
  std::string feed;
  // Licence or terms of the source (schema 7), free text; "" = not recorded.
  std::string license;
  // When the text was fetched from its source, Unix ms (schema 7); 0 = not recorded: the commit
  // time of `created` stands for it.
  int64_t fetched_at_ms = 0;
  std::string sha256;       // of the document's extracted text and metadata
  uint64_t bytes = 0;       // size of the source
  uint32_t chunk_count = 0;
  SnapshotVersion created;  // first snapshot that sees this version
};

struct ChunkRecord {
  ChunkId id;
  DocNum doc;
  uint32_t ordinal = 0;
  std::string section_path;
  std::string text;
  std::vector<ChunkSpan> spans;  // the chunk's structure (text/chunker.h); empty when unknown
};

// The embedder whose vectors a snapshot's vector leg uses (docs/store_format.md, "embedders").
// Activating one is a commit of its own: every snapshot from `activated` on uses it, until the next.
struct EmbedderRecord {
  std::string tenant;       // whose chunks it embeds (corpus models are trained on that tenant's text only)
  std::string key;          // EmbedderIdentity::Key()
  std::string name;
  uint32_t dim = 0;
  std::string version;
  std::string model_file;   // file name inside models/ for corpus-trained models; "" otherwise
  std::string config_json;  // how to rebuild the embedder (never secrets: API keys come from the environment)
  uint64_t trained_chunks = 0;  // live chunks when the model was trained (retraining policy)
  SnapshotVersion activated;
};

// One page of a tenant's live documents (Snapshot::ListDocuments): the filters, and the keyset
// (ids strictly after `after_id`, in byte order) that keeps pages stable while documents change.
struct DocumentListQuery {
  std::string tenant;
  std::string after_id;                   // "" = from the first id
  size_t limit = 20;                      // rows of this page
  std::vector<std::string> source_types;  // any of them; empty = any
  std::vector<std::string> sites;
  std::vector<std::string> versions;
  std::string text;                       // substring of the id or the title, ASCII case-insensitive; "" = any
  // The document's date (published, else updated) within [date_from, date_to]; a document without
  // a date never passes a date bound.
  std::optional<DayNumber> date_from, date_to;
};

// A row of a page: the record, or (the row failed its checksum) nullopt and the error naming it.
struct ListedDocument {
  std::string id;                         // the row's id as stored (what the keyset advanced past)
  std::optional<DocumentRecord> record;
  std::string error;
};

struct DocumentPage {
  std::vector<ListedDocument> rows;       // at most `limit`, in id order
  bool more = false;                      // rows exist after the last one
  uint64_t total = 0;                     // rows matching the filters on every page
};

// A document ready to commit: metadata, its chunks and their analyzed form.
// `indexed[i]` belongs to `chunks[i]`; its `id` is assigned by the store at commit.
struct PreparedDocument {
  DocumentRecord record;           // `num`, `created`, `chunk_count` are set by the store
  std::vector<TextChunk> chunks;
  std::vector<IndexedChunk> indexed;
};

}  // namespace attest
