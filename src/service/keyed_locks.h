// A mutex per key, created on first use and dropped when nobody holds or waits for it: callers with
// different keys never wait for each other (the shard maps are locked only to find the entry).
//
// Thread-safety: Lock() from any thread; a Guard must be released on the thread that took it.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "common/thread_annotations.h"

namespace attest::service {

class KeyedLocks {
  struct Entry {
    // `mu` is taken in Lock() and released by the Guard's destructor: a hand-over the analysis
    // cannot follow, so these two are not checked.
    void LockForGuard() NO_THREAD_SAFETY_ANALYSIS { mu.Lock(); }
    void UnlockFromGuard() NO_THREAD_SAFETY_ANALYSIS { mu.Unlock(); }

    Mutex mu;
    size_t users = 0;  // holders and waiters; guarded by the shard's mutex
  };
  struct Shard {
    Mutex mu;
    std::unordered_map<std::string, std::unique_ptr<Entry>> entries GUARDED_BY(mu);
  };

 public:
  class Guard {
   public:
    Guard(Shard* shard, std::string key, Entry* entry) : shard_(shard), key_(std::move(key)), entry_(entry) {}
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() {
      entry_->UnlockFromGuard();
      MutexLock lock(shard_->mu);
      if (--entry_->users == 0) shard_->entries.erase(key_);
    }

   private:
    Shard* shard_;
    std::string key_;
    Entry* entry_;
  };

  // Blocks until the key's lock is free; the lock is held while the Guard lives.
  std::unique_ptr<Guard> Lock(const std::string& key) {
    Shard& shard = shards_[std::hash<std::string>{}(key) % shards_.size()];
    Entry* entry = nullptr;
    {
      MutexLock lock(shard.mu);
      auto& slot = shard.entries[key];
      if (!slot) slot = std::make_unique<Entry>();
      entry = slot.get();
      ++entry->users;
    }
    entry->LockForGuard();
    return std::make_unique<Guard>(&shard, key, entry);
  }

 private:
  std::array<Shard, 16> shards_;
};

}  // namespace attest::service
