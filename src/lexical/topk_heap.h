// The top-k collector shared by all segments of one search: keeps the k best (score descending,
// ChunkId ascending on ties) and exposes the threshold a candidate must reach.
// Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "lexical/lexical_query.h"

namespace attest {

// True when a ranks strictly before b.
inline bool RanksBefore(const ScoredChunk& a, const ScoredChunk& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.id < b.id;
}

class TopKHeap {
 public:
  explicit TopKHeap(size_t k) : k_(k) { heap_.reserve(std::min<size_t>(k, 4096) + 1); }

  bool full() const { return heap_.size() >= k_; }
  // A candidate whose upper bound is strictly below this can never enter.
  float threshold() const {
    return full() && k_ > 0 ? heap_.front().score : -std::numeric_limits<float>::infinity();
  }
  // With k == 0 nothing ever enters: every bound is "below" +inf.
  float prune_below() const { return k_ == 0 ? std::numeric_limits<float>::infinity() : threshold(); }

  // Returns true when the threshold may have changed.
  bool Offer(const ScoredChunk& c) {
    if (k_ == 0) return false;
    if (heap_.size() < k_) {
      heap_.push_back(c);
      std::push_heap(heap_.begin(), heap_.end(), RanksBefore);
      return heap_.size() == k_;
    }
    if (!RanksBefore(c, heap_.front())) return false;
    std::pop_heap(heap_.begin(), heap_.end(), RanksBefore);
    heap_.back() = c;
    std::push_heap(heap_.begin(), heap_.end(), RanksBefore);
    return true;
  }

  std::vector<ScoredChunk> Sorted() && {
    std::sort(heap_.begin(), heap_.end(), RanksBefore);
    return std::move(heap_);
  }

 private:
  size_t k_;
  std::vector<ScoredChunk> heap_;  // heap ordered so that front() is the worst kept
};

}  // namespace attest
