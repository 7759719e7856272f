#include "lexical/segment_impl.h"

#include <algorithm>
#include <bit>
#include <string>
#include <tuple>
#include <vector>

#include "common/checksum.h"
#include "common/varint.h"
#include "lexical/postings_codec.h"

namespace attest {

using namespace segfmt;  // NOLINT(google-build-using-namespace): format constants

static_assert(std::endian::native == std::endian::little, "segment format readers assume little-endian");

namespace {

const char* SectionName(int s) {
  static const char* kNames[kNumSections] = {
      "meta",         "chunk_ids",    "field_lengths", "dictionary", "term_blob",   "skips",
      "postings",     "positions",    "tenant_dict",   "source_type_dict", "site_dict",
      "version_dict", "group_dict",   "attr_columns",  "acl_offsets", "acl_ids",
      "value_list_offsets", "value_list_docs", "label_dict", "classes", "class_acl_ids", "doc_class",
      "term_class_offsets", "term_class_df", "chunk_docs", "body_token_offsets", "body_tokens"};
  return kNames[s];
}

Status Corrupt(const std::string& what) { return Status::Corruption("segment: " + what); }

// Entry `id` of a string table section (count u32, offsets u32[count + 1], bytes).
std::string_view StringAt(const uint8_t* p, uint32_t id) {
  const uint32_t c = Load32(p);
  const uint8_t* blob = p + 4 + 4 * (size_t(c) + 1);
  const uint32_t a = Load32(p + 4 + 4 * size_t(id)), b = Load32(p + 8 + 4 * size_t(id));
  return {reinterpret_cast<const char*>(blob + a), b - a};
}

// Reads one LEB128 u32 from [*p, end); false when it runs past `end` or exceeds 32 bits.
bool ReadVarintChecked(const uint8_t*& p, const uint8_t* end, uint32_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (p >= end) return false;
    const uint8_t b = *p++;
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (v > UINT32_MAX) return false;
      *out = static_cast<uint32_t>(v);
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<SegmentImpl>> SegmentImpl::Create(std::shared_ptr<const void> owner,
                                                         const uint8_t* data, size_t size, bool deep) {
  std::unique_ptr<SegmentImpl> impl(new SegmentImpl());
  impl->owner_ = std::move(owner);
  impl->data_ = data;
  impl->size_ = size;
  ATTEST_RETURN_IF_ERROR(impl->Validate(deep));
  return impl;
}

Status SegmentImpl::Validate(bool deep) {
  if (size_ < kHeaderSize + kTailSize) {
    return Corrupt("file of " + std::to_string(size_) + " bytes is too small to be a segment (truncated?)");
  }
  if (std::memcmp(data_, kMagic, 8) != 0) return Corrupt("bad magic at start of file (not a segment file)");
  if (std::memcmp(data_ + size_ - 8, kMagic, 8) != 0) {
    return Corrupt("bad magic at end of file (truncated or not a segment file)");
  }
  const uint32_t stored_crc = Load32(data_ + size_ - 12);
  const uint32_t crc = Crc32c(data_, size_ - 12);
  if (crc != stored_crc) return Corrupt("checksum mismatch (file is damaged)");
  const uint32_t version = Load32(data_ + 8);
  if (version < kMinFormatVersion || version > kFormatVersion) {
    return Status::Unsupported("segment: format version " + std::to_string(version) +
                               " is not supported (this build reads versions " + std::to_string(kMinFormatVersion) +
                               " to " + std::to_string(kFormatVersion) + ")");
  }
  version_ = version;
  num_fields_ = FieldsOfVersion(version);
  skip_size_ = SkipEntrySize(num_fields_);
  const int nf = num_fields_;
  const uint64_t footer = Load64(data_ + size_ - kTailSize);
  const uint64_t footer_end = size_ - kTailSize;
  if (footer < kHeaderSize || footer + 4 > footer_end) return Corrupt("footer offset out of bounds");
  const uint32_t n_sections = Load32(data_ + footer);
  const int expected_sections = SectionsOfVersion(version);
  if (n_sections != uint32_t(expected_sections)) {
    return Corrupt("footer lists " + std::to_string(n_sections) + " sections, expected " +
                   std::to_string(expected_sections) + " in version " + std::to_string(version));
  }
  if (footer + 4 + uint64_t(n_sections) * 16 != footer_end) return Corrupt("footer size mismatch");
  for (int s = 0; s < expected_sections; ++s) {
    const uint64_t off = Load64(data_ + footer + 4 + 16 * s);
    const uint64_t len = Load64(data_ + footer + 12 + 16 * s);
    if (off < kHeaderSize || off > footer || len > footer - off) {
      return Corrupt(std::string("section ") + SectionName(s) + " out of bounds");
    }
    sec_[s] = data_ + off;
    len_[s] = len;
  }
  // Meta.
  if (len_[kMeta] != MetaSize(nf)) return Corrupt("meta section has wrong size");
  num_docs_ = Load32(sec_[kMeta]);
  num_terms_ = Load32(sec_[kMeta] + 4);
  num_skips_ = Load32(sec_[kMeta] + 8);
  for (int f = 0; f < nf; ++f) total_len_[f] = Load64(sec_[kMeta] + 16 + 8 * f);
  const uint64_t n = num_docs_;
  if (len_[kChunkIds] != 8 * n) return Corrupt("chunk id section size does not match doc count");
  if (len_[kFieldLens] != 4 * uint64_t(nf) * n) return Corrupt("field length section size does not match doc count");
  if (len_[kDict] != uint64_t(kDictEntrySize) * num_terms_) return Corrupt("dictionary size mismatch");
  if (len_[kSkips] != uint64_t(skip_size_) * num_skips_) return Corrupt("skip table size mismatch");
  if (len_[kAttrColumns] != 20 * n) return Corrupt("attribute column size mismatch");
  if (len_[kAclOffsets] != 4 * (n + 1)) return Corrupt("ACL offsets size mismatch");
  if (len_[kPostings] < codec::kReadPadding) return Corrupt("postings section lacks padding");
  // Per-doc data.
  uint64_t sums[kMaxFields] = {0, 0, 0, 0};
  for (uint32_t d = 0; d < num_docs_; ++d) {
    if (d > 0 && chunk_id(d) <= chunk_id(d - 1)) return Corrupt("chunk ids are not strictly increasing");
    for (int f = 0; f < nf; ++f) sums[f] += field_len(d, f);
  }
  for (int f = 0; f < nf; ++f) {
    if (sums[f] != total_len_[f]) return Corrupt("field length totals do not match meta");
  }
  length_codes_.resize(kMaxFields * n);
  for (uint32_t d = 0; d < num_docs_; ++d) {
    for (int f = 0; f < kMaxFields; ++f) length_codes_[kMaxFields * size_t(d) + f] = LengthCode(field_len(d, f));
  }
  // Attribute dictionaries and columns.
  for (int fam = 0; fam < 5; ++fam) ATTEST_RETURN_IF_ERROR(ValidateStringTable(kTenantDict + fam, &dict_count_[fam]));
  for (int fam = 0; fam < 5; ++fam) family_base_[fam + 1] = family_base_[fam] + dict_count_[fam];
  num_value_lists_ = family_base_[5] + 1;  // + the public list
  for (uint32_t d = 0; d < num_docs_; ++d) {
    for (int fam = 0; fam < 4; ++fam) {
      if (column(d, static_cast<AttrFamily>(fam)) >= dict_count_[fam]) {
        return Corrupt("attribute column value out of dictionary range");
      }
    }
  }
  const uint64_t n_acl = len_[kAclIds] / 4;
  if (len_[kAclIds] % 4 != 0) return Corrupt("ACL ids size is not a multiple of 4");
  for (uint32_t d = 0; d <= num_docs_; ++d) {
    const uint32_t o = Load32(sec_[kAclOffsets] + 4 * size_t(d));
    if ((d == 0 && o != 0) || (d > 0 && o < Load32(sec_[kAclOffsets] + 4 * size_t(d - 1))) || o > n_acl) {
      return Corrupt("ACL offsets are not monotonic or out of range");
    }
  }
  if (Load32(sec_[kAclOffsets] + 4 * n) != n_acl) return Corrupt("ACL offsets do not cover the ACL ids");
  for (uint32_t d = 0; d < num_docs_; ++d) {
    U32List l = acl(d);
    for (uint32_t i = 0; i < l.size; ++i) {
      if (l[i] >= dict_count_[4] || (i > 0 && l[i] <= l[i - 1])) return Corrupt("ACL group ids invalid");
    }
  }
  // Value lists.
  if (len_[kValueListOffsets] != 4 * (uint64_t(num_value_lists_) + 1)) return Corrupt("value list offsets size mismatch");
  if (len_[kValueListDocs] % 4 != 0) return Corrupt("value list docs size is not a multiple of 4");
  const uint64_t n_vdocs = len_[kValueListDocs] / 4;
  for (uint32_t g = 0; g <= num_value_lists_; ++g) {
    const uint32_t o = Load32(sec_[kValueListOffsets] + 4 * size_t(g));
    if ((g == 0 && o != 0) || (g > 0 && o < Load32(sec_[kValueListOffsets] + 4 * size_t(g - 1))) || o > n_vdocs) {
      return Corrupt("value list offsets are not monotonic or out of range");
    }
  }
  if (Load32(sec_[kValueListOffsets] + 4 * size_t(num_value_lists_)) != n_vdocs) {
    return Corrupt("value list offsets do not cover the value list docs");
  }
  for (uint32_t g = 0; g < num_value_lists_; ++g) {
    U32List l = ValueList(g);
    for (uint32_t i = 0; i < l.size; ++i) {
      if (l[i] >= num_docs_ || (i > 0 && l[i] <= l[i - 1])) return Corrupt("value list docs invalid");
    }
  }
  for (int fam = 0; fam < 4; ++fam) {
    if (dict_count_[fam] == 1 && ValueList(family_base_[fam]).size != 0) {
      return Corrupt("the list of a single-valued attribute family must be empty");
    }
  }
  ATTEST_RETURN_IF_ERROR(ValidateClasses(deep));
  ATTEST_RETURN_IF_ERROR(ValidateBodyTokens(deep));
  if (!deep) return Status::Ok();
  // The value lists must be exactly the inverse of the per-doc columns and ACL lists: filtered
  // search drives from the lists and checks the columns, the oracle reads the columns only.
  {
    std::vector<uint32_t> expected(num_value_lists_, 0);
    for (uint32_t d = 0; d < num_docs_; ++d) {
      for (int fam = 0; fam < 4; ++fam) {
        if (dict_count_[fam] > 1) ++expected[family_base_[fam] + column(d, static_cast<AttrFamily>(fam))];
      }
      const U32List groups = acl(d);
      for (uint32_t i = 0; i < groups.size; ++i) ++expected[family_base_[4] + groups[i]];
      if (groups.size == 0) ++expected[family_base_[5]];
    }
    for (uint32_t g = 0; g < num_value_lists_; ++g) {
      const U32List l = ValueList(g);
      if (l.size != expected[g]) return Corrupt("value lists disagree with the attribute columns");
      int fam = 0;
      while (fam < 5 && g >= family_base_[fam + 1]) ++fam;
      for (uint32_t i = 0; i < l.size; ++i) {
        const uint32_t d = l[i];
        bool has = false;
        if (fam < 4) {
          has = column(d, static_cast<AttrFamily>(fam)) == g - family_base_[fam];
        } else if (fam == 4) {
          const U32List groups = acl(d);
          for (uint32_t j = 0; j < groups.size && !has; ++j) has = groups[j] == g - family_base_[4];
        } else {
          has = acl(d).size == 0;
        }
        if (!has) return Corrupt("value lists disagree with the attribute columns");
      }
    }
  }
  return ValidatePostings();
}

Status SegmentImpl::ValidateStringTable(int s, uint32_t* count) {
  const uint8_t* p = sec_[s];
  const uint64_t len = len_[s];
  const std::string name = SectionName(s);
  if (len < 8) return Corrupt(name + " too small");
  const uint32_t c = Load32(p);
  if (uint64_t(c) * 4 + 8 > len) return Corrupt(name + " count out of range");
  const uint64_t blob = 4 + 4 * (uint64_t(c) + 1);
  uint32_t prev = 0;
  for (uint32_t i = 0; i <= c; ++i) {
    const uint32_t o = Load32(p + 4 + 4 * size_t(i));
    if (o < prev || blob + o > len || (i == 0 && o != 0)) return Corrupt(name + " offsets invalid");
    prev = o;
  }
  if (blob + prev != len) return Corrupt(name + " size mismatch");
  *count = c;
  for (uint32_t i = 1; i < c; ++i) {
    if (!(StringAt(sec_[s], i - 1) < StringAt(sec_[s], i))) {
      *count = 0;
      return Corrupt(name + " is not sorted");
    }
  }
  return Status::Ok();
}

Status SegmentImpl::ValidatePostings() {
  const uint8_t* post_end = sec_[kPostings] + len_[kPostings] - codec::kReadPadding;
  uint32_t expected_skip = 0;
  uint32_t docs[kBlockSize];
  std::vector<uint32_t> class_count(num_classes_, 0);
  for (uint32_t t = 0; t < num_terms_; ++t) {
    const uint8_t* e = sec_[kDict] + size_t(t) * kDictEntrySize;
    const uint32_t toff = Load32(e), tlen = Load32(e + 4), df = Load32(e + 8), first_skip = Load32(e + 12);
    const uint64_t poff = Load64(e + 16), posoff = Load64(e + 24);
    if (uint64_t(toff) + tlen > len_[kTermBlob]) return Corrupt("term bytes out of bounds");
    if (t > 0 && !(term(t - 1) < term(t))) return Corrupt("dictionary terms are not strictly sorted");
    if (df == 0 || df > num_docs_) return Corrupt("term document frequency out of range");
    const uint32_t nb = (df + kBlockSize - 1) / kBlockSize;
    if (first_skip != expected_skip || uint64_t(first_skip) + nb > num_skips_) return Corrupt("term skip index out of range");
    expected_skip += nb;
    if (poff >= len_[kPostings] - codec::kReadPadding || posoff > len_[kPositions]) {
      return Corrupt("term postings offset out of range");
    }
    const uint8_t* base = sec_[kPostings] + poff;
    int64_t prev = -1;
    for (uint32_t b = 0; b < nb; ++b) {
      SkipEntry s = skip(first_skip + b);
      const uint32_t n = b + 1 < nb ? kBlockSize : df - b * kBlockSize;
      const uint8_t* p = base + s.block_offset;
      if (p + 1 + num_fields_ > post_end) return Corrupt("postings block out of bounds");
      for (int i = 0; i <= num_fields_; ++i) {
        if (p[i] > 32) return Corrupt("postings block bit width > 32");
      }
      if (codec::EncodedBlockSize(p, n, num_fields_) > size_t(post_end - p)) {
        return Corrupt("postings block out of bounds");
      }
      if (posoff + s.positions_offset > len_[kPositions]) return Corrupt("positions offset out of bounds");
      // Decode the gaps with 64-bit sums so that no wrap-around can hide an out-of-range doc.
      codec::UnpackBits(p + 1 + num_fields_, n, p[0], docs);
      uint64_t acc = uint64_t(prev + 1);
      for (uint32_t i = 0; i < n; ++i) {
        acc += uint64_t(docs[i]) + (i == 0 ? 0 : 1);
        if (acc >= num_docs_) return Corrupt("postings doc id out of range");
      }
      if (acc != s.last_doc) return Corrupt("postings block does not end at its skip entry's last doc");
      // The block-max data must really bound the block: TopK prunes on it, and only true bounds
      // keep TopK equal to exhaustive scoring (a tampered file with a valid checksum could lie).
      {
        uint32_t tfs[kMaxFields][kBlockSize];
        const uint8_t* arr = p + 1 + num_fields_ + codec::PackedBytes(n, p[0]);
        uint32_t doc = uint32_t(prev + 1);
        uint32_t abs_docs[kBlockSize];
        for (uint32_t i = 0; i < n; ++i) {
          doc = i == 0 ? uint32_t(prev + 1) + docs[0] : doc + docs[i] + 1;
          abs_docs[i] = doc;
          ++class_count[doc_class(doc)];
        }
        for (int f = 0; f < num_fields_; ++f) {
          codec::UnpackBits(arr, n, p[1 + f], tfs[f]);
          arr += codec::PackedBytes(n, p[1 + f]);
          for (uint32_t i = 0; i < n; ++i) {
            if (tfs[f][i] > s.max_tf[f] || field_len(abs_docs[i], f) < s.min_len[f]) {
              return Corrupt("postings block exceeds its skip entry's block-max bounds");
            }
          }
        }
        // Positions: per doc and field, tf delta varints that stay inside the section and add up
        // to positions within 32 bits, so that they are sorted as the phrase matcher reads them
        // (a wrapped sum would make TopK and the exhaustive oracle disagree on phrases).
        const uint8_t* pp = sec_[kPositions] + posoff + s.positions_offset;
        const uint8_t* pend = positions_end();
        for (uint32_t i = 0; i < n; ++i) {
          for (int f = 0; f < num_fields_; ++f) {
            uint64_t acc = 0;
            for (uint32_t j = 0; j < tfs[f][i]; ++j) {
              uint64_t v;
              pp = GetVarint(pp, pend, &v);
              if (pp == nullptr) return Corrupt("positions truncated or malformed");
              if (v > UINT32_MAX || (acc += v) > UINT32_MAX) return Corrupt("a position exceeds 32 bits");
            }
          }
        }
      }
      prev = s.last_doc;
    }
    // The per-class frequencies (they add up to df, checked before) must be the postings' own.
    bool classes_ok = true;
    ForEachClassDf(t, df, [&](uint32_t c, uint32_t cdf) {
      if (class_count[c] != cdf) classes_ok = false;
      class_count[c] = 0;
    });
    if (!classes_ok) return Corrupt("term class frequencies disagree with the postings");
  }
  if (expected_skip != num_skips_) return Corrupt("skip table has entries no term uses");
  return Status::Ok();
}

std::optional<uint32_t> SegmentImpl::local_of(uint64_t id) const {
  if (num_docs_ == 0 || id < chunk_id(0)) return std::nullopt;
  // Chunk ids ascend strictly, so local <= id - chunk_id(0); a segment written from one batch has
  // consecutive ids and the bound is the answer.
  const uint64_t bound = id - chunk_id(0);
  if (bound < num_docs_ && chunk_id(static_cast<uint32_t>(bound)) == id) return static_cast<uint32_t>(bound);
  uint32_t lo = 0, hi = static_cast<uint32_t>(std::min<uint64_t>(num_docs_, bound + 1));
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (chunk_id(mid) < id) lo = mid + 1; else hi = mid;
  }
  if (lo < num_docs_ && chunk_id(lo) == id) return lo;
  return std::nullopt;
}

std::string_view SegmentImpl::term(uint32_t index) const {
  const uint8_t* e = sec_[kDict] + size_t(index) * kDictEntrySize;
  return {reinterpret_cast<const char*>(sec_[kTermBlob] + Load32(e)), Load32(e + 4)};
}

TermPostings SegmentImpl::postings(uint32_t index) const {
  const uint8_t* e = sec_[kDict] + size_t(index) * kDictEntrySize;
  TermPostings tp;
  tp.df = Load32(e + 8);
  tp.num_blocks = (tp.df + kBlockSize - 1) / kBlockSize;
  tp.first_skip = Load32(e + 12);
  tp.postings = sec_[kPostings] + Load64(e + 16);
  tp.positions = sec_[kPositions] + Load64(e + 24);
  return tp;
}

std::optional<TermPostings> SegmentImpl::FindTerm(std::string_view t) const {
  uint32_t lo = 0, hi = num_terms_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (term(mid) < t) lo = mid + 1; else hi = mid;
  }
  if (lo < num_terms_ && term(lo) == t) return postings(lo);
  return std::nullopt;
}

SkipEntry SegmentImpl::skip(uint32_t index) const {
  const uint8_t* p = skip_ptr(index);
  SkipEntry s;
  s.last_doc = Load32(p);
  s.block_offset = Load32(p + 4);
  s.positions_offset = Load32(p + 8);
  for (int f = 0; f < kMaxFields; ++f) {
    const bool stored = f < num_fields_;
    s.max_tf[f] = stored ? Load32(p + 12 + 4 * f) : 0;
    s.min_len[f] = stored ? Load32(p + 12 + 4 * num_fields_ + 4 * f) : 0;
  }
  return s;
}

std::string_view SegmentImpl::value(AttrFamily f, uint32_t id) const {
  return StringAt(sec_[kTenantDict + static_cast<int>(f)], id);
}

std::string_view SegmentImpl::label(uint32_t id) const { return StringAt(sec_[kLabelDict], id); }

std::optional<uint32_t> SegmentImpl::FindLabel(std::string_view s) const {
  uint32_t lo = 0, hi = num_labels_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (label(mid) < s) lo = mid + 1; else hi = mid;
  }
  if (lo < num_labels_ && label(lo) == s) return lo;
  return std::nullopt;
}

