// The audit log: append-only JSON lines, one per answered or searched request, with ids only,
// never text: request id, time, user, tenant, resolved groups, route, chunk ids given to the
// writer, chunk ids cited, blocked citations, outcome (docs/http_api.md, "Audit").
//
// Records are queued by the request thread and written by a background thread (off the request
// path), fsynced in groups. A failed write is never silently dropped: the record stays queued and
// is retried, the failure counter rises, and an error is logged; when the queue is full the
// request thread waits (bounded) rather than losing a record, and that wait is counted too.
//
// Thread-safety: Append() from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest::service {

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
};

struct AuditOptions {
  std::filesystem::path path;          // the JSONL file (appended to; created 0600)
  size_t max_queue = 65536;
  uint32_t flush_interval_ms = 50;
  // When the queue holds max_queue records, Append waits up to this long for room; after that the
  // record is queued anyway (the queue grows past max_queue, an error is logged): never dropped.
  uint32_t max_wait_ms = 1000;
  // Callbacks run on the writer thread (on_backpressure: on the appending thread), never under a
  // lock; they must not call back into the log.
  // Called on every write failure (metrics); and after every group written and synced, with the
  // number of records in it.
  std::function<void(const std::string& error)> on_failure;
  std::function<void(size_t written)> on_written;
  // Called after an Append had to wait for queue room, with the seconds it waited.
  std::function<void(double waited_seconds)> on_backpressure;
  // Test hook: when set and returning true, the next write attempt fails as if with ENOSPC and
  // writes nothing (lets tests exercise the failure path without a full disk). Leave empty.
  std::function<bool()> fail_write;
};

class AuditLog {
 public:
  static Result<std::unique_ptr<AuditLog>> Open(AuditOptions options);
  virtual ~AuditLog() = default;
  virtual void Append(AuditRecord record) = 0;
  // Blocks until everything queued so far is written (or failed); returns the last error.
  virtual Status Flush() = 0;
  virtual uint64_t failures() const = 0;
  virtual uint64_t written() const = 0;
  // How many Append calls had to wait for queue room; records waiting to be written.
  virtual uint64_t backpressure_waits() const = 0;
  virtual size_t queued() const = 0;
};

// One JSON object (no newline) with the keys, in order: request_id, ts (ISO 8601 UTC with
// milliseconds, from unix_ms), route, user, tenant, credential_id, groups, clearance, chunks_given,
// chunks_cited, blocked_citations, outcome, snapshot, answer_id. Invalid UTF-8 is replaced (U+FFFD).
std::string AuditRecordToJson(const AuditRecord& record);

}  // namespace attest::service
