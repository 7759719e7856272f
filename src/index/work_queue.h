// A bounded multi-producer multi-consumer queue used by the ingestion pipeline.
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>

#include "common/thread_annotations.h"

namespace attest {

template <typename T>
class WorkQueue {
 public:
  explicit WorkQueue(size_t capacity) : capacity_(capacity) {}

  // Blocks while full. Returns false if the queue was closed.
  bool Push(T item) {
    MutexLock lock(mu_);
    while (!closed_ && items_.size() >= capacity_) not_full_.Wait(lock);
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.NotifyOne();
    return true;
  }

  // Blocks while empty; returns nullopt once closed and drained.
  std::optional<T> Pop() {
    MutexLock lock(mu_);
    while (!closed_ && items_.empty()) not_empty_.Wait(lock);
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.NotifyOne();
    return item;
  }

  void Close() {
    MutexLock lock(mu_);
    closed_ = true;
    not_empty_.NotifyAll();
    not_full_.NotifyAll();
  }

 private:
  Mutex mu_;
  CondVar not_empty_, not_full_;
  std::deque<T> items_ GUARDED_BY(mu_);
  size_t capacity_;
  bool closed_ GUARDED_BY(mu_) = false;
};

}  // namespace attest
