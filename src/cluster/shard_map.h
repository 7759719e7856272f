// The shard map (docs/cluster.md, "The shard map"): a JetStream key-value bucket (ATTEST_SHARDS by
// default) holding
//   config          {"v":1,"vshards":N,"stream":"ATTEST_DOCS","replicas":R}  fixed at init
//   vshard.<n>      the id of the node that owns virtual shard n
//   node.<id>       {"url":"http://host:port","heartbeat_unix_ms":T}  the node's internal API
// Changes of the map are compare-and-set on the key's revision (kvStore_Update), so two operators
// moving one shard at once cannot both win.
//
// Thread-safety: a ShardMap may be used from several threads (the NATS connection is thread-safe);
// a ShardMapWatch by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

class NatsConnection;

struct ClusterConfig {
  uint32_t vshards = 64;                 // 64..256, fixed at init
  std::string stream = "ATTEST_DOCS";    // the change log's stream
  int replicas = 3;                      // of the stream and the bucket, 1..5
};

struct NodeRecord {
  std::string id;
  std::string url;                       // its internal API ("" until it registers)
  int64_t heartbeat_unix_ms = 0;         // when it last said it was alive (0 = never)
};

struct ShardAssignment {
  std::string node;
  uint64_t revision = 0;                 // the key's revision: the compare-and-set guard
};

struct ShardMapOptions {
  std::vector<std::string> servers;
  std::string bucket = "ATTEST_SHARDS";
  int64_t timeout_ms = 5000;
};

// Changes of the vshard.* keys as they happen: the current owners first, then every later change.
class ShardMapWatch {
 public:
  virtual ~ShardMapWatch() = default;
  // Waits up to `timeout_ms` for the first change, then takes whatever else is queued; returns
  // vshard -> new owner ("" = the key was deleted). Empty when nothing changed in time.
  virtual Result<std::map<uint32_t, std::string>> Next(int64_t timeout_ms) = 0;
};

class ShardMap {
 public:
  // Binds to the existing bucket: kNotFound when the cluster was never initialized.
  static Result<std::unique_ptr<ShardMap>> Open(const ShardMapOptions& options);
  // Creates the bucket and writes the config and the even map (vshard n -> nodes[n % size]) and a
  // registration of each node. kAlreadyExists when the bucket already holds a config;
  // kInvalidArgument for a bad config or node id.
  static Result<std::unique_ptr<ShardMap>> Init(const ShardMapOptions& options, const ClusterConfig& config,
                                               const std::vector<std::string>& nodes);
  virtual ~ShardMap() = default;

  virtual Result<ClusterConfig> Config() = 0;
  // Every vshard's owner (a vshard without a key is absent).
  virtual Result<std::map<uint32_t, ShardAssignment>> Assignments() = 0;
  // Moves `vshard` to `node` if its key is still at `expected_revision`; kAlreadyExists
  // ("conflict: ...") when someone changed it meanwhile. Returns the new revision.
  virtual Result<uint64_t> Assign(uint32_t vshard, const std::string& node, uint64_t expected_revision) = 0;
  // Writes node.<id> (registration and heartbeat).
  virtual Status PutNode(const NodeRecord& node) = 0;
  // Registers a node that is not known yet; kAlreadyExists when it is.
  virtual Status AddNode(const std::string& id) = 0;
  virtual Result<std::vector<NodeRecord>> Nodes() = 0;
  virtual Result<std::unique_ptr<ShardMapWatch>> Watch() = 0;
};

// The moves that give `new_node` its fair share, floor(shards / (owners + 1)), of `owners`' shards
// (vshard -> owner): one at a time from the node that has the most (ties: the smaller id, then the
// largest vshard), so the others end as even as they were. A pure function of the map.
std::vector<std::pair<uint32_t, std::string>> FairShareMoves(const std::map<uint32_t, std::string>& owners,
                                                             const std::string& new_node);

// Parses "vshard.<n>" (n < vshards); false for other keys.
bool ParseVShardKey(const std::string& key, uint32_t* vshard);

}  // namespace attest
