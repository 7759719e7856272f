// A ChunkFilter compiled against one segment's attribute dictionaries: per-doc tests read the
// dictionary-encoded columns; for selective filters, the admitted docs can be materialized from
// the per-value doc lists so the traversal is driven by them.
// Not thread-safe; one per query and segment.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "lexical/lexical_query.h"
#include "lexical/segment_impl.h"
#include "lexical/visibility.h"

namespace attest {

class SegmentFilter {
 public:
  SegmentFilter(const SegmentImpl& seg, const ChunkFilter& filter);

  bool empty() const { return empty_; }               // admits everything
  bool admits_nothing() const { return nothing_; }    // no doc of the segment can pass
  bool Admits(uint32_t d) const;

  // An upper estimate of the number of admitted docs, from the most selective doc lists.
  uint64_t EstimatedCount() const { return estimate_; }
  // The sorted admitted docs (each verified with Admits()).
  std::vector<uint32_t> Materialize() const;

  // Builds a bitmap of the docs of the driving lists (a superset of the admitted docs; exact when
  // the driving predicate is the only one). Then AdmitsFast() rejects most docs with one bit test
  // in a num_docs/8-byte array instead of column and ACL reads. No-op without driving lists.
  void BuildBitmap();
  bool has_bitmap() const { return !bits_.empty(); }
  bool AdmitsFast(uint32_t d) const {
    if (bits_.empty()) return Admits(d);
    if (!((bits_[d >> 6] >> (d & 63)) & 1)) return false;
    return !verify_drive_ || Admits(d);
  }

 private:
  struct Family {
    bool active = false;
    std::vector<uint8_t> allowed;  // per dictionary id
  };
  const SegmentImpl* seg_;
  bool empty_ = true;
  bool nothing_ = false;
  Family fam_[4];                   // tenant (unused: in the class mask), source_type, site, version
  // Tenant, groups and access label are properties of a doc's visibility class: one lookup.
  bool vis_active_ = false;
  ClassMask classes_;
  std::optional<int32_t> date_from_, date_to_;
  uint64_t estimate_ = 0;
  // Doc lists whose union contains every admitted doc (from the most selective family).
  std::vector<U32List> drive_lists_;
  bool verify_drive_ = true;  // other predicates than the driving one are active
  std::vector<uint64_t> bits_;  // BuildBitmap(): docs of the driving lists
};

}  // namespace attest
