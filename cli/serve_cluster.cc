#include "cli/serve_cluster.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "cluster/cluster_engine.h"
#include "cluster/shard_http.h"
#include "cluster/shard_map.h"

namespace attest::cli {

ShardHealthPoller::ShardHealthPoller(std::shared_ptr<ShardSet> set, ShardDiscovery discovery,
                                     service::Registry* metrics, uint32_t interval_ms)
    : set_(std::move(set)), discovery_(std::move(discovery)), metrics_(metrics), interval_ms_(interval_ms) {
  for (const auto& s : *set_->Current()) {
    if (const auto* h = dynamic_cast<const HttpShard*>(s.get())) endpoints_.push_back({s->name(), h->base_url()});
  }
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

void ShardHealthPoller::Rediscover() {
  Result<std::vector<ShardEndpoint>> now = discovery_.endpoints();
  if (!now.ok()) {
    spdlog::warn("cluster: reading the shard map: {}; keeping {} shard(s)", now.status().ToString(),
                 set_->Current()->size());
    return;
  }
  if (*now == endpoints_ || now->empty()) return;
  // Clients of unchanged endpoints are kept (their connections too); requests under way keep the
  // list they started with.
  std::map<std::string, std::shared_ptr<const ShardClient>> kept;
  for (const auto& s : *set_->Current()) kept[s->name()] = s;
  ShardSet::List next;
  for (const ShardEndpoint& e : *now) {
    auto it = kept.find(e.node);
    const bool same = it != kept.end() && std::find(endpoints_.begin(), endpoints_.end(), e) != endpoints_.end();
    next.push_back(same ? it->second : discovery_.client(e));
  }
  if (Status s = set_->Replace(std::move(next)); !s.ok()) {
    spdlog::warn("cluster: the shard map's nodes cannot be used: {}; keeping the current list", s.ToString());
    return;
  }
  std::string names;
  for (const ShardEndpoint& e : *now) names += (names.empty() ? "" : ", ") + e.node + "=" + (e.url.empty() ? "?" : e.url);
  spdlog::info("cluster: searching {} node(s): {}", now->size(), names);
  endpoints_ = std::move(now).value();
}

void ShardHealthPoller::PollOnce() {
  if (discovery_.endpoints) Rediscover();
  const std::shared_ptr<const ShardSet::List> shards = set_->Current();
  for (const auto& shard : *shards) {
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
  uint32_t vshards = a.vshards;
  ShardDiscovery discovery;
  ShardSet::List shards;
  if (a.discover) {
    if (a.nats.empty()) return Status::InvalidArgument("--cluster-discover needs --cluster-nats (the shard map's servers)");
    if (!a.shards.empty()) return Status::InvalidArgument("--cluster-discover and --cluster-shard exclude each other");
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ShardMap> opened, ShardMap::Open(ShardMapOptions{SplitList(a.nats)}));
    std::shared_ptr<ShardMap> map = std::move(opened);
    ATTEST_ASSIGN_OR_RETURN(ClusterConfig config, map->Config());
    vshards = config.vshards;  // the map's, whatever the flag says
    discovery.endpoints = [map]() -> Result<std::vector<ShardEndpoint>> {
      ATTEST_ASSIGN_OR_RETURN(auto assignments, map->Assignments());
      ATTEST_ASSIGN_OR_RETURN(auto nodes, map->Nodes());
      return OwningNodes(assignments, nodes);
    };
    discovery.client = [credential = std::string(credential), client](const ShardEndpoint& e) {
      return std::shared_ptr<const ShardClient>(std::make_shared<HttpShard>(HttpShardOptions{e.node, e.url, credential}, client));
    };
    ATTEST_ASSIGN_OR_RETURN(std::vector<ShardEndpoint> endpoints, discovery.endpoints());
    if (endpoints.empty()) return Status::InvalidArgument("no node owns a virtual shard in the shard map");
    for (const ShardEndpoint& e : endpoints) shards.push_back(discovery.client(e));
  }
  for (const std::string& spec : a.shards) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || spec.compare(eq + 1, 7, "http://") != 0) {
      return Status::InvalidArgument("'" + spec + "' is not NAME=http://HOST:PORT");
    }
    shards.push_back(std::make_shared<HttpShard>(HttpShardOptions{spec.substr(0, eq), spec.substr(eq + 1), credential}, client));
  }
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<ShardSet> set, ShardSet::Make(std::move(shards)));
  o.shard_set = set;
  if (!a.nats.empty()) {
    ChangeLogOptions lo;
    lo.servers = SplitList(a.nats);
    lo.vshards = vshards;
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ChangeLog> log, ChangeLog::Open(lo));
    o.log = std::move(log);
  }
  Coordinator c;
  ATTEST_ASSIGN_OR_RETURN(c.engine, OpenClusterEngine(std::move(o)));
  c.poller = std::make_unique<ShardHealthPoller>(std::move(set), std::move(discovery), metrics, 2000);
  return c;
}

}  // namespace attest::cli
