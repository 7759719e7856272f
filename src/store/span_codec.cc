#include "store/span_codec.h"

#include "common/varint.h"

namespace attest {

std::string EncodeSpans(std::span<const ChunkSpan> spans) {
  if (spans.empty()) return {};
  std::string out;
  out.push_back(static_cast<char>(kSpanBlobMagic));
  out.push_back(static_cast<char>(kSpanBlobVersion));
  PutVarint(&out, spans.size());
  uint32_t previous_end = 0;
  const std::string* previous_subject = nullptr;
  for (const ChunkSpan& s : spans) {
    PutVarint(&out, s.begin - previous_end);
    PutVarint(&out, s.end - s.begin);
    out.push_back(static_cast<char>(s.role));
    if (s.subject.empty()) {
      PutVarint(&out, 0);
    } else if (previous_subject != nullptr && *previous_subject == s.subject) {
      PutVarint(&out, 1);
    } else {
      PutVarint(&out, s.subject.size() + 2);
      out += s.subject;
    }
    previous_end = s.end;
    previous_subject = &s.subject;
  }
  return out;
}

Result<std::vector<ChunkSpan>> DecodeSpans(std::string_view blob, size_t text_size) {
  auto bad = [](const std::string& why) { return Status::InvalidArgument("span encoding: " + why); };
  const auto* p = reinterpret_cast<const uint8_t*>(blob.data());
  const uint8_t* end = p + blob.size();
  if (blob.size() < 3 || p[0] != kSpanBlobMagic) return bad("no magic byte");
  if (p[1] != kSpanBlobVersion) return bad("unknown version " + std::to_string(p[1]));
  p += 2;
  uint64_t count = 0;
  p = GetVarint(p, end, &count);
  if (p == nullptr) return bad("truncated count");
  // Each span takes at least 4 bytes of blob and 1 byte of text.
  if (count == 0 || count > blob.size() / 4 || count > text_size) {
    return bad("span count " + std::to_string(count) + " impossible for its size");
  }
  std::vector<ChunkSpan> spans;
  spans.reserve(count);
  uint64_t at = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string which = "span " + std::to_string(i);
    uint64_t gap = 0, length = 0, tag = 0;
    p = GetVarint(p, end, &gap);
    if (p != nullptr) p = GetVarint(p, end, &length);
    if (p == nullptr || p >= end) return bad(which + " is truncated");
    const uint8_t role = *p++;
    p = GetVarint(p, end, &tag);
    if (p == nullptr) return bad(which + " is truncated");
    if (length == 0 || gap > text_size || length > text_size || at + gap + length > text_size) {
      return bad(which + " lies outside the chunk text (" + std::to_string(text_size) + " bytes)");
    }
    if (role > static_cast<uint8_t>(SpanRole::kCode)) return bad(which + " has unknown role " + std::to_string(role));
    ChunkSpan s;
    s.begin = static_cast<uint32_t>(at + gap);
    s.end = static_cast<uint32_t>(at + gap + length);
    s.role = static_cast<SpanRole>(role);
    if (tag == 1) {
      if (spans.empty()) return bad(which + " repeats the subject of no span");
      s.subject = spans.back().subject;
    } else if (tag >= 2) {
      const uint64_t n = tag - 2;
      if (n > static_cast<uint64_t>(end - p)) return bad(which + " has a subject past the end");
      s.subject.assign(reinterpret_cast<const char*>(p), n);
      p += n;
    }
    at = s.end;
    spans.push_back(std::move(s));
  }
  if (p != end) return bad(std::to_string(end - p) + " bytes after the last span");
  return spans;
}

}  // namespace attest