ClassEntry SegmentImpl::class_entry(uint32_t c) const {
  const uint8_t* p = sec_[kClasses] + size_t(c) * ClassEntrySize(num_fields_);
  ClassEntry e;
  e.tenant = Load32(p);
  e.label = Load32(p + 4);
  e.acl_offset = Load32(p + 8);
  e.acl_count = Load32(p + 12);
  e.num_docs = Load32(p + 16);
  e.reserved = Load32(p + 20);
  for (int f = 0; f < kMaxFields; ++f) e.total_len[f] = f < num_fields_ ? Load64(p + 24 + 8 * f) : 0;
  return e;
}

U32List SegmentImpl::class_acl(uint32_t c) const {
  const ClassEntry e = class_entry(c);
  return {sec_[kClassAclIds] + 4 * size_t(e.acl_offset), e.acl_count};
}

std::optional<uint32_t> SegmentImpl::FindTermIndex(std::string_view t) const {
  uint32_t lo = 0, hi = num_terms_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (term(mid) < t) lo = mid + 1; else hi = mid;
  }
  if (lo < num_terms_ && term(lo) == t) return lo;
  return std::nullopt;
}

Status SegmentImpl::ValidateClasses(bool deep) {
  ATTEST_RETURN_IF_ERROR(ValidateStringTable(kLabelDict, &num_labels_));
  const uint32_t entry_size = ClassEntrySize(num_fields_);
  if (len_[kClasses] % entry_size != 0) return Corrupt("class table size is not a multiple of the entry size");
  const uint64_t nc = len_[kClasses] / entry_size;
  if (nc > num_docs_ || (num_docs_ > 0 && nc == 0)) return Corrupt("class count out of range");
  num_classes_ = static_cast<uint32_t>(nc);
  if (len_[kClassAclIds] % 4 != 0) return Corrupt("class ACL ids size is not a multiple of 4");
  const uint64_t n_acl = len_[kClassAclIds] / 4;
  const int nf = num_fields_;
  uint64_t docs = 0, lens[kMaxFields] = {0, 0, 0, 0}, expected_acl = 0;
  for (uint32_t c = 0; c < num_classes_; ++c) {
    const ClassEntry e = class_entry(c);
    if (e.tenant >= dict_count_[0] || e.label >= num_labels_) return Corrupt("class attribute out of dictionary range");
    if (e.acl_offset != expected_acl || uint64_t(e.acl_offset) + e.acl_count > n_acl) {
      return Corrupt("class ACL out of range");
    }
    expected_acl += e.acl_count;
    const U32List acl_ids = class_acl(c);
    for (uint32_t i = 0; i < acl_ids.size; ++i) {
      if (acl_ids[i] >= dict_count_[4] || (i > 0 && acl_ids[i] <= acl_ids[i - 1])) return Corrupt("class ACL invalid");
    }
    if (c > 0) {  // strictly increasing keys: classes are distinct
      const ClassEntry p = class_entry(c - 1);
      const U32List pa = class_acl(c - 1);
      std::vector<uint32_t> a(acl_ids.size), b(pa.size);
      for (uint32_t i = 0; i < acl_ids.size; ++i) a[i] = acl_ids[i];
      for (uint32_t i = 0; i < pa.size; ++i) b[i] = pa[i];
      if (!(std::tie(p.tenant, p.label, b) < std::tie(e.tenant, e.label, a))) return Corrupt("classes are not sorted");
    }
    if (e.num_docs == 0) return Corrupt("empty visibility class");
    docs += e.num_docs;
    for (int f = 0; f < nf; ++f) lens[f] += e.total_len[f];
  }
  if (expected_acl != n_acl) return Corrupt("class ACL ids not covered by the classes");
  if (docs != num_docs_) return Corrupt("class sizes do not add up to the doc count");
  for (int f = 0; f < nf; ++f) {
    if (lens[f] != total_len_[f]) return Corrupt("class field lengths do not add up to the totals");
  }
  if (len_[kDocClass] != 4 * uint64_t(num_docs_)) return Corrupt("doc class column size mismatch");
  std::vector<uint32_t> count(num_classes_, 0);
  std::vector<uint64_t> class_lens(kMaxFields * size_t(num_classes_), 0);
  for (uint32_t d = 0; d < num_docs_; ++d) {
    const uint32_t c = doc_class(d);
    if (c >= num_classes_) return Corrupt("doc class out of range");
    ++count[c];
    for (int f = 0; f < nf; ++f) class_lens[kMaxFields * size_t(c) + f] += field_len(d, f);
    // A doc's class must hold its tenant and ACL (the filter reads the class, the oracle the columns).
    const ClassEntry e = class_entry(c);
    if (column(d, AttrFamily::kTenant) != e.tenant) return Corrupt("doc class disagrees with the tenant column");
    const U32List a = acl(d), b = class_acl(c);
    if (a.size != b.size) return Corrupt("doc class disagrees with the ACL");
    for (uint32_t i = 0; i < a.size; ++i) {
      if (a[i] != b[i]) return Corrupt("doc class disagrees with the ACL");
    }
  }
  for (uint32_t c = 0; c < num_classes_; ++c) {
    const ClassEntry e = class_entry(c);
    if (count[c] != e.num_docs) return Corrupt("class doc count disagrees with the doc class column");
    for (int f = 0; f < nf; ++f) {
      if (class_lens[kMaxFields * size_t(c) + f] != e.total_len[f]) {
        return Corrupt("class field lengths disagree with the docs");
      }
    }
  }
  // Per-term class frequencies.
  if (num_classes_ <= 1) {
    if (len_[kTermClassOffsets] != 0 || len_[kTermClassDf] != 0) {
      return Corrupt("per-class term frequencies stored for a segment with one class");
    }
    return Status::Ok();
  }
  if (len_[kTermClassOffsets] != 8 * (uint64_t(num_terms_) + 1)) return Corrupt("term class offsets size mismatch");
  uint64_t prev = 0;
  for (uint32_t t = 0; t <= num_terms_; ++t) {
    const uint64_t o = Load64(sec_[kTermClassOffsets] + 8 * size_t(t));
    if ((t == 0 && o != 0) || o < prev || o > len_[kTermClassDf]) return Corrupt("term class offsets invalid");
    prev = o;
  }
  if (prev != len_[kTermClassDf]) return Corrupt("term class offsets do not cover the term class data");
  if (!deep) return Status::Ok();
  for (uint32_t t = 0; t < num_terms_; ++t) {
    const uint8_t* p = sec_[kTermClassDf] + Load64(sec_[kTermClassOffsets] + 8 * size_t(t));
    const uint8_t* end = sec_[kTermClassDf] + Load64(sec_[kTermClassOffsets] + 8 * size_t(t) + 8);
    uint64_t c = 0, sum = 0;
    bool first = true;
    while (p < end) {
      uint32_t delta, df;
      if (!ReadVarintChecked(p, end, &delta) || !ReadVarintChecked(p, end, &df)) {
        return Corrupt("term class data truncated");
      }
      if (!first && delta == 0) return Corrupt("term class ids not increasing");
      c += delta;
      if (c >= num_classes_ || df == 0) return Corrupt("term class entry out of range");
      sum += df;
      first = false;
    }
    if (sum != Load32(sec_[kDict] + size_t(t) * kDictEntrySize + 8)) {
      return Corrupt("term class frequencies do not add up to the term's df");
    }
  }
  return Status::Ok();
}

