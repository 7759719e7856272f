// What a caller may read, resolved against segments: the visibility classes (docs sharing tenant,
// access label and ACL; docs/segment_format.md) that the caller's tenant, groups and labels admit,
// and BM25 collection statistics computed over exactly those docs.
//
// Why: document frequencies and lengths of documents a caller cannot read must not move that
// caller's scores, or a score would reveal whether hidden text contains a word (docs/security.md,
// "Tenant-private statistics"). Per-class totals and per-term per-class frequencies are stored in
// each segment, so the statistics cost O(classes) per segment and term, never a postings scan.
//
// Thread-safety: immutable after construction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lexical/lexical_query.h"
#include "lexical/segment.h"

namespace attest {

class SegmentImpl;

// The classes of one segment that a filter's visibility predicates admit.
class ClassMask {
 public:
  ClassMask() = default;
  ClassMask(const SegmentImpl& seg, const ChunkFilter& filter);
  bool all() const { return all_; }
  bool none() const { return none_; }
  bool admits(uint32_t c) const { return all_ || (!none_ && admitted_[c]); }

 private:
  bool all_ = true;
  bool none_ = false;
  std::vector<uint8_t> admitted_;  // per class, when neither all_ nor none_
};

// BM25 collection statistics over the chunks (live and deleted, as Lucene counts them) that a
// filter's visibility predicates admit.
class ScopedStats {
 public:
  ScopedStats(const std::vector<SegmentView>& segments, const ChunkFilter& filter);
  uint64_t num_docs() const { return num_docs_; }
  const double* avg_len() const { return avg_len_; }
  uint64_t total_len(int field) const { return total_len_[field]; }
  // Chunks containing `term` among the admitted ones.
  uint64_t DocFreq(std::string_view term) const;

 private:
  const std::vector<SegmentView>* segments_;
  std::vector<ClassMask> masks_;  // per segment
  uint64_t num_docs_ = 0;
  double avg_len_[kNumFields] = {0, 0, 0, 0};
  uint64_t total_len_[kNumFields] = {0, 0, 0, 0};
};

}  // namespace attest
