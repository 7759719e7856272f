#include "cluster/shard_node.h"

#include <nats/nats.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <optional>

#include "cluster/change_codec.h"
#include "cluster/nats_connection.h"
#include "cluster/shard_map.h"
#include "common/thread_annotations.h"

namespace attest {
namespace {

int64_t Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// One owned shard's pull subscription.
struct Consumer {
  natsSubscription* sub = nullptr;
  // The consumer sequence of the last message taken: JetStream numbers every delivery of a
  // consumer (redeliveries included) 1, 2, 3...; a gap means a delivery went to a request this node
  // no longer waits for, and applying what follows could skip it (see Fetch).
  uint64_t last_delivery = 0;
  ~Consumer() {
    if (sub != nullptr) natsSubscription_Destroy(sub);
  }
};

// A fetched message and where it came from.
struct Fetched {
  natsMsg* msg = nullptr;
  uint32_t vshard = 0;
  uint64_t sequence = 0;
};

class NatsShardNode final : public ShardNode {
 public:
  NatsShardNode(Engine& engine, ShardNodeOptions options, std::unique_ptr<NatsConnection> conn,
                std::unique_ptr<ShardMap> map, ClusterConfig config)
      : engine_(engine),
        options_(std::move(options)),
        clock_(options_.clock ? options_.clock : RealClock()),
        conn_(std::move(conn)),
        map_(std::move(map)),
        config_(std::move(config)) {}

  Status Init() {
    ATTEST_ASSIGN_OR_RETURN(watch_, map_->Watch());
    ATTEST_RETURN_IF_ERROR(Heartbeat());
    ATTEST_ASSIGN_OR_RETURN(auto assignments, map_->Assignments());
    std::map<uint32_t, std::string> owners;
    for (const auto& [v, a] : assignments) owners[v] = a.node;
    // Shards the store holds positions of but the map gives to another node: given up now (a crash
    // while giving one up, or a move while this node was down).
    for (const auto& [v, position] : engine_.LogPositions()) {
      if (!owners.contains(v)) owners[v] = "";
    }
    return FollowMap(owners);
  }

  Result<size_t> Step() override {
    retired_.clear();  // the previous step's messages, which point at these subscriptions, are gone
    ATTEST_ASSIGN_OR_RETURN(auto changes, watch_->Next(1));
    if (!changes.empty()) ATTEST_RETURN_IF_ERROR(FollowMap(changes));
    RetryOneStalled();
    if (Ms(clock_->Now() - last_heartbeat_) >= options_.heartbeat_ms) {
      Status hb = Heartbeat();
      if (!hb.ok()) spdlog::warn("node {}: heartbeat: {}", options_.node_id, hb.ToString());
    }
    std::vector<Fetched> fetched;
    struct Release {
      std::vector<Fetched>* list;
      ~Release() {
        for (Fetched& f : *list) natsMsg_Destroy(f.msg);
      }
    } release{&fetched};
    ATTEST_RETURN_IF_ERROR(Fetch(&fetched));
    if (fetched.empty()) return size_t{0};
    ATTEST_RETURN_IF_ERROR(Apply(fetched));
    // Committed: acknowledge. A lost ack only means a redelivery, skipped by its position.
    for (Fetched& f : fetched) natsMsg_Ack(f.msg, nullptr);
    return fetched.size();
  }

  Status Run(const std::atomic<bool>& stop) override {
    while (!stop.load()) {
      auto step = Step();
      if (step.ok() && *step > 0) continue;
      if (!step.ok()) {
        spdlog::warn("node {}: {}; re-synchronizing the consumers from the catalog", options_.node_id,
                     step.status().ToString());
        Status resync = Resync();
        if (!resync.ok()) spdlog::warn("node {}: re-synchronize: {}", options_.node_id, resync.ToString());
      }
      clock_->SleepFor(std::chrono::milliseconds(step.ok() ? options_.idle_ms : 500));
    }
    return Status::Ok();
  }

