#include "lexical/postings_codec.h"

#include <cstring>

namespace attest::codec {

void EncodeBlock(const uint32_t* docs, const uint32_t* const tf[], int fields, size_t n, int64_t prev_doc,
                 std::string* out) {
  uint32_t gaps[128 + 1];
  uint32_t max_gap = 0;
  int64_t prev = prev_doc;
  for (size_t i = 0; i < n; ++i) {
    gaps[i] = static_cast<uint32_t>(int64_t(docs[i]) - prev - 1);
    max_gap |= gaps[i];
    prev = docs[i];
  }
  uint32_t w[5] = {BitWidth(max_gap), 0, 0, 0, 0};
  for (int f = 0; f < fields; ++f) {
    uint32_t max_tf = 0;
    for (size_t i = 0; i < n; ++i) max_tf |= tf[f][i];
    w[f + 1] = BitWidth(max_tf);
  }
  for (int i = 0; i <= fields; ++i) out->push_back(static_cast<char>(w[i]));
  PackBits(gaps, n, w[0], out);
  for (int f = 0; f < fields; ++f) PackBits(tf[f], n, w[f + 1], out);
}

size_t DecodeBlockDocs(const uint8_t* p, size_t n, int fields, int64_t prev_doc, uint32_t* docs) {
  UnpackBits(p + 1 + fields, n, p[0], docs);
  uint32_t prev = static_cast<uint32_t>(prev_doc);  // -1 wraps to 0xffffffff; +1 gives 0
  for (size_t i = 0; i < n; ++i) {
    prev = prev + docs[i] + 1;
    docs[i] = prev;
  }
  return EncodedBlockSize(p, n, fields);
}

void DecodeBlockTfs(const uint8_t* p, size_t n, int fields, uint32_t* const tf[4]) {
  const uint8_t* q = p + 1 + fields + PackedBytes(n, p[0]);
  for (int f = 0; f < 4; ++f) {
    if (f >= fields) {
      std::memset(tf[f], 0, n * sizeof(uint32_t));
      continue;
    }
    UnpackBits(q, n, p[1 + f], tf[f]);
    q += PackedBytes(n, p[1 + f]);
  }
}

size_t DecodeBlock(const uint8_t* p, size_t n, int fields, int64_t prev_doc, uint32_t* docs, uint32_t* const tf[4]) {
  size_t s = DecodeBlockDocs(p, n, fields, prev_doc, docs);
  DecodeBlockTfs(p, n, fields, tf);
  return s;
}

}  // namespace attest::codec
