#include "lexical/postings_codec.h"

namespace attest::codec {

void EncodeBlock(const uint32_t* docs, const uint32_t* const tf[3], size_t n, int64_t prev_doc,
                 std::string* out) {
  uint32_t gaps[128 + 1];
  uint32_t max_gap = 0;
  int64_t prev = prev_doc;
  for (size_t i = 0; i < n; ++i) {
    gaps[i] = static_cast<uint32_t>(int64_t(docs[i]) - prev - 1);
    max_gap |= gaps[i];
    prev = docs[i];
  }
  uint32_t max_tf[3] = {0, 0, 0};
  for (int f = 0; f < 3; ++f)
    for (size_t i = 0; i < n; ++i) max_tf[f] |= tf[f][i];
  const uint32_t w[4] = {BitWidth(max_gap), BitWidth(max_tf[0]), BitWidth(max_tf[1]),
                         BitWidth(max_tf[2])};
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(w[i]));
  PackBits(gaps, n, w[0], out);
  for (int f = 0; f < 3; ++f) PackBits(tf[f], n, w[f + 1], out);
}

size_t DecodeBlockDocs(const uint8_t* p, size_t n, int64_t prev_doc, uint32_t* docs) {
  UnpackBits(p + 4, n, p[0], docs);
  uint32_t prev = static_cast<uint32_t>(prev_doc);  // -1 wraps to 0xffffffff; +1 gives 0
  for (size_t i = 0; i < n; ++i) {
    prev = prev + docs[i] + 1;
    docs[i] = prev;
  }
  return EncodedBlockSize(p, n);
}

void DecodeBlockTfs(const uint8_t* p, size_t n, uint32_t* tf0, uint32_t* tf1, uint32_t* tf2) {
  const uint8_t* q = p + 4 + PackedBytes(n, p[0]);
  UnpackBits(q, n, p[1], tf0);
  q += PackedBytes(n, p[1]);
  UnpackBits(q, n, p[2], tf1);
  q += PackedBytes(n, p[2]);
  UnpackBits(q, n, p[3], tf2);
}

size_t DecodeBlock(const uint8_t* p, size_t n, int64_t prev_doc, uint32_t* docs, uint32_t* tf0,
                   uint32_t* tf1, uint32_t* tf2) {
  size_t s = DecodeBlockDocs(p, n, prev_doc, docs);
  DecodeBlockTfs(p, n, tf0, tf1, tf2);
  return s;
}

}  // namespace attest::codec
