// Turns a parsed document into what the store commits: catalog record, chunks and their analyzed
// fields (title, section path, body) with filter attributes. Pure function of its inputs, so it runs
// on any thread; the same code re-analyzes stored chunks when the store merges segments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/document.h"
#include "store/records.h"
#include "text/analyzer.h"
#include "text/chunker.h"

namespace attest {

struct DocumentDefaults {
  std::string tenant;
  std::vector<std::string> acl_groups;
  std::string access_label;  // "" = unlabelled (the lowest access level)
  std::string source_type;   // used when the document itself names no type (e.g. release notes do)
  std::string version;       // used when the document itself names no version
  std::string site;          // used when the document has no site
  std::string license;       // used when the document names none (metadata "license")
};

class DocumentIndexer {
 public:
  DocumentIndexer(const Analyzer& analyzer, ChunkerOptions chunker) : analyzer_(analyzer), chunker_(chunker) {}

  // Fills record metadata (tenant, acl, sha256 of the content) and chunks + analyzed chunks. A
  // document with no body text but a title with words gets one chunk whose text is the title.
  PreparedDocument Prepare(const ParsedDocument& doc, const DocumentDefaults& defaults, uint64_t source_bytes) const;

  // Analyzes one stored chunk again (segment merges).
  IndexedChunk Reindex(const ChunkRecord& chunk, const DocumentRecord& doc) const;

 private:
  IndexedChunk Analyze(const std::string& title, const std::string& section, const std::string& body,
                       const std::vector<std::string>& defining_terms, const DocumentRecord& doc) const;
  const Analyzer& analyzer_;
  ChunkerOptions chunker_;
};

// The chunk's defining terms, the text of its term field (Field::kTerm): the distinct subjects of its
// definition and table-row spans, in order of appearance, and, in a document's first chunk, the
// names its lead declaration declares (DeclaredNames). A subject that is also a heading or a
// mention elsewhere counts once here; the body keeps every mention.
std::vector<std::string> DefiningTerms(const std::vector<ChunkSpan>& spans, std::string_view text, uint32_t ordinal);

// A document that opens with a code block (the first block after its first headings; what precedes
// the first heading, often site navigation, is skipped) opens with its
// synopsis: an API reference page's declarations ("int sqlite3_prepare_v2(...);"). The names it
// declares are the identifiers directly followed by "(" (functions, macros; not "(*", a function
// pointer's type). Empty when the
// chunk's first non-heading span is not code.
std::vector<std::string> DeclaredNames(const std::vector<ChunkSpan>& spans, std::string_view text);

// SHA-256 over a canonical serialization of everything that is stored or indexed for the document
// (metadata, tenant, ACL and text), so any change that matters makes it a replacement.
std::string ContentDigest(const ParsedDocument& doc, const DocumentRecord& record);

}  // namespace attest
