// The store keeps two copies of who may read a document: its catalog row (tenant, acl_json,
// access_label), which the documents API and render-time authorization read, and the filter
// attributes of each of its chunks in the segments, which both search legs filter on. Both are
// written from the same record at commit (and merges copy the row's into new segments), so they
// agree unless someone changed one behind the store's back. These helpers compare them wherever a
// row is about to decide what a caller sees, and before a merge would copy a row into a segment
// (docs/store_format.md, "Row checksums and the two copies of access").
//
// Thread-safety: pure functions over immutable segments.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attest/status.h"
#include "lexical/segment.h"
#include "store/records.h"

namespace attest {

// The attributes the segment of `views` holding chunk `id` has for it; nullopt when none holds it.
std::optional<ChunkAttributes> SegmentAttributesOf(const std::vector<SegmentView>& views, ChunkId id);

// "" when `doc`'s tenant, ACL groups (as sets) and access label equal `attrs`'; else what differs,
// e.g. "ACL groups [eng] in the catalog row, [sales] in the segment".
std::string AccessMismatch(const DocumentRecord& doc, const ChunkAttributes& attrs);

// Compares `doc` with the segments' copy for each of `chunks`: kCorruption naming the document, the
// chunk and what differs (or that no segment holds the chunk).
Status CheckAccessAttributes(const std::vector<SegmentView>& views, const DocumentRecord& doc,
                             std::span<const ChunkId> chunks);

}  // namespace attest
