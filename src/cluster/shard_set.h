// The shards a coordinator reaches (docs/cluster.md, "Coordinators"): a list fixed on the command
// line (`--cluster-shard NAME=URL`), or the nodes that own virtual shards in the shard map, read
// again while the coordinator runs so that `attest cluster add-node --rebalance` and `move-shard`
// need no restart of the coordinators. A request takes the list current when it starts and keeps
// it (and its clients) for its whole length.
//
// Thread-safety: all members may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/scatter_search.h"
#include "cluster/shard_map.h"

namespace attest {

class ShardSet {
 public:
  using List = std::vector<std::shared_ptr<const ShardClient>>;

  // kInvalidArgument when the list is empty or two shards share a name or a chunk-id tag.
  static Result<std::shared_ptr<ShardSet>> Make(List shards);

  std::shared_ptr<const List> Current() const;
  // Replaces the list, under the same checks; on an error the current list stays.
  Status Replace(List next);

 private:
  explicit ShardSet(std::shared_ptr<const List> list) : list_(std::move(list)) {}
  mutable std::mutex mu_;
  std::shared_ptr<const List> list_;  // guarded by mu_
};

// A node a coordinator should reach: every node that owns at least one virtual shard, in id order,
// with the address it registered ("" when it has not registered one: the coordinator names it in
// `degraded` rather than leave its documents out unnoticed).
struct ShardEndpoint {
  std::string node;
  std::string url;
  bool operator==(const ShardEndpoint&) const = default;
};
std::vector<ShardEndpoint> OwningNodes(const std::map<uint32_t, ShardAssignment>& assignments,
                                       const std::vector<NodeRecord>& nodes);

}  // namespace attest