  std::set<uint32_t> owned() const override {
    MutexLock lock(mu_);
    std::set<uint32_t> out;
    for (const auto& [v, since] : stalled_) out.insert(v);
    for (const auto& [v, c] : consumers_) out.insert(v);
    return out;
  }

  uint32_t vshard_count() const override { return config_.vshards; }

  Result<std::vector<VShardLag>> Lag() override {
    const std::map<uint32_t, uint64_t> positions = engine_.LogPositions();
    std::vector<VShardLag> out;
    for (uint32_t v : owned()) {
      VShardLag lag;
      lag.vshard = v;
      auto p = positions.find(v);
      lag.position = p == positions.end() ? 0 : p->second;
      {
        MutexLock lock(mu_);
        lag.stalled = stalled_.contains(v);
      }
      if (lag.stalled) {
        out.push_back(lag);
        continue;
      }
      jsConsumerInfo* ci = nullptr;
      jsErrCode jerr = jsErrCode(0);
      natsStatus s = js_GetConsumerInfo(&ci, conn_->js(), config_.stream.c_str(),
                                        ConsumerName(options_.node_id, v).c_str(), nullptr, &jerr);
      if (s != NATS_OK) return NatsStatus(s, jerr, "consumer of vshard " + std::to_string(v));
      lag.pending = ci->NumPending;
      lag.unacknowledged = uint64_t(std::max<int64_t>(ci->NumAckPending, 0));
      jsConsumerInfo_Destroy(ci);
      out.push_back(lag);
    }
    return out;
  }

  std::vector<VShardLag> LagAsOfLastFetch() const override {
    const std::map<uint32_t, uint64_t> positions = engine_.LogPositions();
    std::vector<VShardLag> out;
    MutexLock lock(mu_);
    std::set<uint32_t> owned_now;
    for (const auto& [v, since] : stalled_) owned_now.insert(v);
    for (const auto& [v, c] : consumers_) owned_now.insert(v);
    for (uint32_t v : owned_now) {
      VShardLag lag;
      lag.vshard = v;
      auto p = positions.find(v);
      lag.position = p == positions.end() ? 0 : p->second;
      lag.stalled = stalled_.contains(v);
      if (auto o = observed_.find(v); o != observed_.end()) {
        lag.pending = o->second.pending;
        lag.unacknowledged = o->second.unacknowledged;
      }
      out.push_back(lag);
    }
    return out;
  }

  ShardNodeCounters counters() const override {
    MutexLock lock(mu_);
    return counters_;
  }

 private:
  Status Heartbeat() {
    last_heartbeat_ = clock_->Now();
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            clock_->WallNow().time_since_epoch()).count();
    return map_->PutNode(NodeRecord{options_.node_id, options_.advertised_url, now});
  }

  // Applies owner changes: subscribes to shards gained, gives up shards lost.
  Status FollowMap(const std::map<uint32_t, std::string>& owners) {
    std::vector<uint32_t> lost;
    for (const auto& [v, node] : owners) {
      if (v >= config_.vshards) continue;
      const bool mine = node == options_.node_id;
      bool have;
      {
        MutexLock lock(mu_);
        have = consumers_.contains(v) || stalled_.contains(v);
      }
      if (mine && !have) {
        SubscribeOrStall(v);
        MutexLock lock(mu_);
        ++counters_.gained;
      } else if (!mine) {
        const auto positions = engine_.LogPositions();
        if (have || positions.contains(v)) lost.push_back(v);
      }
    }
    if (lost.empty()) return Status::Ok();
    // Stop consuming first, then delete the documents and positions in one commit: a crash in
    // between leaves positions of shards the map does not give this node, given up at the next start.
    for (uint32_t v : lost) {
      {
        MutexLock lock(mu_);
        consumers_.erase(v);
        stalled_.erase(v);
      }
      jsErrCode jerr = jsErrCode(0);
      js_DeleteConsumer(conn_->js(), config_.stream.c_str(), ConsumerName(options_.node_id, v).c_str(), nullptr, &jerr);
    }
    ChangeBatch drop;
    drop.drop_vshards = lost;
    drop.vshard_count = config_.vshards;
    ATTEST_ASSIGN_OR_RETURN(ApplyChangesReport r, engine_.ApplyChanges(drop));
    spdlog::info("node {}: gave up {} virtual shard(s), {} document(s) deleted", options_.node_id, lost.size(),
                 r.dropped);
    MutexLock lock(mu_);
    counters_.lost += lost.size();
    return Status::Ok();
  }

