// What `attest cluster status` shows (docs/cluster.md, "Commands"): the config, the nodes with their
// heartbeats, and per virtual shard its owner and how far the owner's consumer is behind the log.
// Read from the shard map and the consumers' state on the NATS servers (not from the nodes' stores,
// which may be on other machines): a consumer's acknowledged position is at or below the position
// its node committed (a node acks after it commits).
//
// Thread-safety: a pure function of the cluster's state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attest/status.h"
#include "cluster/shard_map.h"

namespace attest {

struct VShardStatus {
  uint32_t vshard = 0;
  std::string node;            // owner ("" = unassigned)
  bool consuming = false;      // the owner's consumer exists (the node has taken the shard)
  uint64_t acknowledged = 0;   // last stream sequence acknowledged in order (the consumer's ack floor)
  uint64_t pending = 0;        // messages of the shard not yet delivered to the owner
  uint64_t unacknowledged = 0; // delivered, not yet acknowledged
};

struct ClusterStatus {
  ClusterConfig config;
  std::vector<NodeRecord> nodes;
  std::vector<VShardStatus> vshards;  // in vshard order
  uint64_t stream_last_sequence = 0;
  uint64_t stream_messages = 0;       // live documents (one message per document)
};

Result<ClusterStatus> ReadClusterStatus(const ShardMapOptions& options);

}  // namespace attest
