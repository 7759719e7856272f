#include "lexical/visibility.h"

#include <algorithm>

#include "lexical/segment_impl.h"

namespace attest {

ClassMask::ClassMask(const SegmentImpl& seg, const ChunkFilter& f) {
  if (!f.tenant && !f.groups && !f.labels) return;  // everything is visible
  const uint32_t n = seg.num_classes();
  // Resolve the filter's strings to this segment's dictionary ids once.
  std::optional<uint32_t> tenant;
  if (f.tenant) {
    tenant = seg.FindValue(AttrFamily::kTenant, *f.tenant);
    if (!tenant) {
      all_ = false;
      none_ = true;
      return;
    }
  }
  std::vector<uint8_t> group_ok(seg.num_values(AttrFamily::kGroup), 0);
  if (f.groups) {
    for (const auto& g : *f.groups) {
      if (auto id = seg.FindValue(AttrFamily::kGroup, g)) group_ok[*id] = 1;
    }
  }
  std::vector<uint8_t> label_ok(seg.num_labels(), 0);
  if (f.labels) {
    for (const auto& l : *f.labels) {
      if (auto id = seg.FindLabel(l)) label_ok[*id] = 1;
    }
  }
  admitted_.assign(n, 0);
  uint32_t count = 0;
  for (uint32_t c = 0; c < n; ++c) {
    const segfmt::ClassEntry e = seg.class_entry(c);
    bool ok = !tenant || e.tenant == *tenant;
    if (ok && f.labels) ok = label_ok[e.label] != 0;
    if (ok && f.groups && e.acl_count > 0) {
      const U32List acl = seg.class_acl(c);
      bool any = false;
      for (uint32_t i = 0; i < acl.size && !any; ++i) any = group_ok[acl[i]] != 0;
      ok = any;
    }
    admitted_[c] = ok ? 1 : 0;
    count += ok ? 1 : 0;
  }
  all_ = count == n;
  none_ = count == 0;
  if (all_ || none_) admitted_.clear();
}

ScopedStats::ScopedStats(const std::vector<SegmentView>& segments, const ChunkFilter& filter)
    : segments_(&segments) {
  const ChunkFilter vis = filter.Visibility();
  masks_.reserve(segments.size());
  uint64_t total[segfmt::kMaxFields] = {0, 0, 0, 0};
  for (const SegmentView& v : segments) {
    const SegmentImpl& seg = v.segment->impl();
    masks_.emplace_back(seg, vis);
    const ClassMask& m = masks_.back();
    if (m.none()) continue;
    if (m.all()) {
      num_docs_ += seg.num_docs();
      for (int f = 0; f < segfmt::kMaxFields; ++f) total[f] += seg.total_len(f);
      continue;
    }
    for (uint32_t c = 0; c < seg.num_classes(); ++c) {
      if (!m.admits(c)) continue;
      const segfmt::ClassEntry e = seg.class_entry(c);
      num_docs_ += e.num_docs;
      for (int f = 0; f < segfmt::kMaxFields; ++f) total[f] += e.total_len[f];
    }
  }
  for (int f = 0; f < segfmt::kMaxFields; ++f) {
    total_len_[f] = total[f];
    avg_len_[f] = num_docs_ ? double(total[f]) / double(num_docs_) : 0.0;
  }
}

uint64_t ScopedStats::DocFreq(std::string_view term) const {
  uint64_t df = 0;
  for (size_t i = 0; i < segments_->size(); ++i) {
    const ClassMask& m = masks_[i];
    if (m.none()) continue;
    const SegmentImpl& seg = (*segments_)[i].segment->impl();
    const std::optional<uint32_t> t = seg.FindTermIndex(term);
    if (!t) continue;
    const uint32_t term_df = seg.postings(*t).df;
    if (m.all()) {
      df += term_df;
      continue;
    }
    seg.ForEachClassDf(*t, term_df, [&](uint32_t c, uint32_t cdf) {
      if (m.admits(c)) df += cdf;
    });
  }
  return df;
}

}  // namespace attest
