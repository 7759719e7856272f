// The validated, read-only view of one segment image (mmapped file or in-memory bytes).
// Every accessor assumes Open() validation passed: offsets are in bounds, docs < num_docs.
//
// Thread-safety: immutable after construction; any number of threads may read concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/file_util.h"
#include "common/strong_id.h"
#include "lexical/indexed_chunk.h"
#include "lexical/segment_format.h"

namespace attest {

// Lossy, order-preserving one-byte code of a field length: exact below 32, then 3 bits of
// mantissa. LengthFromCode(LengthCode(x)) <= x.
inline uint8_t LengthCode(uint32_t len) {
  if (len < 32) return static_cast<uint8_t>(len);
  const uint32_t e = 31 - __builtin_clz(len);  // >= 5
  const uint32_t m = (len >> (e - 3)) & 7;
  return static_cast<uint8_t>(32 + (e - 5) * 8 + m);
}
inline uint32_t LengthFromCode(uint8_t code) {
  if (code < 32) return code;
  const uint32_t e = (code - 32) / 8 + 5, m = (code - 32) % 8;
  return (8 + m) << (e - 3);
}

// Families of filter attribute values (dictionary-encoded per segment).
enum class AttrFamily : uint32_t { kTenant = 0, kSourceType, kSite, kVersion, kGroup };

// A term's postings inside the segment.
struct TermPostings {
  uint32_t df = 0;
  uint32_t num_blocks = 0;
  uint32_t first_skip = 0;
  const uint8_t* postings = nullptr;   // start of its first block
  const uint8_t* positions = nullptr;  // start of its first block's positions
};

// A read-only list of sorted u32 values stored little-endian (maybe unaligned).
struct U32List {
  const uint8_t* data = nullptr;
  uint32_t size = 0;
  uint32_t operator[](uint32_t i) const { return segfmt::Load32(data + 4 * size_t(i)); }
};

class SegmentImpl {
 public:
  // Validates `bytes` (magic, version, checksum, section bounds, internal structure).
  // `owner` keeps the bytes alive (a MappedFile or a std::string).
  static Result<std::unique_ptr<SegmentImpl>> Create(std::shared_ptr<const void> owner, const uint8_t* data, size_t size,
                                                     bool deep);

  uint32_t num_docs() const { return num_docs_; }
  uint32_t num_terms() const { return num_terms_; }
  uint64_t file_size() const { return size_; }
  // The CRC-32C stored in the tail (verified against the content by Validate()).
  uint32_t content_crc() const { return segfmt::Load32(data_ + size_ - 12); }
  uint32_t version() const { return version_; }
  // Fields stored in the file: 3 in format version 2, 4 since; absent fields read as empty.
  int num_fields() const { return num_fields_; }
  uint64_t total_len(int f) const { return total_len_[f]; }
  uint64_t section_size(int section) const { return len_[section]; }

  uint64_t chunk_id(uint32_t d) const { return segfmt::Load64(sec_[segfmt::kChunkIds] + 8 * size_t(d)); }
  uint32_t field_len(uint32_t d, int f) const {
    return f < num_fields_ ? segfmt::Load32(sec_[segfmt::kFieldLens] + 4 * (size_t(num_fields_) * d + f)) : 0;
  }
  // The kMaxFields lengths of doc d (0 for the fields the file does not store).
  void field_lens(uint32_t d, uint32_t out[segfmt::kMaxFields]) const {
    const uint8_t* row = sec_[segfmt::kFieldLens] + 4 * size_t(num_fields_) * d;
    for (int f = 0; f < segfmt::kMaxFields; ++f) out[f] = f < num_fields_ ? segfmt::Load32(row + 4 * f) : 0;
  }
  std::optional<uint32_t> local_of(uint64_t chunk_id) const;
  // One byte per doc and field: a lower bound of the field length (LengthCode below), so that
  // score upper bounds can be computed from a 4-byte row that stays in cache.
  const uint8_t* length_codes(uint32_t d) const { return length_codes_.data() + segfmt::kMaxFields * size_t(d); }

  std::optional<TermPostings> FindTerm(std::string_view term) const;
  std::string_view term(uint32_t index) const;
  TermPostings postings(uint32_t index) const;
  segfmt::SkipEntry skip(uint32_t index) const;
  uint32_t skip_last_doc(uint32_t index) const {
    return segfmt::Load32(sec_[segfmt::kSkips] + size_t(index) * skip_size_);
  }
  const uint8_t* skip_ptr(uint32_t index) const { return sec_[segfmt::kSkips] + size_t(index) * skip_size_; }
  const uint8_t* positions_end() const { return sec_[segfmt::kPositions] + len_[segfmt::kPositions]; }

  // Attribute dictionaries.
  uint32_t num_values(AttrFamily f) const { return dict_count_[static_cast<int>(f)]; }
  std::string_view value(AttrFamily f, uint32_t id) const;
  std::optional<uint32_t> FindValue(AttrFamily f, std::string_view s) const;
  // Per-doc columns.
  uint32_t column(uint32_t d, AttrFamily f) const {
    return segfmt::Load32(sec_[segfmt::kAttrColumns] + 20 * size_t(d) + 4 * static_cast<int>(f));
  }
  int32_t date(uint32_t d) const {
    return static_cast<int32_t>(segfmt::Load32(sec_[segfmt::kAttrColumns] + 20 * size_t(d) + 16));
  }
  U32List acl(uint32_t d) const;

