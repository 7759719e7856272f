// The snapshots a cluster's coordinator read statistics from, kept pinned so that its next call
// (the search scored with the summed statistics) reads exactly the same chunks (docs/cluster.md,
// "Global statistics"). At most `capacity` distinct versions are kept, the most recently asked
// ones; an older one is released (its segments become collectable) and Find() returns null for it.
//
// Thread-safety: all members are safe to call concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "common/thread_annotations.h"
#include "store/store.h"

namespace attest {

class RecentPins {
 public:
  explicit RecentPins(size_t capacity = 16) : capacity_(capacity < 1 ? 1 : capacity) {}

  void Keep(std::shared_ptr<const Snapshot> snapshot) {
    if (!snapshot) return;
    MutexLock lock(mu_);
    const uint64_t v = snapshot->version().get();
    for (auto it = pins_.begin(); it != pins_.end(); ++it) {
      if ((*it)->version().get() == v) {
        pins_.erase(it);
        break;
      }
    }
    pins_.push_back(std::move(snapshot));
    while (pins_.size() > capacity_) pins_.pop_front();
  }

  std::shared_ptr<const Snapshot> Find(uint64_t version) const {
    MutexLock lock(mu_);
    for (const auto& p : pins_) {
      if (p->version().get() == version) return p;
    }
    return nullptr;
  }

 private:
  const size_t capacity_;
  mutable Mutex mu_;
  std::deque<std::shared_ptr<const Snapshot>> pins_ GUARDED_BY(mu_);
};

}  // namespace attest
