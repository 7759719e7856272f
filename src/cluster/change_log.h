// The replicated change log (issue 18, deliverable 1; docs/cluster.md): every document write is a
// message in one NATS JetStream stream with replicas, on the subject
//   attest.doc.<vshard>.<tenant hex>.<id hex>
// (ids and tenants hex-encoded: a subject token cannot hold '.', '*', '>' or white space), with at
// most one message kept per subject, so the stream is a compacted log from which any shard can be
// rebuilt. The idempotency key is the Nats-Msg-Id header (a retry within the stream's duplicate
// window is acknowledged with the first write's sequence, marked duplicate); the document's source
// version travels in the Attest-Source-Version header. An older source version never replaces a
// newer one: Append reads the subject's last message and publishes with
// Nats-Expected-Last-Subject-Sequence set to it (or "expect no message"), so a concurrent writer
// makes one of the two retry and compare again. A write is acknowledged once the stream has it (on
// its replicas, per the stream's configuration), with its stream sequence.
//
// Thread-safety: Append and LastSequence may be called from any thread (the NATS connection is
// thread-safe); Open/EnsureStream once, before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

struct ChangeLogOptions {
  std::vector<std::string> servers;     // nats://host:port, at least one
  std::string stream = "ATTEST_DOCS";
  int replicas = 3;                     // 1..5
  uint32_t vshards = 64;                // virtual shards, fixed at creation (1..4096)
  int64_t timeout_ms = 5000;            // connect, stream management and each publish
  int64_t duplicate_window_ms = 120000; // how long a Nats-Msg-Id is remembered
  int max_conflict_retries = 8;         // concurrent writers of one document
};

struct DocumentChange {
  enum class Kind { kUpsert, kDelete, kAcl };
  Kind kind = Kind::kUpsert;
  std::string tenant;           // "" = the default tenant
  std::string id;               // 1..256 bytes
  std::string idempotency_key;  // Nats-Msg-Id; required
  uint64_t source_version = 0;  // the document's version at its source (newer = larger)
  std::string payload;          // the write itself (a JSON document, the ACL), opaque here
};

struct AppendAck {
  uint64_t sequence = 0;  // the stream sequence of the write (of the first one, for a duplicate)
  bool duplicate = false; // the idempotency key was seen within the duplicate window
};

// The subject of a document: attest.doc.<vshard>.<hex tenant or "_">.<hex id>.
std::string ChangeSubject(const std::string& tenant, const std::string& id, uint32_t vshards);
// The virtual shard of a document: FNV-1a of "<tenant>\0<id>" modulo vshards.
uint32_t VirtualShardOf(const std::string& tenant, const std::string& id, uint32_t vshards);

class ChangeLog {
 public:
  // Connects. kInvalidArgument for bad options, kUnavailable when no server answers in time.
  static Result<std::unique_ptr<ChangeLog>> Open(const ChangeLogOptions& options);
  virtual ~ChangeLog() = default;

  // Creates the stream (file storage, the replicas, one message per subject, the duplicate
  // window) or checks an existing one has that shape (kInvalidArgument naming what differs).
  virtual Status EnsureStream() = 0;

  // Appends one change. kInvalidArgument for a bad change; kAlreadyExists ("stale: ...") when
  // the log holds a newer source version of the document (nothing is written); kUnavailable /
  // kDeadlineExceeded when the stream did not acknowledge in time (the write may or may not be in
  // the log: retry with the same idempotency key).
  virtual Result<AppendAck> Append(const DocumentChange& change) = 0;

  // The stream's last sequence and its message count (one per live subject).
  struct State {
    uint64_t last_sequence = 0;
    uint64_t messages = 0;
  };
  virtual Result<State> StreamState() = 0;
};

}  // namespace attest
