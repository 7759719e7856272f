// A shard node (docs/cluster.md, "Shard nodes"): applies the change log's messages of the virtual
// shards the shard map gives it to its own store, through Engine::ApplyChanges.
//
// Protocol, per step: follow the map (a shard gained gets a durable pull consumer, replaying the
// compacted log from the position the catalog holds for it, i.e. from the start for a new one; a
// shard lost loses its consumer, and its documents and position are deleted in one commit); fetch
// up to `batch_messages` messages round-robin over the owned shards (one consumer per shard, filter
// attest.doc.<v>.>: nats-server 2.9 allows one filter subject per consumer) for at most `batch_ms`;
// commit them and the positions they bring the store to in one transaction; THEN ack them. A
// message at or below its shard's committed position is a redelivery of one already applied: acked
// and skipped. A crash between commit and ack therefore neither loses nor duplicates anything.
// When a consumer's acknowledged position disagrees with the catalog's, the catalog wins: the
// consumer is recreated to deliver from position + 1 (also after any failed step). A shard whose
// consumer cannot be reached (consumers are single in-memory cursors: the NATS server holding it is
// down) is "stalled": the other shards go on, and it is retried, one stalled shard per second.
//
// Thread-safety: one thread drives Step()/Run(); Lag() and counters() may be called from others.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "attest/status.h"

namespace attest {

struct ShardNodeOptions {
  std::vector<std::string> servers;       // nats://host:port
  std::string node_id;                    // 1..64 of [A-Za-z0-9_-]
  std::string advertised_url;             // its internal API, registered in node.<id>
  std::string bucket = "ATTEST_SHARDS";   // the shard map
  size_t batch_messages = 256;            // messages per commit at most
  int64_t batch_ms = 100;                 // ... or what arrived within this long
  int64_t idle_ms = 50;                   // Run(): pause after a step that found nothing
  int64_t heartbeat_ms = 2000;            // node.<id> rewritten this often
  int64_t ack_wait_ms = 30000;            // a fetched, unacknowledged message is redelivered after it
  int64_t timeout_ms = 5000;              // connect and each JetStream request
  // A shard stalled this long whose consumer still does not answer has its consumer deleted and
  // made again (the consumer is a cursor; the catalog's position is the truth).
  int64_t stall_recreate_ms = 10000;
  const Clock* clock = nullptr;           // null = RealClock()
};

// How far one owned virtual shard is behind the log.
struct VShardLag {
  uint32_t vshard = 0;
  uint64_t position = 0;       // last stream sequence committed in the store
  uint64_t pending = 0;        // messages of the shard in the stream after the consumer's position
  uint64_t unacknowledged = 0; // fetched and not yet acknowledged
  bool stalled = false;        // its consumer cannot be reached (its NATS server is down): retried
};

struct ShardNodeCounters {
  uint64_t applied = 0;        // messages committed
  uint64_t skipped = 0;        // redeliveries at or below the committed position
  uint64_t rejected = 0;       // messages that could not be decoded or applied (logged; position advances)
  uint64_t batches = 0;        // commits
  uint64_t gained = 0, lost = 0;  // shards taken over / given up
};

class ShardNode {
 public:
  // Connects, reads the cluster config, registers the node, reads the map and gives up the shards
  // whose positions the store holds but the map no longer gives it. kNotFound when the cluster was
  // never initialized; kInvalidArgument for bad options.
  static Result<std::unique_ptr<ShardNode>> Start(Engine& engine, const ShardNodeOptions& options);
  virtual ~ShardNode() = default;

  // One step (above). Returns the messages it took (applied, skipped or rejected); 0 = idle.
  virtual Result<size_t> Step() = 0;
  // Steps until `stop`; a failed step is logged, the consumers are re-synchronized from the
  // catalog and stepping goes on. Returns when `stop` is set.
  virtual Status Run(const std::atomic<bool>& stop) = 0;

  virtual std::set<uint32_t> owned() const = 0;
  virtual uint32_t vshard_count() const = 0;
  // Asks NATS for every owned shard's consumer (a request each, up to timeout_ms while a server
  // is down): for tools and tests.
  virtual Result<std::vector<VShardLag>> Lag() = 0;
  // The same figures as the node last read them while fetching (every step reads each active
  // shard's consumer), without a request: what a health call answers with, so it never waits on
  // NATS. A shard not read yet shows 0 pending.
  virtual std::vector<VShardLag> LagAsOfLastFetch() const = 0;
  virtual ShardNodeCounters counters() const = 0;
};

// The durable consumer name of (node, vshard).
std::string ConsumerName(const std::string& node_id, uint32_t vshard);

}  // namespace attest
