// The audit log: append-only JSON lines, one per answered or searched request, with ids only,
// never text: request id, time, user, tenant, resolved groups, route, chunk ids given to the
// writer, chunk ids cited, blocked citations, outcome; for a fresh answer also its mode, model
// tier, cost and per-stage counts (docs/cost.md) (docs/http_api.md, "Audit").
//
// Records are written by a background thread (off the request path), fsynced in groups. The log
// holds a bounded number of records in memory (AuditOptions::max_queue): a request claims room for
// its record before doing any work (Reserve) and is refused when there is none, so a request that
// could not be audited never runs, Append never waits, and no record is ever dropped. A failed write
// keeps its records and is retried until the disk takes them; health() says whether writes succeed
// and how full the log is (readiness and metrics).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attest/status.h"

namespace attest::service {

// What one stage of an answer spent (StageCost's counts, docs/cost.md): numbers only.
struct AuditStage {
  std::string stage;  // "plan", "retrieve", "live_fetch", "rerank", "write", "verify", "research", ...
  uint32_t searches = 0, fetches = 0, rerank_pairs = 0, model_calls = 0;
  uint64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;
};

struct AuditRecord {
  std::string request_id;
  int64_t unix_ms = 0;
  std::string route;           // "/v1/answer", ...
  std::string user, tenant, credential_id;
  std::vector<std::string> groups;
  std::string clearance;       // the caller's clearance ("*" for an admin: every label of its tenant)
  std::vector<uint64_t> chunks_given;
  std::vector<uint64_t> chunks_cited;
  std::vector<std::string> blocked_citations;  // ids the writer cited but was never given
  std::string outcome;         // answer, fallback, search, error:<code>, ...
  uint64_t snapshot = 0;
  std::string answer_id;
  // A fresh answer's accounting (docs/cost.md); mode "" = not an answer run (no keys written).
  std::string mode;            // "standard", "research"
  std::string tier;            // "small", "large", "small->large", "" (extractive)
  double cost = 0;
  std::vector<AuditStage> stages;
};

struct AuditOptions {
  std::filesystem::path path;          // the JSONL file (appended to; created 0600)
  // The most records held in memory: queued, being written (or retried), and claimed by requests in
  // flight. Reserve() refuses beyond it.
  size_t max_queue = 65536;
  uint32_t flush_interval_ms = 50;
  // Callbacks run on the writer thread, never under a lock; they must not call back into the log.
  // Called on every write failure (metrics); and after every group written and synced, with the
  // number of records in it.
  std::function<void(const std::string& error)> on_failure;
  std::function<void(size_t written)> on_written;
  // Test hook: when set and returning true, the next write attempt fails as if with ENOSPC and
  // writes nothing (lets tests exercise the failure path without a full disk). Leave empty.
  std::function<bool()> fail_write;
};

// What readiness and metrics need to know.
struct AuditHealth {
  bool writing = true;   // false from a failed write or sync until a write succeeds again
  std::string error;     // the last failure, while !writing
  size_t held = 0;       // records in memory: queued, being written, claimed by requests in flight
  size_t limit = 0;      // AuditOptions::max_queue
  bool full() const { return held >= limit; }
};

class AuditLog;

// Room for one record, claimed from an AuditLog before the work that will produce the record
// (AuditLog::Reserve) and used by AuditLog::Append. Move-only; destroyed unused, it gives the room
// back. A default-constructed slot claims nothing (for a service without an audit log).
class AuditSlot {
 public:
  AuditSlot() = default;
  AuditSlot(AuditSlot&& other) noexcept : log_(std::exchange(other.log_, nullptr)) {}
  AuditSlot& operator=(AuditSlot&& other) noexcept;
  AuditSlot(const AuditSlot&) = delete;
  AuditSlot& operator=(const AuditSlot&) = delete;
  ~AuditSlot();
  bool held() const { return log_ != nullptr; }

 private:
  friend class AuditLog;
  explicit AuditSlot(AuditLog* log) : log_(log) {}
  AuditLog* log_ = nullptr;
};

class AuditLog {
 public:
  static Result<std::unique_ptr<AuditLog>> Open(AuditOptions options);
  virtual ~AuditLog() = default;
  // Claims room for one record. kResourceExhausted when max_queue records are held (the file cannot
  // be written, or not as fast as records come), naming the file, the count and the last write
  // error: the caller refuses its request rather than run it unaudited.
  virtual Result<AuditSlot> Reserve() = 0;
  // Queues `record` in the room `slot` claimed from this log. Never waits, never drops; a slot that
  // claims nothing queues the record all the same (over the bound: callers reserve first).
  virtual void Append(AuditSlot slot, AuditRecord record) = 0;
  // Reserve() then Append(): refused as Reserve() is.
  Status Append(AuditRecord record);
  // Blocks until everything queued so far is written (or failed); returns the last error.
  virtual Status Flush() = 0;
  virtual uint64_t failures() const = 0;
  virtual uint64_t written() const = 0;
  // Reserve() calls refused because the log was full.
  virtual uint64_t refused() const = 0;
  // Records held in memory (queued, being written, claimed).
  virtual size_t queued() const = 0;
  virtual AuditHealth health() const = 0;

 protected:
  // Gives back the room of a slot destroyed unused.
  virtual void Release() = 0;
  // True when `slot` was claimed from this log; it claims nothing afterwards.
  bool Consume(AuditSlot& slot) { return std::exchange(slot.log_, nullptr) == this; }
  AuditSlot MakeSlot() { return AuditSlot(this); }

 private:
  friend class AuditSlot;
};

// One JSON object (no newline) with the keys, in order: request_id, ts (ISO 8601 UTC with
// milliseconds, from unix_ms), route, user, tenant, credential_id, groups, clearance, chunks_given,
// chunks_cited, blocked_citations, outcome, snapshot, answer_id, and when `mode` is set: mode, tier,
// cost, stages ({stage: {searches, fetches, rerank_pairs, model_calls, prompt_tokens,
// completion_tokens, cost}}). Invalid UTF-8 is replaced (U+FFFD).
std::string AuditRecordToJson(const AuditRecord& record);

}  // namespace attest::service
