// A fixed set of worker threads with a bounded queue, used by the HTTP transport to run handlers
// off the IO threads (one pool for interactive routes, one for bulk routes).
//
// Admission: a task is accepted while fewer than `workers + queue` tasks are running or waiting
// (so `queue` tasks wait beyond the busy workers); otherwise TrySubmit() returns false at once (the
// server answers 503 `overloaded`). The queue is a ring preallocated at construction, so
// submitting does not allocate.
//
// Thread-safety: TrySubmit() may be called from any thread. Start() and Shutdown() from one
// controlling thread. Shutdown() drops tasks still waiting (their exchanges are destroyed, which
// answers them) and joins the workers, so it waits for handlers that are running.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/http_server.h"

namespace attest::http {

class WorkerPool {
 public:
  struct Task {
    const Handler* handler = nullptr;
    std::shared_ptr<Exchange> exchange;
  };

  WorkerPool(std::string name, unsigned workers, size_t queue);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Start();
  // False when the pool is saturated (all workers busy and the queue full) or shut down.
  bool TrySubmit(Task task);
  void Shutdown();

 private:
  void WorkerLoop();

  const std::string name_;
  const unsigned workers_;
  const size_t queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Task> ring_;  // GUARDED_BY(mu_), size queue_ + workers_
  size_t head_ = 0;         // GUARDED_BY(mu_)
  size_t count_ = 0;        // GUARDED_BY(mu_)
  size_t active_ = 0;       // GUARDED_BY(mu_): tasks being run by a worker
  bool stop_ = false;       // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

}  // namespace attest::http
