// The versions of the snapshots currently pinned, so that purging never removes rows a pinned
// snapshot can still read.
//
// Thread-safety: all members are safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "common/strong_id.h"
#include "common/thread_annotations.h"

namespace attest {

class PinRegistry {
 public:
  void Add(SnapshotVersion v) {
    MutexLock lock(mu_);
    pinned_.insert(v.get());
  }
  void Remove(SnapshotVersion v) {
    MutexLock lock(mu_);
    auto it = pinned_.find(v.get());
    if (it != pinned_.end()) pinned_.erase(it);
  }
  std::optional<SnapshotVersion> Oldest() const {
    MutexLock lock(mu_);
    if (pinned_.empty()) return std::nullopt;
    return SnapshotVersion(*pinned_.begin());
  }
  size_t size() const {
    MutexLock lock(mu_);
    return pinned_.size();
  }

 private:
  mutable Mutex mu_;
  std::multiset<uint64_t> pinned_ GUARDED_BY(mu_);
};

}  // namespace attest
