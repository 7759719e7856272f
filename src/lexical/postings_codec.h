// Postings block codec: frame-of-reference bit packing of doc-id gaps and per-field term
// frequencies, 128 documents per block (docs/segment_format.md, "Postings").
//
// Block layout: 1 + F width bytes (doc gap, tf title, tf section, tf body[, tf term]; F = 3 fields
// in segment format version 2, 4 in version 3), then each array packed LSB-first with its width,
// each array padded to a whole byte. A gap is
// doc - previous_doc - 1 (the previous doc of a term's first block is -1). A width of 0 means
// every value is 0 and takes no bytes. Readers may load up to 8 bytes past the end of a packed
// array, so the postings section ends with 8 padding bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace attest::codec {

inline constexpr size_t kReadPadding = 8;

inline uint32_t BitWidth(uint32_t v) { return v == 0 ? 0 : 32 - __builtin_clz(v); }

inline size_t PackedBytes(size_t n, uint32_t width) { return (n * width + 7) / 8; }

// Appends `n` values of `width` bits (each value must fit) to `out`.
inline void PackBits(const uint32_t* values, size_t n, uint32_t width, std::string* out) {
  if (width == 0) return;
  uint64_t acc = 0;
  uint32_t bits = 0;
  for (size_t i = 0; i < n; ++i) {
    acc |= uint64_t(values[i]) << bits;
    bits += width;
    while (bits >= 8) {
      out->push_back(static_cast<char>(acc & 0xff));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out->push_back(static_cast<char>(acc & 0xff));
}

// Reads `n` values of `width` bits from `in`. `in` must have kReadPadding readable bytes beyond
// PackedBytes(n, width).
inline void UnpackBits(const uint8_t* in, size_t n, uint32_t width, uint32_t* out) {
  if (width == 0) {
    std::memset(out, 0, n * sizeof(uint32_t));
    return;
  }
  const uint64_t mask = (uint64_t{1} << width) - 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t bit = i * width;
    uint64_t word;
    std::memcpy(&word, in + (bit >> 3), 8);
    out[i] = static_cast<uint32_t>((word >> (bit & 7)) & mask);
  }
}

// Size in bytes of an encoded block of `n` docs with `fields` tf arrays whose header is at `p`.
inline size_t EncodedBlockSize(const uint8_t* p, size_t n, int fields) {
  size_t s = 1 + size_t(fields);
  for (int i = 0; i <= fields; ++i) s += PackedBytes(n, p[i]);
  return s;
}

// Encodes one block. `docs` are absolute local docs (strictly increasing, > prev_doc);
// tf[f][i] the frequency of the term in field f of docs[i], for f < fields.
void EncodeBlock(const uint32_t* docs, const uint32_t* const tf[], int fields, size_t n, int64_t prev_doc,
                 std::string* out);

// Decodes one block of `n` docs with `fields` tf arrays at `p` (which must be followed by
// kReadPadding bytes). Writes absolute docs and tf[0..3]; the fields past `fields` are all 0.
// Returns the number of bytes consumed.
size_t DecodeBlock(const uint8_t* p, size_t n, int fields, int64_t prev_doc, uint32_t* docs, uint32_t* const tf[4]);

// Decodes only the doc ids of a block (the tfs are decoded lazily by DecodeBlockTfs).
size_t DecodeBlockDocs(const uint8_t* p, size_t n, int fields, int64_t prev_doc, uint32_t* docs);
void DecodeBlockTfs(const uint8_t* p, size_t n, int fields, uint32_t* const tf[4]);

}  // namespace attest::codec
