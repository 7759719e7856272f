// Checksums of catalog rows (docs/store_format.md, "Row checksums"): every documents and chunks row
// carries a CRC-32C of its content, written with the row and checked whenever the row is read, so
// an edit made behind the store's back (a sqlite3 shell, a bad restore, a stray script) is reported
// as corruption instead of being served.
//
// Each field is serialized as `name=<byte length>:<bytes>\n` (no two different rows serialize
// alike), in the order below; NULL dates are empty. Columns that change during a row's life
// (deleted_snapshot, chunks.segment_id after a merge) are not covered.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "store/records.h"

namespace attest {

// num, tenant, id, url, title, site, published, updated, version, source_type, language, acl_json
// (the stored JSON text, byte for byte), feed, access_label, sha256, bytes, chunk_count,
// created_snapshot.
uint32_t DocumentRowChecksum(const DocumentRecord& doc, std::string_view acl_json);

// id, doc_num, ordinal, section_path, text, then spans (the stored blob, byte for byte) only when
// the row has one: rows without spans, all those written before schema 6, checksum as before.
uint32_t ChunkRowChecksum(const ChunkRecord& chunk, std::optional<std::string_view> spans_blob = std::nullopt);

}  // namespace attest