  // Creates or reconciles the durable consumer of `v` with the catalog's position, then binds a
  // pull subscription to it.
  Status Subscribe(uint32_t v, bool recreate = false) {
    const std::map<uint32_t, uint64_t> positions = engine_.LogPositions();
    const uint64_t position = positions.contains(v) ? positions.at(v) : 0;
    const std::string name = ConsumerName(options_.node_id, v);
    const std::string filter = "attest.doc." + std::to_string(v) + ".>";
    jsConsumerInfo* ci = nullptr;
    jsErrCode jerr = jsErrCode(0);
    natsStatus s = js_GetConsumerInfo(&ci, conn_->js(), config_.stream.c_str(), name.c_str(), nullptr, &jerr);
    bool keep = false;
    uint64_t last_delivery = 0;
    if (s == NATS_OK) {
      last_delivery = ci->Delivered.Consumer;
      keep = ci->AckFloor.Stream == position && ci->NumAckPending == 0 && ci->Config->FilterSubject != nullptr &&
             filter == ci->Config->FilterSubject;
      jsConsumerInfo_Destroy(ci);
      if (!keep) {
        s = js_DeleteConsumer(conn_->js(), config_.stream.c_str(), name.c_str(), nullptr, &jerr);
        if (s != NATS_OK) return NatsStatus(s, jerr, "delete consumer " + name);
      }
    } else if (NatsStatus(s, jerr, "").code() != StatusCode::kNotFound) {
      if (!recreate) return NatsStatus(s, jerr, "consumer " + name);
      // Stalled for long with its consumer silent: the cluster may still list a consumer that no
      // server runs (its single in-memory copy died with a server), which would stall the shard
      // forever. Delete it (best effort: the answer may never come) and make it again.
      spdlog::warn("node {}: consumer {} has not answered for {} ms ({}); deleting and recreating it",
                   options_.node_id, name, options_.stall_recreate_ms, NatsStatus(s, jerr, "").ToString());
      jsErrCode derr = jsErrCode(0);
      js_DeleteConsumer(conn_->js(), config_.stream.c_str(), name.c_str(), nullptr, &derr);
    }
    if (!keep) {
      jsConsumerConfig cc;
      jsConsumerConfig_Init(&cc);
      cc.Durable = name.c_str();
      cc.FilterSubject = filter.c_str();
      cc.AckPolicy = js_AckExplicit;
      cc.AckWait = options_.ack_wait_ms * 1000000;
      cc.DeliverPolicy = position > 0 ? js_DeliverByStartSequence : js_DeliverAll;
      cc.OptStartSeq = position > 0 ? position + 1 : 0;
      cc.MaxAckPending = int64_t(std::max<size_t>(options_.batch_messages * 4, 1024));
      // The consumer is a cursor, not the truth (the catalog is): one replica in memory is enough,
      // and a replicated consumer per shard would cost a Raft group each. Lost with its server, it
      // is recreated from the catalog's position (Resync).
      cc.Replicas = 1;
      cc.MemoryStorage = true;
      s = js_AddConsumer(&ci, conn_->js(), config_.stream.c_str(), &cc, nullptr, &jerr);
      if (s != NATS_OK) return NatsStatus(s, jerr, "create consumer " + name);
      jsConsumerInfo_Destroy(ci);
    }
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = config_.stream.c_str();
    so.Consumer = name.c_str();
    so.ManualAck = true;
    so.Config.Replicas = 1;  // binding checks these against the consumer's
    so.Config.MemoryStorage = true;
    auto c = std::make_unique<Consumer>();
    c->last_delivery = keep ? last_delivery : 0;
    s = js_PullSubscribe(&c->sub, conn_->js(), filter.c_str(), name.c_str(), nullptr, &so, &jerr);
    if (s != NATS_OK) return NatsStatus(s, jerr, "subscribe " + name);
    MutexLock lock(mu_);
    consumers_[v] = std::move(c);
    return Status::Ok();
  }

