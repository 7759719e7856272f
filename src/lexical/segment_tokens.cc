// The sections format version 4 added (docs/segment_format.md): the chunks' document numbers and the
// body token streams; their validation and the decoding of one token. Part of SegmentImpl
// (segment_impl.h).
#include <string>

#include "common/varint.h"
#include "lexical/segment_impl.h"

namespace attest {

using namespace segfmt;  // NOLINT(google-build-using-namespace): format constants

namespace {
Status Corrupt(const std::string& what) { return Status::Corruption("segment: " + what); }
}  // namespace

Status SegmentImpl::ValidateBodyTokens(bool deep) {
  if (version_ < 4) return Status::Ok();
  if (len_[kChunkDocs] != 8 * uint64_t(num_docs_)) return Corrupt("chunk document section size does not match doc count");
  if (len_[kBodyTokenOffsets] != 8 * (uint64_t(num_docs_) + 1)) return Corrupt("body token offsets size mismatch");
  for (uint32_t d = 0; d <= num_docs_; ++d) {
    const uint64_t o = Load64(sec_[kBodyTokenOffsets] + 8 * size_t(d));
    if ((d == 0 && o != 0) || (d > 0 && o < Load64(sec_[kBodyTokenOffsets] + 8 * size_t(d - 1))) ||
        o > len_[kBodyTokens]) {
      return Corrupt("body token offsets are not monotonic or out of range");
    }
  }
  if (Load64(sec_[kBodyTokenOffsets] + 8 * size_t(num_docs_)) != len_[kBodyTokens]) {
    return Corrupt("body token offsets do not cover the body tokens");
  }
  if (!deep) return Status::Ok();
  for (uint32_t d = 0; d < num_docs_; ++d) {
    if (!ForEachBodyToken(d, [](uint32_t, uint32_t, uint32_t) {})) {
      return Corrupt("body tokens of doc " + std::to_string(d) + " are malformed");
    }
  }
  return Status::Ok();
}

bool SegmentImpl::DecodeBodyToken(const uint8_t*& p, const uint8_t* end, uint32_t* prev_start, uint32_t num_terms,
                                  uint32_t* term, uint32_t* start, uint32_t* stop) {
  uint64_t t = 0, zz = 0, len = 0;
  if ((p = GetVarint(p, end, &t)) == nullptr || (p = GetVarint(p, end, &zz)) == nullptr ||
      (p = GetVarint(p, end, &len)) == nullptr || t > UINT32_MAX || zz > UINT32_MAX || len > UINT32_MAX) {
    return false;
  }
  *term = static_cast<uint32_t>(t);
  const int64_t delta = int64_t(zz >> 1) ^ -int64_t(zz & 1);
  const int64_t at = int64_t(*prev_start) + delta;
  if (*term >= num_terms || at < 0 || at + int64_t(len) > int64_t(UINT32_MAX)) return false;
  *start = static_cast<uint32_t>(at);
  *stop = *start + len;
  *prev_start = *start;
  return true;
}

}  // namespace attest
