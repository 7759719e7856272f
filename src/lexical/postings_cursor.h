// Forward-only iterator over one term's postings in one segment: NextGEQ via the skip table,
// lazily decoded term frequencies and positions, and shallow block moves for block-max bounds.
// Not thread-safe; one cursor per query thread.
#pragma once

#include <cstdint>
#include <vector>

#include "lexical/segment_impl.h"

namespace attest {

inline constexpr uint32_t kEndDoc = UINT32_MAX;

class PostingsCursor {
 public:
  PostingsCursor(const SegmentImpl& seg, const TermPostings& tp);

  uint32_t doc() const { return doc_; }
  uint32_t df() const { return tp_.df; }
  // Moves to the first doc >= target (kEndDoc when none). Never moves backwards.
  uint32_t NextGEQ(uint32_t target);
  uint32_t Next();

  // Term frequencies of the current doc.
  uint32_t tf(int f) {
    if (!tfs_decoded_) DecodeTfs();
    return tf_[f][i_];
  }
  // The four term frequencies of the current doc (title, section, body, term).
  const uint32_t* tfs() {
    if (!tfs_decoded_) DecodeTfs();
    for (int f = 0; f < segfmt::kMaxFields; ++f) cur_tf_[f] = tf_[f][i_];
    return cur_tf_;
  }
  // Positions of the current doc, per field (sorted).
  void Positions(std::vector<uint32_t> out[segfmt::kMaxFields]);

  // Block-max support: moves a separate block pointer to the block that may contain `target`
  // (without decoding) and returns its index, or num_blocks() when past the end.
  uint32_t ShallowBlock(uint32_t target);
  uint32_t num_blocks() const { return tp_.num_blocks; }
  uint32_t block_last_doc(uint32_t b) const { return seg_->skip_last_doc(tp_.first_skip + b); }
  segfmt::SkipEntry block_entry(uint32_t b) const { return seg_->skip(tp_.first_skip + b); }

 private:
  uint32_t FindBlock(uint32_t from, uint32_t target) const;
  void LoadBlock(uint32_t b);
  void DecodeTfs();

  const SegmentImpl* seg_;
  TermPostings tp_;
  uint32_t block_ = 0;      // current decoded block
  uint32_t shallow_ = 0;    // shallow pointer for block-max
  uint32_t n_ = 0;          // docs in current block
  uint32_t i_ = 0;          // index in block
  uint32_t doc_ = 0;
  bool tfs_decoded_ = false;
  const uint8_t* block_ptr_ = nullptr;
  // Positions decoding state inside the current block.
  const uint8_t* pos_ptr_ = nullptr;
  uint32_t pos_doc_ = 0;
  uint32_t docs_[segfmt::kBlockSize];
  uint32_t tf_[segfmt::kMaxFields][segfmt::kBlockSize];
  uint32_t cur_tf_[segfmt::kMaxFields] = {0, 0, 0, 0};
};

}  // namespace attest
