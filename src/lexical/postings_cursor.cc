#include "lexical/postings_cursor.h"

#include "common/varint.h"
#include "lexical/postings_codec.h"

namespace attest {

using segfmt::kBlockSize;

PostingsCursor::PostingsCursor(const SegmentImpl& seg, const TermPostings& tp) : seg_(&seg), tp_(tp) {
  if (tp_.df == 0) {
    doc_ = kEndDoc;
    block_ = tp_.num_blocks;
    return;
  }
  LoadBlock(0);
}

uint32_t PostingsCursor::FindBlock(uint32_t from, uint32_t target) const {
  // Gallop then binary search over the blocks' last docs.
  uint32_t lo = from, step = 1, hi = from;
  while (hi < tp_.num_blocks && block_last_doc(hi) < target) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > tp_.num_blocks) hi = tp_.num_blocks;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (block_last_doc(mid) < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

void PostingsCursor::LoadBlock(uint32_t b) {
  block_ = b;
  if (b >= tp_.num_blocks) {
    doc_ = kEndDoc;
    return;
  }
  const segfmt::SkipEntry s = seg_->skip(tp_.first_skip + b);
  n_ = b + 1 < tp_.num_blocks ? kBlockSize : tp_.df - b * kBlockSize;
  const int64_t prev = b == 0 ? -1 : int64_t(block_last_doc(b - 1));
  block_ptr_ = tp_.postings + s.block_offset;
  codec::DecodeBlockDocs(block_ptr_, n_, seg_->num_fields(), prev, docs_);
  tfs_decoded_ = false;
  pos_ptr_ = tp_.positions + s.positions_offset;
  pos_doc_ = 0;
  i_ = 0;
  doc_ = docs_[0];
}

void PostingsCursor::DecodeTfs() {
  uint32_t* const out[segfmt::kMaxFields] = {tf_[0], tf_[1], tf_[2], tf_[3]};
  codec::DecodeBlockTfs(block_ptr_, n_, seg_->num_fields(), out);
  tfs_decoded_ = true;
}

uint32_t PostingsCursor::NextGEQ(uint32_t target) {
  if (doc_ >= target) return doc_;
  if (target > block_last_doc(block_)) {
    const uint32_t b = FindBlock(block_ + 1, target);
    LoadBlock(b);
    if (doc_ == kEndDoc) return doc_;
  }
  while (docs_[i_] < target) ++i_;
  doc_ = docs_[i_];
  return doc_;
}

uint32_t PostingsCursor::Next() {
  if (doc_ == kEndDoc) return doc_;
  if (++i_ < n_) return doc_ = docs_[i_];
  LoadBlock(block_ + 1);
  return doc_;
}

uint32_t PostingsCursor::ShallowBlock(uint32_t target) {
  if (shallow_ < block_) shallow_ = block_;
  if (shallow_ < tp_.num_blocks && block_last_doc(shallow_) < target) shallow_ = FindBlock(shallow_ + 1, target);
  return shallow_;
}

namespace {

// Skips `count` varints; returns nullptr if they run past `end`.
const uint8_t* SkipVarints(const uint8_t* p, const uint8_t* end, uint64_t count) {
  while (count > 0) {
    if (p >= end) return nullptr;
    if (!(*p++ & 0x80)) --count;
  }
  return p;
}

}  // namespace

void PostingsCursor::Positions(std::vector<uint32_t> out[segfmt::kMaxFields]) {
  for (int f = 0; f < segfmt::kMaxFields; ++f) out[f].clear();
  if (doc_ == kEndDoc) return;
  if (!tfs_decoded_) DecodeTfs();
  const uint8_t* end = seg_->positions_end();
  if (pos_doc_ > i_) {  // cannot happen with forward iteration, but stay safe
    pos_ptr_ = tp_.positions + seg_->skip(tp_.first_skip + block_).positions_offset;
    pos_doc_ = 0;
  }
  while (pos_ptr_ != nullptr && pos_doc_ < i_) {
    pos_ptr_ = SkipVarints(pos_ptr_, end,
                           uint64_t(tf_[0][pos_doc_]) + tf_[1][pos_doc_] + tf_[2][pos_doc_] + tf_[3][pos_doc_]);
    ++pos_doc_;
  }
  if (pos_ptr_ == nullptr) return;  // damaged positions: report none
  const uint8_t* p = pos_ptr_;
  for (int f = 0; f < segfmt::kMaxFields; ++f) {
    uint32_t prev = 0;
    for (uint32_t j = 0; j < tf_[f][i_]; ++j) {
      uint64_t v;
      p = GetVarint(p, end, &v);
      if (p == nullptr) {
        for (int g = 0; g < segfmt::kMaxFields; ++g) out[g].clear();
        return;
      }
      prev += static_cast<uint32_t>(v);
      out[f].push_back(prev);
    }
  }
}

}  // namespace attest