  // Access labels ("" = unlabelled).
  uint32_t num_labels() const { return num_labels_; }
  std::string_view label(uint32_t id) const;
  std::optional<uint32_t> FindLabel(std::string_view s) const;
  // Visibility classes (docs sharing tenant, label and ACL; docs/segment_format.md).
  uint32_t num_classes() const { return num_classes_; }
  segfmt::ClassEntry class_entry(uint32_t c) const;
  U32List class_acl(uint32_t c) const;
  uint32_t doc_class(uint32_t d) const { return segfmt::Load32(sec_[segfmt::kDocClass] + 4 * size_t(d)); }
  // Calls visit(class, df) for every class with docs containing term `index`, classes increasing.
  // With one class, that class gets the term's df.
  template <typename Visit>
  void ForEachClassDf(uint32_t index, uint32_t df, Visit&& visit) const {
    if (num_classes_ == 1) {
      visit(0u, df);
      return;
    }
    const uint8_t* p = sec_[segfmt::kTermClassDf] + segfmt::Load64(sec_[segfmt::kTermClassOffsets] + 8 * size_t(index));
    const uint8_t* end =
        sec_[segfmt::kTermClassDf] + segfmt::Load64(sec_[segfmt::kTermClassOffsets] + 8 * size_t(index) + 8);
    uint32_t c = 0;
    while (p < end) {
      c += ReadVarint(p);
      visit(c, ReadVarint(p));
    }
  }
  // Index of `term` in the dictionary.
  std::optional<uint32_t> FindTermIndex(std::string_view term) const;

  // The store's document number of doc d (format version 4; 0 when the writer had none).
  bool has_chunk_docs() const { return version_ >= 4; }
  uint64_t chunk_doc(uint32_t d) const { return segfmt::Load64(sec_[segfmt::kChunkDocs] + 8 * size_t(d)); }

  // Body token streams (format version 4): each token of the chunk's body as the analyzer emitted it
  // at ingest, with its term's dictionary index and its byte range in the chunk's text.
  bool has_body_tokens() const { return version_ >= 4; }
  // Calls visit(term_index, start, end) for every body token of doc d, in analysis order. Every read
  // is bounds-checked (a file opened without deep validation is only known to have sane offsets);
  // returns false, having stopped, at a malformed token. Always false without token streams.
  template <typename Visit>
  bool ForEachBodyToken(uint32_t d, Visit&& visit) const {
    if (!has_body_tokens()) return false;
    const uint8_t* base = sec_[segfmt::kBodyTokens];
    const uint8_t* p = base + segfmt::Load64(sec_[segfmt::kBodyTokenOffsets] + 8 * size_t(d));
    const uint8_t* end = base + segfmt::Load64(sec_[segfmt::kBodyTokenOffsets] + 8 * size_t(d) + 8);
    uint32_t prev = 0, term = 0, start = 0, stop = 0;
    while (p < end) {
      if (!DecodeBodyToken(p, end, &prev, num_terms_, &term, &start, &stop)) return false;
      visit(term, start, stop);
    }
    return true;
  }

  // Sorted docs having value `id` of family `f`.
  U32List value_docs(AttrFamily f, uint32_t id) const;
  // Sorted docs with an empty ACL.
  U32List public_docs() const;

 private:
  SegmentImpl() = default;
  Status Validate(bool deep);
  Status ValidateStringTable(int section, uint32_t* count);
  Status ValidatePostings();
  U32List ValueList(uint32_t global_index) const;

  Status ValidateClasses(bool deep);
  Status ValidateBodyTokens(bool deep);
  static bool DecodeBodyToken(const uint8_t*& p, const uint8_t* end, uint32_t* prev_start, uint32_t num_terms,
                              uint32_t* term, uint32_t* start, uint32_t* stop);
  // Varints of kTermClassDf were bounds-checked by Validate().
  static uint32_t ReadVarint(const uint8_t*& p) {
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      v |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }

  std::vector<uint8_t> length_codes_;
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  const uint8_t* sec_[segfmt::kNumSections] = {};
  uint64_t len_[segfmt::kNumSections] = {};
  uint32_t num_docs_ = 0;
  uint32_t num_terms_ = 0;
  uint32_t num_skips_ = 0;
  uint32_t version_ = 0;
  int num_fields_ = segfmt::kMaxFields;
  uint32_t skip_size_ = segfmt::SkipEntrySize(segfmt::kMaxFields);
  uint64_t total_len_[segfmt::kMaxFields] = {0, 0, 0, 0};
  uint32_t dict_count_[5] = {0, 0, 0, 0, 0};
  uint32_t family_base_[6] = {0, 0, 0, 0, 0, 0};
  uint32_t num_value_lists_ = 0;
  uint32_t num_labels_ = 0;
  uint32_t num_classes_ = 0;
};

}  // namespace attest
