// The durable log of pushed events: `<data_dir>/events.db`, SQLite in WAL mode with
// synchronous=FULL (layout in docs/events.md, "The event log"). POST /v1/events is acknowledged
// only after Append() committed, so an accepted event survives kill -9; the applier
// (event_applier.h) applies queued events in sequence order and records each outcome here.
//
// What it keeps:
//   - deliveries: (connector, webhook-id) -> SHA-256 of the body and the first response, so a
//     repeat returns the first result and the same id with another body is refused;
//   - events: one row per event, numbered by a global sequence (`seq`, never reused), with its
//     state: queued -> applied | failed, or stale at once;
//   - documents: per (tenant, document) the greatest source version accepted so far and whether
//     the last accepted event was a delete (a tombstone). An event whose version is not greater
//     is stale: recorded, acknowledged, never applied. Staleness is decided when the event is
//     appended, in sequence order, which is also the order events are applied in.
//
// Thread-safety: all methods may be called from any thread (one connection behind a mutex; every
// call is one short transaction).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"
#include "service/event_schema.h"

namespace attest {
class SqliteDb;
}

namespace attest::service {

// PRAGMA application_id of events.db ("ATEV") and the schema version this build writes (also in
// the meta table, key schema_version).
inline constexpr int64_t kEventLogApplicationId = 0x41544556;
inline constexpr int64_t kEventLogSchemaVersion = 1;

enum class EventState { kQueued, kApplied, kStale, kFailed };
const char* EventStateName(EventState s);

struct EventRecord {
  uint64_t seq = 0;
  std::string tenant, connector, webhook_id;
  uint32_t position = 0;            // index within its delivery
  std::string ce_id, ce_source;
  EventKind kind = EventKind::kUpsert;
  std::string document_id;
  SourceVersion version;
  std::string data;                 // the validated data as JSON
  int64_t received_ms = 0;          // Unix ms, when appended
  EventState state = EventState::kQueued;
  std::string detail;               // why stale or failed; what an apply noticed
  uint64_t snapshot = 0;            // the index snapshot that holds the outcome (applied)
  int64_t done_ms = 0;              // Unix ms of the outcome
};

struct NewDelivery {
  std::string connector, tenant, webhook_id;
  std::string body_sha256;          // raw 32 bytes
  std::vector<EventInput> events;
  int64_t received_ms = 0;
};

// The stored first response of a delivery: whether events were still queued, and the body.
struct StoredResponse {
  bool pending = false;
  std::string body;
};

struct AppendResult {
  enum class Kind { kNew, kReplay, kConflict, kRejected } kind = Kind::kNew;
  StoredResponse response;          // kNew: as rendered; kReplay: the first one
  std::vector<EventRecord> events;  // kNew: the rows appended (seq, state)
  size_t rejected_index = 0;        // kRejected: which event, and why (nothing was stored)
  std::string rejected_message;
};

struct EventOutcome {
  uint64_t seq = 0;
  EventState state = EventState::kApplied;
  std::string detail;
  uint64_t snapshot = 0;
  int64_t done_ms = 0;
};

class EventLog {
 public:
  // Opens or creates the file, creating or checking the schema. kCorruption for a foreign file,
  // kUnsupported for a newer schema; both name the path.
  static Result<std::unique_ptr<EventLog>> Open(const std::filesystem::path& path);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // In one transaction: a known (connector, webhook_id) is a replay (same body hash) or a
  // conflict; otherwise every event gets its seq and state, the documents' versions advance, and
  // `render` (called inside the transaction with the new rows) makes the response kept for repeats.
  // A source_version of another kind (integer vs time) than the document's earlier events
  // rejects the whole delivery (kRejected; nothing stored).
  Result<AppendResult> Append(const NewDelivery& delivery,
                              const std::function<StoredResponse(const std::vector<EventRecord>&)>& render);
  // Up to `limit` queued events, lowest seq first.
  Result<std::vector<EventRecord>> Queued(size_t limit);
  // Records outcomes (one transaction).
  Status Finish(const std::vector<EventOutcome>& outcomes);
  // Records why a queued event is still queued (a transient failure; it will be retried).
  Status NoteRetry(uint64_t seq, const std::string& detail);
  Result<std::optional<EventRecord>> Get(uint64_t seq);
  // The data of the latest applied upsert of the document before `before_seq` (nullopt = none).
  Result<std::optional<std::string>> LastAppliedUpsert(const std::string& tenant, const std::string& document_id,
                                                       uint64_t before_seq);
  // Every seq up to this one is no longer queued (0 = none yet), read in one statement.
  Result<uint64_t> DoneThrough();
  Result<uint64_t> QueuedCount();
  // Deletes deliveries and finished events received before `cutoff_ms`, keeping each document's
  // latest applied upsert (an ACL change re-puts it). Returns the rows deleted.
  Result<uint64_t> Purge(int64_t cutoff_ms);

 private:
  explicit EventLog(std::unique_ptr<SqliteDb> db);
  Mutex mu_;
  std::unique_ptr<SqliteDb> db_ GUARDED_BY(mu_);
};

}  // namespace attest::service
