// `attest serve --cluster-shard NAME=URL ...` (docs/cluster.md, "Coordinators"): the coordinator's
// engine over the shard nodes, and a poller that reads each node's health every few seconds into
// /metrics: attest_cluster_shard_up{shard}, attest_cluster_shard_lag_messages{shard} (messages of
// its virtual shards in the log it has not applied) and attest_cluster_shard_snapshot{shard}.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cluster/scatter_search.h"
#include "service/metrics.h"

namespace attest::cli {

class ShardHealthPoller {
 public:
  ShardHealthPoller(std::vector<std::shared_ptr<const ShardClient>> shards, service::Registry* metrics,
                    uint32_t interval_ms);
  ~ShardHealthPoller();  // stops and joins
  void PollOnce();

 private:
  std::vector<std::shared_ptr<const ShardClient>> shards_;
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

// kInvalidArgument for a bad NAME=URL or a missing credential; the change log's error when
// --cluster-nats is given and it cannot be reached.
Result<Coordinator> OpenCoordinator(const ClusterServeArgs& a, service::Registry* metrics);

}  // namespace attest::cli
