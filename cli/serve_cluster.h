// `attest serve --cluster-shard NAME=URL ...` or `--cluster-discover` (docs/cluster.md,
// "Coordinators"): the coordinator's engine over the shard nodes, and a poller that every few
// seconds
//   - with --cluster-discover, reads which nodes own virtual shards in the shard map and where
//     they registered their internal API, and replaces the coordinator's shard list when that
//     changed (a node added with `cluster add-node --rebalance` is searched without a restart);
//   - reads each node's health into /metrics: attest_cluster_shard_up{shard},
//     attest_cluster_shard_lag_messages{shard} (messages of its virtual shards in the log it has
//     not applied) and attest_cluster_shard_snapshot{shard}.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cluster/scatter_search.h"
#include "cluster/shard_set.h"
#include "service/metrics.h"

namespace attest::cli {

// Where the shard list comes from when it is discovered: the current endpoints, and a client for one.
struct ShardDiscovery {
  std::function<Result<std::vector<ShardEndpoint>>()> endpoints;
  std::function<std::shared_ptr<const ShardClient>(const ShardEndpoint&)> client;
};

class ShardHealthPoller {
 public:
  // `discovery` may be empty (a fixed list).
  ShardHealthPoller(std::shared_ptr<ShardSet> set, ShardDiscovery discovery, service::Registry* metrics,
                    uint32_t interval_ms);
  ~ShardHealthPoller();  // stops and joins
  void PollOnce();

 private:
  void Rediscover();

  std::shared_ptr<ShardSet> set_;
  ShardDiscovery discovery_;
  std::vector<ShardEndpoint> endpoints_;  // as last applied (poller thread only)
  service::Registry* metrics_;
  uint32_t interval_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

struct Coordinator {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<ShardHealthPoller> poller;
};

// kInvalidArgument for a bad NAME=URL, a missing credential, --cluster-discover without
// --cluster-nats or with --cluster-shard, or a shard map where no node owns a virtual shard; the
// change log's or the shard map's error when they cannot be reached.
Result<Coordinator> OpenCoordinator(const ClusterServeArgs& a, service::Registry* metrics);

}  // namespace attest::cli