  // Recreates every owned consumer from the catalog's positions (after a failed step).
  Status Resync() {
    for (uint32_t v : Active()) {
      {
        MutexLock lock(mu_);
        consumers_.erase(v);
      }
      SubscribeOrStall(v);
    }
    return Status::Ok();
  }

  // The shards with a consumer (owned ones that are not stalled).
  std::vector<uint32_t> Active() const {
    MutexLock lock(mu_);
    std::vector<uint32_t> out;
    for (const auto& [v, c] : consumers_) out.push_back(v);
    return out;
  }

  // Subscribes to `v`, or marks it stalled when its consumer cannot be reached or made (the NATS
  // server holding it is down): the other shards go on; a stalled shard is retried, one per step.
  void SubscribeOrStall(uint32_t v) {
    bool recreate = false;
    {
      MutexLock lock(mu_);
      auto it = stalled_.find(v);
      recreate = it != stalled_.end() && Ms(clock_->Now() - it->second) >= options_.stall_recreate_ms;
    }
    Status s = Subscribe(v, recreate);
    MutexLock lock(mu_);
    if (s.ok()) {
      stalled_.erase(v);
      return;
    }
    consumers_.erase(v);
    if (stalled_.emplace(v, clock_->Now()).second) {
      spdlog::warn("node {}: vshard {} stalled: {}; retrying", options_.node_id, v, s.ToString());
    } else if (recreate) {
      stalled_[v] = clock_->Now();  // the next forced attempt after another full wait
    }
  }

  void RetryOneStalled() {
    if (Ms(clock_->Now() - last_stall_retry_) < 1000) return;
    last_stall_retry_ = clock_->Now();
    std::optional<uint32_t> v;
    {
      MutexLock lock(mu_);
      if (stalled_.empty()) return;
      auto it = stalled_.upper_bound(last_stall_tried_);
      v = it == stalled_.end() ? stalled_.begin()->first : it->first;
    }
    last_stall_tried_ = *v;
    SubscribeOrStall(*v);
  }

  // Fetches round-robin until a batch is full, its time is up, or a sweep found nothing. A shard's
  // pending count is read first and at most that many asked for, so a request never waits on the
  // server for messages that are not there (an idle shard costs one round trip, not a timeout).
  Status Fetch(std::vector<Fetched>* out) {
    const auto start = clock_->Now();
    const std::vector<uint32_t> order = Active();
    if (order.empty()) return Status::Ok();
    std::set<uint32_t> broken;
    bool any = true;
    while (any && out->size() < options_.batch_messages && Ms(clock_->Now() - start) < options_.batch_ms) {
      any = false;
      for (size_t i = 0; i < order.size() && out->size() < options_.batch_messages; ++i) {
        const uint32_t v = order[(cursor_ + i) % order.size()];
        if (broken.contains(v)) continue;
        auto fetched = FetchShard(v, options_.batch_messages - out->size(), out);
        if (!fetched.ok()) {
          // Its messages taken so far stay in the batch (they precede the failure, in order).
          broken.insert(v);
          spdlog::warn("node {}: vshard {}: {}", options_.node_id, v, fetched.status().ToString());
          continue;
        }
        const size_t took = *fetched;
        if (took == SIZE_MAX) {
          broken.insert(v);
          continue;
        }
        any = any || took > 0;
      }
      cursor_ = (cursor_ + 1) % order.size();
    }
    // A shard whose deliveries have a gap is re-read from its committed position (its messages
    // after the gap were left out of this batch, unacknowledged).
    for (uint32_t v : broken) {
      spdlog::warn("node {}: deliveries of vshard {} have a gap or were lost; re-reading it from the catalog's position",
                   options_.node_id, v);
      {
        // The batch's messages of this shard point at its subscription: keep it until they are acked.
        MutexLock lock(mu_);
        auto it = consumers_.find(v);
        if (it != consumers_.end()) {
          retired_.push_back(std::move(it->second));
          consumers_.erase(it);
        }
      }
      SubscribeOrStall(v);
    }
    return Status::Ok();
  }