std::optional<uint32_t> SegmentImpl::FindValue(AttrFamily f, std::string_view s) const {
  uint32_t lo = 0, hi = dict_count_[static_cast<int>(f)];
  const uint32_t n = hi;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (value(f, mid) < s) lo = mid + 1; else hi = mid;
  }
  if (lo < n && value(f, lo) == s) return lo;
  return std::nullopt;
}

U32List SegmentImpl::acl(uint32_t d) const {
  const uint32_t a = Load32(sec_[kAclOffsets] + 4 * size_t(d));
  const uint32_t b = Load32(sec_[kAclOffsets] + 4 * size_t(d) + 4);
  return {sec_[kAclIds] + 4 * size_t(a), b - a};
}

U32List SegmentImpl::ValueList(uint32_t g) const {
  const uint32_t a = Load32(sec_[kValueListOffsets] + 4 * size_t(g));
  const uint32_t b = Load32(sec_[kValueListOffsets] + 4 * size_t(g) + 4);
  return {sec_[kValueListDocs] + 4 * size_t(a), b - a};
}

U32List SegmentImpl::value_docs(AttrFamily f, uint32_t id) const {
  return ValueList(family_base_[static_cast<int>(f)] + id);
}

U32List SegmentImpl::public_docs() const { return ValueList(family_base_[5]); }

}  // namespace attest
