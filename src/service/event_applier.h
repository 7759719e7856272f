// Applies the queued events of the event log (event_log.h) to the engine, in sequence order, on a
// thread of its own; the request that appended them has already been answered (202).
//
// A pass takes up to `batch` queued events and applies them in runs: consecutive upserts and ACL
// changes of distinct documents become one Engine::PutDocuments (one commit, one snapshot); a
// delete is Engine::Delete. An ACL change re-puts the document's latest applied upsert from the
// log (or, for a document that never came through events, its stored text and fields) with the
// new acl_groups and access_label: PutDocuments replaces it (its digest covers the ACL), the new
// snapshot drops cached searches, and the superseded chunks are handed to `invalidate_chunks` so
// cached answers citing them go. Outcomes are recorded per event (applied / failed with the
// reason). A document the engine refuses (kInvalidArgument, kResourceExhausted) fails alone: a run
// that fails is retried one document at a time. Any other error (busy, disk full, I/O) leaves the
// events queued and the pass is retried after `retry_delay`: nothing is lost, and since every
// apply is idempotent (same digest = no-op; deleting what is gone = done), re-applying after a
// crash between the engine's commit and the log's record is harmless. On start it applies what
// a previous process left queued.
//
// Waiting: WhenDone(seq, timeout, callback) calls back (on the applier thread, or at once) when
// every event up to `seq` has an outcome, or when the timeout passes, or at shutdown; no request
// thread is held meanwhile.
//
// Thread-safety: all public methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "common/thread_annotations.h"
#include "service/event_log.h"
#include "service/metrics.h"

namespace attest::service {

struct EventApplierOptions {
  size_t batch = 256;                                   // events read per pass
  std::chrono::milliseconds retry_delay{500};           // after a transient failure
  const Clock* clock = nullptr;                         // null = RealClock()
  std::function<void(const std::vector<uint64_t>& chunks)> invalidate_chunks;  // answer cache
};

class EventApplier {
 public:
  EventApplier(EventLog& log, Engine& engine, Registry& metrics, EventApplierOptions options);
  ~EventApplier();  // stops the thread; pending callbacks are called
  EventApplier(const EventApplier&) = delete;
  EventApplier& operator=(const EventApplier&) = delete;

  void Start();
  void Notify();  // events were appended
  void WhenDone(uint64_t seq, std::chrono::milliseconds timeout, std::function<void()> callback);
  uint64_t done_through() const;

 private:
  struct Waiter {
    uint64_t seq;
    std::chrono::steady_clock::time_point deadline;
    std::function<void()> callback;
  };
  void Run();
  // One pass; false when a transient failure stopped it (retry later).
  bool ApplyPass();
  bool ApplyRun(const std::vector<EventRecord>& run);
  bool ApplyDelete(const EventRecord& e);
  Result<std::optional<DocumentSpec>> AclSpec(const EventRecord& e);
  void Record(const std::vector<EventOutcome>& outcomes, const std::vector<const EventRecord*>& events);
  void FireWaiters(bool all);
  int64_t WallMs() const;

  EventLog& log_;
  Engine& engine_;
  Registry& metrics_;
  EventApplierOptions options_;
  mutable Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  bool work_ GUARDED_BY(mu_) = true;  // apply what a previous process left queued
  uint64_t done_through_ GUARDED_BY(mu_) = 0;
  std::vector<Waiter> waiters_ GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace attest::service
