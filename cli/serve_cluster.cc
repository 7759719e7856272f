#include "cli/serve_cluster.h"

#include <cstdlib>

#include "cluster/cluster_engine.h"
#include "cluster/shard_http.h"

namespace attest::cli {

ShardHealthPoller::ShardHealthPoller(std::vector<std::shared_ptr<const ShardClient>> shards,
                                     service::Registry* metrics, uint32_t interval_ms)
    : shards_(std::move(shards)), metrics_(metrics), interval_ms_(interval_ms) {
  PollOnce();
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this] { return stop_; })) {
      lock.unlock();
      PollOnce();
      lock.lock();
    }
  });
}

ShardHealthPoller::~ShardHealthPoller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ShardHealthPoller::PollOnce() {
  for (const auto& shard : shards_) {
    ShardCall call;
    call.request_id = "health";
    call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::min<uint32_t>(interval_ms_, 2000));
    Result<ShardHealth> h = shard->Health(call);
    const std::map<std::string, std::string> labels = {{"shard", shard->name()}};
    metrics_->GetGauge("attest_cluster_shard_up", "1 when the shard node answered its last health call", labels)
        ->Set(h.ok() ? 1 : 0);
    if (!h.ok()) continue;
    metrics_->GetGauge("attest_cluster_shard_lag_messages",
                       "Messages of the node's virtual shards in the change log it has not applied", labels)
        ->Set(double(h->pending));
    metrics_->GetGauge("attest_cluster_shard_snapshot", "The node's latest snapshot version", labels)
        ->Set(double(h->snapshot));
  }
}

Result<Coordinator> OpenCoordinator(const ClusterServeArgs& a, service::Registry* metrics) {
  const char* credential = std::getenv(a.credential_env.c_str());
  if (credential == nullptr || std::string(credential).size() < 16) {
    return Status::InvalidArgument("the variable '" + a.credential_env +
                                   "' must hold the cluster's service credential (at least 16 bytes)");
  }
  HttpClientOptions co;
  co.use_environment_proxy = false;  // shard nodes are reached directly
  auto client = std::make_shared<const HttpClient>(co);
  ClusterEngineOptions o;
  o.search_deadline_ms = a.search_deadline_ms;
  for (const std::string& spec : a.shards) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || spec.compare(eq + 1, 7, "http://") != 0) {
      return Status::InvalidArgument("'" + spec + "' is not NAME=http://HOST:PORT");
    }
    o.shards.push_back(std::make_shared<HttpShard>(
        HttpShardOptions{spec.substr(0, eq), spec.substr(eq + 1), credential}, client));
  }
  if (!a.nats.empty()) {
    ChangeLogOptions lo;
    lo.servers = SplitList(a.nats);
    lo.vshards = a.vshards;
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ChangeLog> log, ChangeLog::Open(lo));
    o.log = std::move(log);
  }
  Coordinator c;
  auto shards = o.shards;
  ATTEST_ASSIGN_OR_RETURN(c.engine, OpenClusterEngine(std::move(o)));
  c.poller = std::make_unique<ShardHealthPoller>(std::move(shards), metrics, 2000);
  return c;
}

}  // namespace attest::cli