  // Fetches up to `room` messages of shard `v`: their count, or SIZE_MAX when the deliveries have a
  // gap (the messages from it on are released unacknowledged) or the consumer delivered messages
  // this node never received.
  Result<size_t> FetchShard(uint32_t v, size_t room, std::vector<Fetched>* out) {
    Consumer* c;
    {
      MutexLock lock(mu_);
      c = consumers_.at(v).get();
    }
    jsConsumerInfo* ci = nullptr;
    jsErrCode jerr = jsErrCode(0);
    natsStatus s = js_GetConsumerInfo(&ci, conn_->js(), config_.stream.c_str(),
                                      ConsumerName(options_.node_id, v).c_str(), nullptr, &jerr);
    if (s != NATS_OK) return NatsStatus(s, jerr, "consumer of vshard " + std::to_string(v));
    const uint64_t pending = ci->NumPending;
    const uint64_t delivered = ci->Delivered.Consumer;
    {
      MutexLock lock(mu_);
      observed_[v] = Observed{pending, uint64_t(std::max<int64_t>(ci->NumAckPending, 0))};
    }
    jsConsumerInfo_Destroy(ci);
    // Every delivery of the consumer must have reached this node. One that did not (its reply was
    // lost with a killed server or a broken connection, or the consumer restarted empty with its
    // server) would be redelivered only to a later pull, and no pull comes while nothing new is
    // pending: re-read the shard from the catalog's position instead of waiting on it.
    if (delivered != c->last_delivery) return SIZE_MAX;
    if (pending == 0) return size_t{0};
    jsFetchRequest req;
    jsFetchRequest_Init(&req);
    req.Batch = int(std::min<uint64_t>(room, pending));
    req.NoWait = true;
    req.Expires = 200 * int64_t(1000000);  // only when compaction removed some of them meanwhile
    natsMsgList list{};
    s = natsSubscription_FetchRequest(&list, c->sub, &req);
    if (s == NATS_NOT_FOUND || s == NATS_TIMEOUT) return size_t{0};
    if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "fetch vshard " + std::to_string(v));
    size_t took = 0;
    bool gap = false;
    for (int k = 0; k < list.Count; ++k) {
      jsMsgMetaData* meta = nullptr;
      if (gap || natsMsg_GetMetaData(&meta, list.Msgs[k]) != NATS_OK) continue;  // released by the list
      if (meta->Sequence.Consumer != c->last_delivery + 1) {
        gap = true;
      } else {
        c->last_delivery = meta->Sequence.Consumer;
        out->push_back(Fetched{list.Msgs[k], v, meta->Sequence.Stream});
        list.Msgs[k] = nullptr;
        ++took;
      }
      jsMsgMetaData_Destroy(meta);
    }
    natsMsgList_Destroy(&list);
    return gap ? SIZE_MAX : took;
  }

