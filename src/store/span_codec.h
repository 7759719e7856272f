// The stored form of a chunk's spans (docs/store_format.md, "Chunk spans"): the catalog's
// chunks.spans BLOB. Untrusted on read: every length, offset and role is checked against the
// blob and the chunk text, and a malformed blob is an error value, never a crash.
//
//   byte 0      magic 0x53 ('S')
//   byte 1      format version, 1
//   varint      number of spans N (>= 1)
//   N times:    varint gap     (begin - end of the previous span; begin for the first)
//               varint length  (end - begin, >= 1)
//               byte   role    (SpanRole, 0..5)
//               varint subject tag: 0 = "", 1 = the previous span's subject, t >= 2: a new
//                              subject of t - 2 bytes follows
//   nothing after the last span.
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "text/chunker.h"

namespace attest {

inline constexpr uint8_t kSpanBlobMagic = 0x53;
inline constexpr uint8_t kSpanBlobVersion = 1;

// The blob of `spans` ("" for none: the column is then NULL). `spans` must be ordered and disjoint.
std::string EncodeSpans(std::span<const ChunkSpan> spans);

// Decodes a blob for a chunk whose text is `text_size` bytes long. InvalidArgument naming what is
// wrong (the caller adds which chunk): a bad magic or version, truncation, trailing bytes, a span
// out of the text or empty, an unknown role, a subject past the blob.
Result<std::vector<ChunkSpan>> DecodeSpans(std::string_view blob, size_t text_size);

}  // namespace attest
