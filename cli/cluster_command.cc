// `attest node` and `attest cluster init|status|add-node|move-shard` (docs/cluster.md, "Commands"):
// thin adapters over src/cluster/ (the shard map, the shard node, the status reader).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "cli/commands.h"
#include "cli/node_api.h"
#include "cluster/change_log.h"
#include "cluster/cluster_engine.h"
#include "cluster/cluster_ingest.h"
#include "cluster/cluster_status.h"
#include "cluster/shard_map.h"
#include "cluster/shard_node.h"

namespace attest::cli {
namespace {

struct ClusterArgs {
  std::string nats;               // nats://host:port[,...]
  std::string bucket = "ATTEST_SHARDS";
  // node
  std::string node_id, listen;
  std::string credential_env = "ATTEST_CLUSTER_CREDENTIAL";  // variable holding the service credential
  size_t batch_messages = 256;
  int64_t batch_ms = 100;
  // init
  uint32_t vshards = 64;
  int replicas = 3;
  std::string stream = "ATTEST_DOCS";
  std::string nodes;
  // add-node, move-shard
  std::string add_id;
  bool rebalance = false;
  uint32_t move_vshard = 0;
  std::string move_to;
  bool json = false;
};

int Fail(const Status& s, const char* what) {
  std::fprintf(stderr, "attest: %s: %s\n", what, s.message().c_str());
  return s.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

ShardMapOptions MapOptions(const ClusterArgs& a) { return ShardMapOptions{SplitList(a.nats), a.bucket, 5000}; }

int RunNode(const GlobalArgs& g, const ClusterArgs& a) {
  sigset_t stop_signals;  // taken by our own thread (sigwait): block them before any thread starts
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) return Fail(eo.status(), "options");
  eo->background_vectors = true;
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) return Fail(engine.status(), ("cannot open " + g.data_dir).c_str());
  // The address the node's internal API will listen on; registered as its advertised URL.
  const std::string listen = a.listen;
  ShardNodeOptions no;
  no.servers = SplitList(a.nats);
  no.node_id = a.node_id;
  no.advertised_url = "http://" + listen;
  no.bucket = a.bucket;
  no.batch_messages = a.batch_messages;
  no.batch_ms = a.batch_ms;
  const char* credential = std::getenv(a.credential_env.c_str());
  if (credential == nullptr || std::string(credential).size() < 16) {
    return Fail(Status::InvalidArgument("the variable '" + a.credential_env +
                                        "' must hold the cluster's service credential (at least 16 bytes)"),
                "node");
  }
  std::atomic<bool> stop{false};
  std::thread signal_waiter([&stop, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    stop = true;
  });
  auto end_waiter = [&] {
    if (!stop) pthread_kill(signal_waiter.native_handle(), SIGTERM);
    signal_waiter.join();
  };
  // A node (re)started while the NATS cluster recovers (a server restarting, a leader election)
  // waits for it instead of exiting: Start is tried again, backing off to 5 s, until it succeeds,
  // the arguments are wrong, or the node is stopped.
  Result<std::unique_ptr<ShardNode>> node = Status::Unavailable("not started");
  for (int64_t backoff_ms = 250; !stop; backoff_ms = std::min<int64_t>(backoff_ms * 2, 5000)) {
    node = ShardNode::Start(**engine, no);
    if (node.ok() || node.status().code() == StatusCode::kInvalidArgument) break;
    std::fprintf(stderr, "attest: node %s: %s; trying again in %lld ms\n", a.node_id.c_str(),
                 node.status().message().c_str(), static_cast<long long>(backoff_ms));
    for (int64_t waited = 0; waited < backoff_ms && !stop; waited += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (!node.ok()) {
    const bool stopped = stop.load();  // read before end_waiter, which stops the waiter by setting it
    end_waiter();
    return stopped ? kExitOk : Fail(node.status(), "node");
  }
  ShardNode* running = node->get();
  const std::string node_id = a.node_id;
  auto api = NodeApi::Start(**engine, listen, credential, [running, node_id, &engine] {
    ShardHealth h;
    h.node = node_id;
    h.snapshot = (*engine)->CurrentSnapshot();
    h.applied = running->counters().applied;
    if (auto f = (*engine)->Freshness(); f.ok()) h.committed_at_ms = f->last_commit_unix_ms;
    // As of the node's last fetch: a health call never waits on NATS (a server down would make
    // each consumer's request wait its timeout).
    const std::vector<VShardLag> lag = running->LagAsOfLastFetch();
    h.vshards = lag.size();
    for (const VShardLag& l : lag) {
      h.pending += l.pending;
      h.unacknowledged += l.unacknowledged;
    }
    return h;
  });
  if (!api.ok()) {
    end_waiter();
    return Fail(api.status(), "internal API");
  }
  std::printf("node %s: %zu of %u virtual shards, advertised at http://%s; running (Ctrl-C stops)\n",
              a.node_id.c_str(), (*node)->owned().size(), (*node)->vshard_count(), listen.c_str());
  std::fflush(stdout);
  Status run = (*node)->Run(stop);
  api->reset();  // stops serving before the node and the engine go
  end_waiter();
  const ShardNodeCounters c = (*node)->counters();
  std::printf("stopped: %llu applied, %llu skipped, %llu rejected in %llu commits\n",
              static_cast<unsigned long long>(c.applied), static_cast<unsigned long long>(c.skipped),
              static_cast<unsigned long long>(c.rejected), static_cast<unsigned long long>(c.batches));
  (void)(*engine)->WaitForVectors();
  return run.ok() ? kExitOk : Fail(run, "node");
}

int RunInit(const ClusterArgs& a) {
  ChangeLogOptions lo;
  lo.servers = SplitList(a.nats);
  lo.stream = a.stream;
  lo.replicas = a.replicas;
  lo.vshards = a.vshards;
  auto log = ChangeLog::Open(lo);
  if (!log.ok()) return Fail(log.status(), "change log");
  if (Status s = (*log)->EnsureStream(); !s.ok()) return Fail(s, "change log stream");
  ClusterConfig config{a.vshards, a.stream, a.replicas};
  const std::vector<std::string> nodes = SplitList(a.nodes);
  auto map = ShardMap::Init(MapOptions(a), config, nodes);
  if (!map.ok()) return Fail(map.status(), "cluster init");
  std::printf("cluster initialized: stream %s (%d replicas), %u virtual shards over %zu node(s)\n", a.stream.c_str(),
              a.replicas, a.vshards, nodes.size());
  return kExitOk;
}

int RunStatus(const ClusterArgs& a) {
  auto st = ReadClusterStatus(MapOptions(a));
  if (!st.ok()) return Fail(st.status(), "cluster status");
  std::map<std::string, std::pair<size_t, uint64_t>> per_node;  // node -> (vshards, pending)
  for (const VShardStatus& v : st->vshards) {
    auto& n = per_node[v.node];
    ++n.first;
    n.second += v.pending + v.unacknowledged;
  }
  if (a.json) {
    nlohmann::json j = {{"vshards", st->config.vshards}, {"stream", st->config.stream},
                        {"replicas", st->config.replicas}, {"stream_last_sequence", st->stream_last_sequence},
                        {"stream_messages", st->stream_messages}};
    j["nodes"] = nlohmann::json::array();
    for (const NodeRecord& n : st->nodes) {
      j["nodes"].push_back({{"id", n.id}, {"url", n.url}, {"heartbeat_unix_ms", n.heartbeat_unix_ms},
                            {"vshards", per_node[n.id].first}, {"lag", per_node[n.id].second}});
    }
    j["shards"] = nlohmann::json::array();
    for (const VShardStatus& v : st->vshards) {
      j["shards"].push_back({{"vshard", v.vshard}, {"node", v.node}, {"consuming", v.consuming},
                             {"acknowledged", v.acknowledged}, {"pending", v.pending},
                             {"unacknowledged", v.unacknowledged}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("stream %s: %d replicas, last sequence %llu, %llu live documents; %u virtual shards\n",
              st->config.stream.c_str(), st->config.replicas, static_cast<unsigned long long>(st->stream_last_sequence),
              static_cast<unsigned long long>(st->stream_messages), st->config.vshards);
  for (const NodeRecord& n : st->nodes) {
    std::printf("node %-16s %3zu vshards  lag %llu  %s  heartbeat %lld\n", n.id.c_str(), per_node[n.id].first,
                static_cast<unsigned long long>(per_node[n.id].second), n.url.empty() ? "(not started)" : n.url.c_str(),
                static_cast<long long>(n.heartbeat_unix_ms));
  }
  for (const VShardStatus& v : st->vshards) {
    if (!v.consuming || v.pending + v.unacknowledged > 0) {
      std::printf("vshard %u on %s: %s, acknowledged %llu, pending %llu, unacknowledged %llu\n", v.vshard,
                  v.node.c_str(), v.consuming ? "consuming" : "not consumed yet",
                  static_cast<unsigned long long>(v.acknowledged), static_cast<unsigned long long>(v.pending),
                  static_cast<unsigned long long>(v.unacknowledged));
    }
  }
  return kExitOk;
}

int RunAddNode(const ClusterArgs& a) {
  auto map = ShardMap::Open(MapOptions(a));
  if (!map.ok()) return Fail(map.status(), "cluster");
  if (Status s = (*map)->AddNode(a.add_id); !s.ok()) return Fail(s, "add-node");
  if (!a.rebalance) {
    std::printf("node %s registered; it owns no virtual shard until one is moved to it (cluster move-shard, or "
                "add-node --rebalance)\n", a.add_id.c_str());
    return kExitOk;
  }
  auto assignments = (*map)->Assignments();
  if (!assignments.ok()) return Fail(assignments.status(), "cluster");
  std::map<uint32_t, std::string> owners;
  for (const auto& [v, as] : *assignments) owners[v] = as.node;
  size_t moved = 0;
  for (const auto& [v, to] : FairShareMoves(owners, a.add_id)) {
    // Compare-and-set on the revision just read: a shard someone else moved meanwhile stays put.
    auto rev = (*map)->Assign(v, to, assignments->at(v).revision);
    if (!rev.ok()) {
      std::fprintf(stderr, "attest: vshard %u not moved: %s\n", v, rev.status().message().c_str());
      continue;
    }
    std::printf("vshard %u: %s -> %s\n", v, owners[v].c_str(), to.c_str());
    ++moved;
  }
  std::printf("node %s registered and given %zu virtual shard(s) (a fair share; it replays them from the log)\n",
              a.add_id.c_str(), moved);
  return kExitOk;
}

int RunMoveShard(const ClusterArgs& a) {
  auto map = ShardMap::Open(MapOptions(a));
  if (!map.ok()) return Fail(map.status(), "cluster");
  auto config = (*map)->Config();
  if (!config.ok()) return Fail(config.status(), "cluster");
  if (a.move_vshard >= config->vshards) {
    return Fail(Status::InvalidArgument("vshard " + std::to_string(a.move_vshard) + " is not below " +
                                        std::to_string(config->vshards)), "move-shard");
  }
  auto nodes = (*map)->Nodes();
  if (!nodes.ok()) return Fail(nodes.status(), "cluster");
  bool known = false;
  for (const NodeRecord& n : *nodes) known = known || n.id == a.move_to;
  if (!known) return Fail(Status::InvalidArgument("node " + a.move_to + " is not registered (cluster add-node)"), "move-shard");
  auto assignments = (*map)->Assignments();
  if (!assignments.ok()) return Fail(assignments.status(), "cluster");
  auto it = assignments->find(a.move_vshard);
  if (it == assignments->end()) return Fail(Status::NotFound("vshard has no owner"), "move-shard");
  if (it->second.node == a.move_to) {
    std::printf("vshard %u is already on %s\n", a.move_vshard, a.move_to.c_str());
    return kExitOk;
  }
  auto rev = (*map)->Assign(a.move_vshard, a.move_to, it->second.revision);
  if (!rev.ok()) return Fail(rev.status(), "move-shard");
  std::printf("vshard %u moved from %s to %s (revision %llu): %s replays it from the log, %s drops it\n", a.move_vshard,
              it->second.node.c_str(), a.move_to.c_str(), static_cast<unsigned long long>(*rev), a.move_to.c_str(),
              it->second.node.c_str());
  return kExitOk;
}

class ClusterCommandsImpl final : public ClusterCommands {
 public:
  explicit ClusterCommandsImpl(CLI::App& app) {
    node_ = app.add_subcommand("node", "run a shard node: apply the change log's virtual shards the shard map gives "
                                       "this node to --data, until SIGINT/SIGTERM (docs/cluster.md)");
    AddNats(node_);
    node_->add_option("--node-id", a_.node_id, "this node's id (letters, digits, '_', '-')")->required();
    node_->add_option("--listen", a_.listen, "HOST:PORT of the node's internal API (registered in the shard map)")
        ->required();
    node_->add_option("--credential-env", a_.credential_env, "variable holding the cluster's service credential")
        ->capture_default_str();
    node_->add_option("--batch-messages", a_.batch_messages, "messages per commit at most")->capture_default_str();
    node_->add_option("--batch-ms", a_.batch_ms, "... or what arrived within this long")->capture_default_str();

    cluster_ = app.add_subcommand("cluster", "create and operate the cluster's shard map (docs/cluster.md)");
    cluster_->require_subcommand(1);
    init_ = cluster_->add_subcommand("init", "create the change log's stream, the shard map and an even map");
    AddNats(init_);
    init_->add_option("--vshards", a_.vshards, "virtual shards, 64..256, fixed for the cluster's life")
        ->capture_default_str();
    init_->add_option("--replicas", a_.replicas, "copies of the stream and the map")->capture_default_str();
    init_->add_option("--stream", a_.stream, "the change log's stream")->capture_default_str();
    init_->add_option("--nodes", a_.nodes, "node ids, comma-separated")->required();
    status_ = cluster_->add_subcommand("status", "nodes, virtual shards per node, per-shard lag");
    AddNats(status_);
    status_->add_flag("--json", a_.json, "JSON output");
    add_ = cluster_->add_subcommand("add-node", "register a node (it owns nothing until shards are moved to it)");
    AddNats(add_);
    add_->add_option("id", a_.add_id, "node id")->required();
    add_->add_flag("--rebalance", a_.rebalance,
                   "also move it a fair share of the shards (floor(shards / nodes)), from the nodes with the most");
    move_ = cluster_->add_subcommand("move-shard", "give a virtual shard to another node (compare-and-set)");
    AddNats(move_);
    move_->add_option("vshard", a_.move_vshard, "virtual shard")->required();
    move_->add_option("--to", a_.move_to, "the node that takes it")->required();
  }

  bool Selected() const override { return node_->parsed() || cluster_->parsed(); }

  int Run(const GlobalArgs& g) override {
    if (node_->parsed()) return RunNode(g, a_);
    if (init_->parsed()) return RunInit(a_);
    if (status_->parsed()) return RunStatus(a_);
    if (add_->parsed()) return RunAddNode(a_);
    if (move_->parsed()) return RunMoveShard(a_);
    return kExitUsage;
  }

 private:
  void AddNats(CLI::App* cmd) {
    cmd->add_option("--nats", a_.nats, "NATS servers, nats://host:port, comma-separated")->required();
    cmd->add_option("--bucket", a_.bucket, "the shard map's key-value bucket")->capture_default_str();
  }

  ClusterArgs a_;
  CLI::App* node_;
  CLI::App* cluster_;
  CLI::App* init_;
  CLI::App* status_;
  CLI::App* add_;
  CLI::App* move_;
};

}  // namespace

namespace {

// The change log of the cluster whose shard map is `bucket` on `servers_csv`; *stream = its stream.
Result<std::unique_ptr<ChangeLog>> OpenClusterLog(const std::string& servers_csv, const std::string& bucket,
                                                  std::string* stream = nullptr) {
  ATTEST_ASSIGN_OR_RETURN(auto map, ShardMap::Open(ShardMapOptions{SplitList(servers_csv), bucket, 5000}));
  ATTEST_ASSIGN_OR_RETURN(auto config, map->Config());
  ChangeLogOptions lo;
  lo.servers = SplitList(servers_csv);
  lo.stream = config.stream;
  lo.replicas = config.replicas;
  lo.vshards = config.vshards;
  if (stream != nullptr) *stream = config.stream;
  Result<std::unique_ptr<ChangeLog>> log = ChangeLog::Open(lo);
  if (!log.ok()) return log.status().WithContext("change log");
  return log;
}

}  // namespace

Result<std::unique_ptr<Engine>> OpenClusterWriter(const std::string& servers_csv, const std::string& bucket,
                                                  const std::vector<std::string>& access_levels) {
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ChangeLog> log, OpenClusterLog(servers_csv, bucket));
  ClusterEngineOptions o;
  o.log = std::move(log);
  o.write_only = true;
  o.access_levels = access_levels;
  return OpenClusterEngine(std::move(o));
}

int RunClusterIngest(const GlobalArgs& g, const IngestArgs& a) {
  auto eo = MakeEngineOptions(g, /*read_only=*/true);
  if (!eo.ok()) return Fail(eo.status(), "options");
  std::string stream;
  auto log = OpenClusterLog(a.cluster, a.bucket, &stream);
  if (!log.ok()) return Fail(log.status(), "cluster");
  ClusterIngestOptions co;
  co.paths = a.paths;
  co.defaults.tenant = StoreTenant(a.tenant);
  co.defaults.acl_groups = SplitList(a.acl);
  co.defaults.access_label = a.label;
  co.defaults.source_type = a.source_type;
  co.defaults.version = a.version;
  co.defaults.site = a.site;
  co.defaults.license = a.license;
  co.access_levels = eo->access_levels;
  if (a.print_acks) {
    co.on_ack = [](const std::string& id, uint64_t seq, bool duplicate) {
      std::printf("ack %s %llu%s\n", id.c_str(), static_cast<unsigned long long>(seq), duplicate ? " duplicate" : "");
      std::fflush(stdout);
    };
  }
  auto r = AppendSources(**log, co);
  if (!r.ok()) return Fail(r.status(), "ingest --cluster");
  IngestReport issues;
  issues.issues = r->issues;
  PrintIngestIssues(issues);
  if (a.json) {
    nlohmann::json j = {{"files", r->files},           {"appended", r->appended},
                        {"duplicates", r->duplicates}, {"stale", r->stale},
                        {"last_sequence", r->last_sequence}, {"errors", r->issues.size()}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("appended %llu documents from %llu files to %s (%llu duplicates, %llu stale); last sequence %llu",
                static_cast<unsigned long long>(r->appended), static_cast<unsigned long long>(r->files),
                stream.c_str(), static_cast<unsigned long long>(r->duplicates),
                static_cast<unsigned long long>(r->stale), static_cast<unsigned long long>(r->last_sequence));
    if (!r->issues.empty()) std::printf("; %zu error(s)", r->issues.size());
    std::printf("\n");
  }
  return r->issues.empty() ? kExitOk : kExitPartial;
}

std::unique_ptr<ClusterCommands> RegisterClusterCommands(CLI::App& app) {
  return std::make_unique<ClusterCommandsImpl>(app);
}

}  // namespace attest::cli
