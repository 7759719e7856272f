// RerankBatcher: a Reranker that pools the (query, passage) pairs of concurrent Score() calls into
// batches for a PairScorer, instead of one backend call per request (docs/rerank.md, "Batching
// across requests"). With 8 answers of 40 candidates arriving together, 5 calls of 64 pairs
// replace 8 calls of 40 (and a cross-encoder server runs full batches).
//
// Rules:
// - A call's pairs join the queue of its priority (interactive or bulk). A batch holds at most
//   max_pairs pairs; a call's pairs may span batches, and a batch may mix queries.
// - A batch is sent as soon as max_pairs pairs are waiting, or when the window of a waiting call
//   ends. A call's window is min(window, deadline_fraction x the time left before its deadline),
//   measured from its arrival (a call past its deadline has no window).
// - Order of a batch: first the pairs of calls whose window has ended (interactive before bulk),
//   then interactive pairs, then bulk pairs, each oldest first. So interactive traffic is served
//   first, and bulk traffic still leaves by its window.
// - At most max_concurrent_calls backend calls run at once (on the batcher's own threads). While
//   fewer are running, no call waits past its window plus one backend call.
// - A failed backend call fails every request with pairs in it (with the backend's status); the
//   request's other pairs are withdrawn, and it returns once none of its pairs is in a call.
// - Blank passages are not sent and get the lowest score of their call (0 when none was scored),
//   as HttpReranker does; an empty passage list returns at once; a blank query is
//   kInvalidArgument.
// - Shutdown() (also the destructor) sends what is waiting at once, waits for the calls in flight,
//   and stops the threads; a Score() after it is kUnavailable.
//
// Time comes from the injected Clock. Waits are condition-variable waits computed from it, so a
// test with a clock that moves in jumps calls Wake() after moving it.
//
// Thread-safety: every method may be called concurrently (Score() is meant to be).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "common/thread_annotations.h"
#include "rerank/pair_scorer.h"
#include "rerank/reranker.h"

namespace attest {

struct RerankBatcherOptions {
  size_t max_pairs = 64;                    // pairs per backend call, 1..1024
  std::chrono::milliseconds window{10};     // the longest a call waits for company
  double deadline_fraction = 0.1;           // of the time left before a call's deadline, (0, 1]
  size_t max_concurrent_calls = 8;          // backend calls at once (threads), 1..64
  const Clock* clock = nullptr;             // null = RealClock()
  // Called after every backend call and every finished request (for metrics); from the
  // batcher's threads and the callers' threads, without the batcher's lock. Optional.
  std::function<void(const RerankBatchEvent&)> observer;
};

struct RerankBatcherStats {
  uint64_t calls = 0;         // backend calls
  uint64_t failed_calls = 0;
  uint64_t pairs = 0;         // pairs sent
  uint64_t requests = 0;      // Score() calls that sent pairs
  std::map<size_t, uint64_t> batch_sizes;  // pairs per call -> calls
  double wait_ms_total = 0;   // added wait of the requests: arrival to their last pair sent
  double wait_ms_max = 0;
  uint64_t waiting_pairs = 0;  // pairs queued now
  uint64_t in_flight = 0;      // backend calls running now
};

class RerankBatcher final : public Reranker {
 public:
  static Result<std::unique_ptr<RerankBatcher>> Create(std::shared_ptr<const PairScorer> backend,
                                                       RerankBatcherOptions options);
  ~RerankBatcher() override;
  RerankBatcher(const RerankBatcher&) = delete;
  RerankBatcher& operator=(const RerankBatcher&) = delete;

  // Interactive, no deadline.
  Result<std::vector<double>> Score(std::string_view query, const std::vector<std::string>& passages) const override;
  Result<std::vector<double>> Score(const RerankRequest& request) const override;
  std::string name() const override;  // "batched:" + the backend's name

  // Sends what waits now, waits for the calls in flight and stops the threads. Idempotent.
  void Shutdown();
  // Makes the waiting threads read the clock again (for a clock that moves in jumps).
  void Wake() const;
  RerankBatcherStats stats() const;

 private:
  struct Request;
  struct Segment {  // rows [begin, end) of one request, waiting
    Request* request;
    size_t begin;
    size_t end;
  };
  struct Batch {
    std::vector<Segment> segments;
    std::vector<RerankPair> pairs;
  };

  RerankBatcher(std::shared_ptr<const PairScorer> backend, RerankBatcherOptions options);
  void Worker() const;
  // True when a batch should leave now; `next_due` gets the earliest window end otherwise.
  bool BatchDue(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point* next_due) const
      REQUIRES(mu_);
  // The next batch (see the order above), taken off the queues.
  Batch TakeBatch(std::chrono::steady_clock::time_point now) const REQUIRES(mu_);
  void TakeFrom(std::vector<Segment>* queue, bool overdue_only, std::chrono::steady_clock::time_point now,
                Batch* batch) const REQUIRES(mu_);
  // Hands a finished call's scores (or its failure) to the requests in it.
  void Finish(const Batch& batch, const Result<std::vector<double>>& scores,
              std::chrono::steady_clock::time_point now) const REQUIRES(mu_);
  // Takes a failed request's waiting rows off the queues.
  void Withdraw(Request* request, std::chrono::steady_clock::time_point now) const REQUIRES(mu_);
  void Notify(const RerankBatchEvent& event) const;

  const std::shared_ptr<const PairScorer> backend_;
  const RerankBatcherOptions options_;
  const Clock* const clock_;

  mutable Mutex mu_;
  mutable CondVar work_cv_;  // workers: pairs queued, a window moved, shutdown
  mutable CondVar done_cv_;  // callers: a batch finished
  mutable std::vector<Segment> interactive_ GUARDED_BY(mu_);
  mutable std::vector<Segment> bulk_ GUARDED_BY(mu_);
  mutable size_t waiting_pairs_ GUARDED_BY(mu_) = 0;
  mutable size_t in_flight_ GUARDED_BY(mu_) = 0;
  mutable bool stopping_ GUARDED_BY(mu_) = false;
  mutable RerankBatcherStats stats_ GUARDED_BY(mu_);
  std::vector<std::thread> workers_;  // started by Create, joined by Shutdown
  Mutex shutdown_mu_;                 // one Shutdown() joins
};

}  // namespace attest
