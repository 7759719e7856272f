// Applying the cluster's change log to a store (docs/cluster.md, "Applying the log"): a shard node
// turns a batch of change-log messages into one ChangeBatch and applies it with
// Engine::ApplyChanges, which commits the documents and the log positions they bring the store to
// in one transaction. The single-process mode never uses it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attest {

struct DocumentSpec;  // attest/engine.h

// One change of the log, in log order.
struct LogChange {
  enum class Kind { kUpsert, kDelete };
  Kind kind = Kind::kUpsert;
  // kUpsert: the whole document (an ACL change is an upsert with the new acl/label); kDelete: only
  // `doc.tenant` and `doc.id` are read. Owned through a pointer so that this header stays small.
  const DocumentSpec* doc = nullptr;
  uint32_t vshard = 0;      // the virtual shard the message came from
  uint64_t sequence = 0;    // its stream sequence
};

struct ChangeBatch {
  // In log order. The last change of a document wins (an upsert then a delete of one id leaves it
  // deleted). An upsert that does not parse is rejected (named in the report) and the rest applied.
  std::vector<LogChange> changes;
  // The positions the batch brings the store to: virtual shard -> last stream sequence applied
  // (normally the largest sequence of `changes` per shard, or of skipped messages); 0 forgets one.
  std::map<uint32_t, uint64_t> log_positions;
  // Virtual shards this store gives up (the shard map moved them): every live document whose
  // VirtualShardOf(tenant, id, vshard_count) is one of them is deleted and its position forgotten,
  // in the same commit.
  std::vector<uint32_t> drop_vshards;
  uint32_t vshard_count = 0;  // required with drop_vshards
};

struct ApplyChangesReport {
  uint64_t snapshot_version = 0;  // the snapshot that holds the batch (unchanged when nothing changed)
  uint32_t added = 0, replaced = 0, unchanged = 0, deleted = 0, not_found = 0;
  uint32_t dropped = 0;           // documents deleted for drop_vshards
  // Changes that could not be applied, "vshard/sequence 'id': why" (their position still advances:
  // a change that cannot apply now never will, and must not stop the shard).
  std::vector<std::string> rejected;
};

}  // namespace attest
