// LEB128-style variable-length unsigned integers, used by the segment format for
// dictionary offsets and position deltas.
#pragma once

#include <cstdint>
#include <string>

namespace attest {

// Decodes one varint from [p, end). Returns the byte after it, or nullptr on truncation/overflow.
inline const uint8_t* GetVarint(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < end; shift += 7) {
    uint64_t byte = *p++;
    result |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline void PutFixed32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint32_t DecodeFixed32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

}  // namespace attest
