#include "lexical/segment_filter.h"

#include <algorithm>

namespace attest {

SegmentFilter::SegmentFilter(const SegmentImpl& seg, const ChunkFilter& filter) : seg_(&seg) {
  empty_ = filter.empty();
  const uint32_t n = seg.num_docs();
  estimate_ = n;
  if (empty_) return;
  int predicates = 0;  // active predicates; the driving one needs no re-check
  auto consider = [&](std::vector<U32List> lists) {
    ++predicates;
    uint64_t total = 0;
    for (const auto& l : lists) total += l.size;
    if (total <= estimate_) {
      estimate_ = total;
      drive_lists_ = std::move(lists);
    }
  };
  auto setup = [&](int fam_index, const std::vector<std::string>& values) {
    Family& fam = fam_[fam_index];
    const auto af = static_cast<AttrFamily>(fam_index);
    if (seg.num_values(af) == 1) {
      // Every doc has the family's only value (its list is stored empty): all or nothing.
      if (std::find(values.begin(), values.end(), seg.value(af, 0)) == values.end()) nothing_ = true;
      return;
    }
    fam.active = true;
    fam.allowed.assign(seg.num_values(af), 0);
    std::vector<U32List> lists;
    for (const auto& v : values) {
      if (auto id = seg.FindValue(af, v); id && !fam.allowed[*id]) {
        fam.allowed[*id] = 1;
        lists.push_back(seg.value_docs(af, *id));
      }
    }
    if (lists.empty()) nothing_ = true;
    consider(std::move(lists));
  };
  // Visibility (tenant, groups, labels) is decided per class; the tenant and group value lists
  // still serve as driving lists for selective filters.
  if (filter.tenant || filter.groups || filter.labels) {
    vis_active_ = true;
    classes_ = ClassMask(seg, filter);
    if (classes_.none()) nothing_ = true;
    if (classes_.all()) vis_active_ = false;
  }
  if (filter.labels) ++predicates;
  if (filter.tenant) {
    setup(0, {*filter.tenant});
    fam_[0].active = false;  // checked through the class
  }
  if (!filter.source_types.empty()) setup(1, filter.source_types);
  if (!filter.sites.empty()) setup(2, filter.sites);
  if (!filter.versions.empty()) setup(3, filter.versions);
  if (filter.groups) {
    std::vector<uint8_t> seen(seg.num_values(AttrFamily::kGroup), 0);
    std::vector<U32List> lists{seg.public_docs()};
    for (const auto& g : *filter.groups) {
      if (auto id = seg.FindValue(AttrFamily::kGroup, g); id && !seen[*id]) {
        seen[*id] = 1;
        lists.push_back(seg.value_docs(AttrFamily::kGroup, *id));
      }
    }
    consider(std::move(lists));
  }
  date_from_ = filter.date_from;
  date_to_ = filter.date_to;
  if (date_from_ || date_to_) ++predicates;
  // Docs of the driving lists satisfy the driving predicate by construction.
  verify_drive_ = drive_lists_.empty() || predicates > 1;
  if (date_from_ && date_to_ && *date_from_ > *date_to_) nothing_ = true;
  if (nothing_) estimate_ = 0;
}

bool SegmentFilter::Admits(uint32_t d) const {
  if (empty_) return true;
  if (nothing_) return false;
  for (int f = 0; f < 4; ++f) {
    if (fam_[f].active && !fam_[f].allowed[seg_->column(d, static_cast<AttrFamily>(f))]) return false;
  }
  if (date_from_ || date_to_) {
    const int32_t date = seg_->date(d);
    if (date == ChunkAttributes::kNoDate) return false;
    if (date_from_ && date < *date_from_) return false;
    if (date_to_ && date > *date_to_) return false;
  }
  if (vis_active_ && !classes_.admits(seg_->doc_class(d))) return false;
  return true;
}

void SegmentFilter::BuildBitmap() {
  if (empty_ || nothing_ || drive_lists_.empty()) return;
  bits_.assign((size_t(seg_->num_docs()) + 63) / 64, 0);
  for (const U32List& l : drive_lists_) {
    for (uint32_t i = 0; i < l.size; ++i) bits_[l[i] >> 6] |= uint64_t{1} << (l[i] & 63);
  }
}

std::vector<uint32_t> SegmentFilter::Materialize() const {
  std::vector<uint32_t> out;
  if (nothing_) return out;
  if (drive_lists_.empty()) {  // only a date range: scan the column
    for (uint32_t d = 0; d < seg_->num_docs(); ++d) {
      if (Admits(d)) out.push_back(d);
    }
    return out;
  }
  out.reserve(estimate_);
  for (const U32List& l : drive_lists_) {
    for (uint32_t i = 0; i < l.size; ++i) {
      if (!verify_drive_ || Admits(l[i])) out.push_back(l[i]);
    }
  }
  if (drive_lists_.size() > 1) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

}  // namespace attest
