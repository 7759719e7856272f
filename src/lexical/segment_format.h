// Constants and little-endian helpers of the segment file format (docs/segment_format.md).
// Private to src/lexical/.
#pragma once

#include <cstdint>
#include <cstring>

namespace attest::segfmt {

inline constexpr char kMagic[8] = {'A', 'T', 'S', 'E', 'G', 'M', 'T', '1'};
// 2 added access labels and visibility classes; 3 added the fourth field, "term" (a chunk's defining
// terms); 4 added each chunk's document number (the store reopens a segment without reading that
// map from its catalog) and the body token streams (each body token's term and byte range, read by
// snippets instead of analysing the chunk's text again). Readers open versions 2 to 4: a version 2
// segment has three fields and reads as an empty term field (length 0, no occurrences); a version 2
// or 3 segment has neither (the store reads the map from its catalog, snippets analyse the text).
inline constexpr uint32_t kFormatVersion = 4;
inline constexpr uint32_t kMinFormatVersion = 2;
inline constexpr int kMaxFields = 4;  // title, section, body, term
inline constexpr int FieldsOfVersion(uint32_t version) { return version >= 3 ? 4 : 3; }
inline constexpr uint32_t kBlockSize = 128;  // documents per postings block
inline constexpr uint32_t kHeaderSize = 16;  // magic, version, flags
// Footer tail: footer_offset u64, crc32c u32, magic 8 bytes.
inline constexpr uint32_t kTailSize = 8 + 4 + 8;

// Section ids, in file order. The footer stores (offset, length) for each, in this order.
enum Section : int {
  kMeta = 0,         // SegmentMeta
  kChunkIds,         // u64 per doc, strictly increasing
  kFieldLens,        // u32 x F per doc (title, section, body[, term]); F = 3 in version 2, 4 in 3
  kDict,             // DictEntry per term, sorted by term bytes
  kTermBlob,         // concatenated term bytes
  kSkips,            // SkipEntry per postings block, grouped by term
  kPostings,         // packed blocks (postings_codec.h)
  kPositions,        // delta varints, per block, doc-major then field-major
  kTenantDict,       // string tables: count u32, offsets u32[count+1], bytes
  kSourceTypeDict,
  kSiteDict,
  kVersionDict,
  kGroupDict,
  kAttrColumns,      // per doc: tenant, source_type, site, version (u32 ids), date (i32)
  kAclOffsets,       // u32[num_docs + 1] into kAclIds
  kAclIds,           // u32 group ids, sorted per doc
  kValueListOffsets, // u32[num_values + 1] into kValueListDocs; families: tenant, source_type, site,
                     // version, group, then one "public" list
  kValueListDocs,    // u32 local docs, sorted per list
  // Version 2:
  kLabelDict,        // string table of access labels ("" = unlabelled, the lowest level)
  kClasses,          // ClassEntry per visibility class, sorted by (tenant, label, ACL)
  kClassAclIds,      // u32 group ids of the classes' ACLs, sorted per class
  kDocClass,         // u32 class id per doc
  kTermClassOffsets, // u64[num_terms + 1] byte offsets into kTermClassDf; empty with one class
  kTermClassDf,      // per term: varint pairs (class delta, df), classes increasing; empty with one class
  // Version 4:
  kChunkDocs,        // u64 per doc: the catalog's document number of the chunk (0 = unknown)
  kBodyTokenOffsets, // u64[num_docs + 1] byte offsets into kBodyTokens
  kBodyTokens,       // per doc, per body token in analysis order: varint term index, varint zigzag
                     // (start - previous start), varint (end - start)
  kNumSections
};
inline constexpr int SectionsOfVersion(uint32_t version) { return version >= 4 ? kNumSections : kChunkDocs; }

// A visibility class: the docs that share tenant, access label and ACL, so that any caller either
// reads all of them or none. 24 + 8 F bytes on disk (48 in version 2, 56 in version 3).
struct ClassEntry {
  uint32_t tenant;       // id in kTenantDict
  uint32_t label;        // id in kLabelDict
  uint32_t acl_offset;   // into kClassAclIds
  uint32_t acl_count;    // 0 = public (no ACL)
  uint32_t num_docs;
  uint32_t reserved;
  uint64_t total_len[kMaxFields];  // F on disk; 0 beyond
};
inline constexpr uint32_t ClassEntrySize(int fields) { return 24 + 8 * fields; }

struct SegmentMeta {  // 24 + 8 F bytes on disk
  uint32_t num_docs;
  uint32_t num_terms;
  uint32_t num_skips;
  uint32_t reserved;
  uint64_t total_len[kMaxFields];  // F on disk
  uint64_t reserved2;
};
inline constexpr uint32_t MetaSize(int fields) { return 24 + 8 * fields; }

// One term of the dictionary, 32 bytes on disk.
struct DictEntry {
  uint32_t term_offset;    // into kTermBlob
  uint32_t term_length;
  uint32_t df;             // documents containing the term
  uint32_t first_skip;     // index of its first SkipEntry; it has ceil(df / 128) of them
  uint64_t postings_offset;   // into kPostings, start of its first block
  uint64_t positions_offset;  // into kPositions, start of its first block's positions
};
inline constexpr uint32_t kDictEntrySize = 32;

// One postings block of a term, 12 + 8 F bytes on disk (36 in version 2, 44 in version 3).
struct SkipEntry {
  uint32_t last_doc;        // last local doc of the block
  uint32_t block_offset;    // relative to the term's postings_offset
  uint32_t positions_offset;  // relative to the term's positions_offset
  uint32_t max_tf[kMaxFields];   // per field maximum term frequency in the block (F on disk, then max_tf
  uint32_t min_len[kMaxFields];  // [F]..., then min_len[F]); fields absent from the file read as 0
};
inline constexpr uint32_t SkipEntrySize(int fields) { return 12 + 8 * fields; }

inline constexpr uint32_t kColumnsPerDoc = 5;
inline constexpr int kNumValueFamilies = 5;  // tenant, source_type, site, version, group (+ public)

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace attest::segfmt