  // Decodes the fetched messages into one ChangeBatch and commits it with the positions.
  Status Apply(const std::vector<Fetched>& fetched) {
    const std::map<uint32_t, uint64_t> committed = engine_.LogPositions();
    std::deque<DocumentSpec> docs;  // stable addresses for LogChange::doc
    ChangeBatch batch;
    uint64_t skipped = 0, rejected = 0;
    for (const Fetched& f : fetched) {
      auto c = committed.find(f.vshard);
      if (c != committed.end() && f.sequence <= c->second) {
        ++skipped;
        continue;
      }
      uint64_t& pos = batch.log_positions[f.vshard];
      pos = std::max(pos, f.sequence);
      auto decoded = DecodeChange(std::string_view(natsMsg_GetData(f.msg), size_t(natsMsg_GetDataLength(f.msg))));
      if (!decoded.ok()) {
        spdlog::error("node {}: message {} of vshard {} rejected: {}", options_.node_id, f.sequence, f.vshard,
                      decoded.status().ToString());
        ++rejected;
        continue;
      }
      docs.push_back(std::move(decoded->doc));
      const LogChange::Kind kind =
          decoded->kind == DocumentChange::Kind::kDelete ? LogChange::Kind::kDelete : LogChange::Kind::kUpsert;
      batch.changes.push_back(LogChange{kind, &docs.back(), f.vshard, f.sequence});
    }
    if (!batch.log_positions.empty()) {
      ATTEST_ASSIGN_OR_RETURN(ApplyChangesReport r, engine_.ApplyChanges(batch));
      for (const std::string& why : r.rejected) spdlog::error("node {}: change rejected: {}", options_.node_id, why);
      rejected += r.rejected.size();
    }
    MutexLock lock(mu_);
    counters_.applied += fetched.size() - skipped - rejected;
    counters_.skipped += skipped;
    counters_.rejected += rejected;
    if (!batch.log_positions.empty()) ++counters_.batches;
    return Status::Ok();
  }

  Engine& engine_;
  const ShardNodeOptions options_;
  const Clock* clock_;
  std::unique_ptr<NatsConnection> conn_;
  std::unique_ptr<ShardMap> map_;
  const ClusterConfig config_;
  std::unique_ptr<ShardMapWatch> watch_;
  std::chrono::steady_clock::time_point last_heartbeat_;
  size_t cursor_ = 0;
  std::vector<std::unique_ptr<Consumer>> retired_;  // replaced subscriptions, freed at the next step
  std::chrono::steady_clock::time_point last_stall_retry_;
  uint32_t last_stall_tried_ = 0;

  mutable Mutex mu_;
  std::map<uint32_t, std::unique_ptr<Consumer>> consumers_ GUARDED_BY(mu_);
  // Owned shards whose consumer cannot be reached, since when: retried.
  std::map<uint32_t, std::chrono::steady_clock::time_point> stalled_ GUARDED_BY(mu_);
  ShardNodeCounters counters_ GUARDED_BY(mu_);
  struct Observed {
    uint64_t pending = 0;
    uint64_t unacknowledged = 0;
  };
  std::map<uint32_t, Observed> observed_ GUARDED_BY(mu_);  // each shard's consumer at its last read
};

}  // namespace

std::string ConsumerName(const std::string& node_id, uint32_t vshard) {
  return "attest_" + node_id + "_" + std::to_string(vshard);
}

Result<std::unique_ptr<ShardNode>> ShardNode::Start(Engine& engine, const ShardNodeOptions& options) {
  ATTEST_RETURN_IF_ERROR(CheckNodeId(options.node_id));
  if (options.batch_messages == 0) return Status::InvalidArgument("batch_messages must be at least 1");
  ATTEST_ASSIGN_OR_RETURN(auto map, ShardMap::Open(ShardMapOptions{options.servers, options.bucket, options.timeout_ms}));
  ATTEST_ASSIGN_OR_RETURN(ClusterConfig config, map->Config());
  ATTEST_ASSIGN_OR_RETURN(auto conn, NatsConnection::Connect(options.servers, options.timeout_ms));
  auto node = std::make_unique<NatsShardNode>(engine, options, std::move(conn), std::move(map), config);
  ATTEST_RETURN_IF_ERROR(node->Init());
  return std::unique_ptr<ShardNode>(std::move(node));
}

}  // namespace attest
