// A fixed set of worker threads with a bounded queue, used by the HTTP transport to run handlers
// off the IO threads (one pool each for interactive, answer and bulk routes).
//
// Fairness: every task carries a key (the bulk lane uses the caller's tenant; "" when the caller
// has none). Each key has its own FIFO sub-queue, and the workers pick among the keys by start-time
// fair queueing with equal weights and unit cost: a key's turn is tagged max(V, F), where V is the
// tag of the task taken last and F is one past the tag of the key's own last task; the smallest
// tag goes next, ties in arrival order. So a key that queued a hundred tasks delays another key's
// single task by the tasks already running, not by a hundred, and a key that was just served goes
// behind a key that arrives meanwhile. With one key in use (the interactive and answer pools) this
// is plain FIFO.
//
// Admission: a task is accepted while fewer than `workers + queue` tasks are running or waiting
// (so `queue` tasks wait beyond the busy workers) and while its key has fewer than `per_key`
// tasks waiting (0 = no per-key bound); otherwise TrySubmit() refuses it at once and says which
// bound was hit (the server answers 503 `overloaded` or 429).
//
// Thread-safety: TrySubmit() may be called from any thread. Start() and Shutdown() from one
// controlling thread. Shutdown() drops tasks still waiting (their exchanges are destroyed, which
// answers them) and joins the workers, so it waits for handlers that are running.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"
#include "server/http_server.h"

namespace attest::http {

class WorkerPool {
 public:
  struct Task {
    const Handler* handler = nullptr;  // a route's handler (owned by the Router), or
    Handler owned;                     // a continuation handed over by Exchange::Defer
    std::shared_ptr<Exchange> exchange;
  };

  WorkerPool(std::string name, unsigned workers, size_t queue, size_t per_key = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Start();
  // kQueued, or why not: the pool is saturated (all workers busy and the queue full), `key`
  // already has `per_key` tasks waiting, or the pool is shut down. A refused task is dropped (the
  // caller keeps its own reference to the exchange and answers it).
  Admission TrySubmit(Task task, const std::string& key = std::string());
  void Shutdown();

  // Tasks waiting (not running) under `key`; for tests and gauges.
  size_t waiting(const std::string& key) const;

 private:
  struct KeyQueue {
    std::deque<Task> tasks;
    uint64_t finish = 0;  // one past the tag of this key's last task taken
  };
  void WorkerLoop();
  // Takes the next task in fair order; requires mu_ held and waiting_ > 0.
  Task PopLocked() REQUIRES(mu_);

  const std::string name_;
  const unsigned workers_;
  const size_t queue_;
  const size_t per_key_;
  mutable Mutex mu_;
  CondVar cv_;
  // Keys with waiting tasks, plus keys served at the current virtual time (their `finish` still
  // counts); the latter are dropped when the virtual time moves on.
  std::unordered_map<std::string, KeyQueue> queues_ GUARDED_BY(mu_);
  std::set<std::tuple<uint64_t, uint64_t, std::string>> ready_ GUARDED_BY(mu_);  // (tag, arrival, key)
  std::vector<std::string> recent_ GUARDED_BY(mu_);  // keys emptied at virtual time `now_`
  uint64_t now_ GUARDED_BY(mu_) = 0;  // the virtual time V
  uint64_t arrivals_ GUARDED_BY(mu_) = 0;
  size_t waiting_ GUARDED_BY(mu_) = 0;
  size_t active_ GUARDED_BY(mu_) = 0;  // tasks being run by a worker
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace attest::http
