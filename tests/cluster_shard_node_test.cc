// Shard nodes (src/cluster/shard_node.h) against a real three-server NATS cluster on loopback:
// two nodes consuming the change log reach, together, exactly the documents a single-process store
// holds after the same writes (same ids and texts); a node restarted on its data directory resumes
// after its committed positions without losing or repeating anything; moving a virtual shard makes
// the gaining node replay it and the losing node drop it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>
#include <set>

#include "attest/engine.h"
#include "cluster/change_codec.h"
#include "cluster/change_log.h"
#include "cluster/nats_connection.h"
#include "cluster/shard_map.h"
#include "cluster/shard_node.h"
#include "support/nats_cluster.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::NatsCluster;
using testing_support::RetryFor;
using testing_support::TempDir;

constexpr uint32_t kShards = 64;

EngineOptions Options(const std::string& dir) {
  EngineOptions o;
  o.data_dir = dir;
  o.embedder.kind = EmbedderKind::kNone;
  o.threads = 1;
  return o;
}

// tenant/id -> text of every live document of `tenants`.
std::map<std::string, std::string> Contents(const Engine& e, const std::vector<std::string>& tenants) {
  std::map<std::string, std::string> out;
  for (const std::string& t : tenants) {
    ListDocumentsOptions lo;
    lo.tenant = t;
    lo.limit = 1000;
    auto page = e.ListDocuments(lo);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) continue;
    for (const auto& d : page->documents) {
      SearchFilter admin;
      admin.tenant = t;
      auto doc = e.GetDocument(admin, d.id);
      EXPECT_TRUE(doc.ok()) << doc.status().ToString();
      out[t + "/" + d.id] = doc.ok() ? doc->title + "\n" + doc->text : "?";
    }
  }
  return out;
}

class ShardNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::NatsServerAvailable()) {
      GTEST_SKIP() << testing_support::kNatsServer << " is absent (scripts/bootstrap installs it)";
    }
    cluster_ = std::make_unique<NatsCluster>(dir_);
    ChangeLogOptions lo;
    lo.servers = cluster_->urls();
    lo.vshards = kShards;
    lo.timeout_ms = 3000;
    ASSERT_TRUE(RetryFor(20, [&] {
      auto log = ChangeLog::Open(lo);
      if (!log.ok() || !(*log)->EnsureStream().ok()) return false;
      log_ = std::move(log).value();
      return true;
    })) << "the NATS cluster did not elect a JetStream leader";
    ClusterConfig config;
    config.vshards = kShards;
    ASSERT_TRUE(RetryFor(10, [&] {
      auto map = ShardMap::Init(ShardMapOptions{cluster_->urls()}, config, {"a", "b"});
      if (!map.ok()) return false;
      map_ = std::move(map).value();
      return true;
    }));
    reference_ = Engine::Open(Options(dir_.str("reference"))).value();
  }

  // Appends an upsert (or delete) to the log and applies the same write to the reference store.
  void Put(const DocumentSpec& d, uint64_t version) {
    DocumentChange c;
    c.tenant = d.tenant;
    c.id = d.id;
    c.source_version = version;
    c.idempotency_key = d.tenant + "/" + d.id + "@" + std::to_string(version);
    c.payload = EncodeUpsert(d);
    // With a server just killed the stream may take a few seconds to answer: retry (same key).
    Status last;
    ASSERT_TRUE(RetryFor(20, [&] {
      auto ack = log_->Append(c);
      last = ack.status();
      return ack.ok();
    })) << last.ToString();
    ASSERT_TRUE(reference_->PutDocuments({d}).ok());
  }
  void Remove(const std::string& tenant, const std::string& id, uint64_t version) {
    DocumentChange c;
    c.kind = DocumentChange::Kind::kDelete;
    c.tenant = tenant;
    c.id = id;
    c.source_version = version;
    c.idempotency_key = tenant + "/" + id + "@" + std::to_string(version);
    c.payload = EncodeDelete(tenant, id);
    ASSERT_TRUE(log_->Append(c).ok());
    ASSERT_TRUE(reference_->Delete(tenant, id).ok());
  }

  std::unique_ptr<ShardNode> StartNode(Engine& engine, const std::string& id) {
    ShardNodeOptions o;
    o.servers = cluster_->urls();
    o.node_id = id;
    o.advertised_url = "http://127.0.0.1:1/" + id;
    o.batch_messages = 16;
    auto node = ShardNode::Start(engine, o);
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? std::move(node).value() : nullptr;
  }

  // Steps every node until all are idle twice in a row.
  static void Drain(const std::vector<ShardNode*>& nodes) {
    int idle = 0;
    for (int round = 0; round < 2000 && idle < 2; ++round) {
      size_t took = 0;
      for (ShardNode* n : nodes) {
        auto r = n->Step();
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        took += *r;
      }
      idle = took == 0 ? idle + 1 : 0;
    }
    ASSERT_EQ(idle, 2) << "the nodes did not catch up";
  }

  static DocumentSpec Doc(int i, const std::string& tenant, const std::string& extra = "") {
    DocumentSpec d;
    d.id = "doc-" + std::to_string(i) + ".md";
    d.tenant = tenant;
    d.title = "Document " + std::to_string(i);
    d.content_type = "markdown";
    d.text = "# Part " + std::to_string(i) + "\n\nRivers and mountains number " + std::to_string(i * 7) + ". " + extra;
    d.acl_groups = i % 3 == 0 ? std::vector<std::string>{"eng"} : std::vector<std::string>{};
    return d;
  }

  TempDir dir_;
  std::unique_ptr<NatsCluster> cluster_;
  std::unique_ptr<ChangeLog> log_;
  std::unique_ptr<ShardMap> map_;
  std::unique_ptr<Engine> reference_;
};

TEST_F(ShardNodeTest, TwoNodesHoldExactlyTheSingleProcessDocuments) {
  for (int i = 0; i < 60; ++i) Put(Doc(i, i % 2 ? "acme" : ""), 1);
  for (int i = 0; i < 60; i += 5) Put(Doc(i, i % 2 ? "acme" : "", "Revised."), 2);  // replaced
  for (int i = 1; i < 60; i += 7) Remove(i % 2 ? "acme" : "", Doc(i, "").id, 3);     // deleted
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto na = StartNode(*ea, "a");
  auto nb = StartNode(*eb, "b");
  ASSERT_TRUE(na && nb);
  EXPECT_EQ(na->owned().size() + nb->owned().size(), kShards);
  Drain({na.get(), nb.get()});
  const std::vector<std::string> tenants{"", "acme"};
  std::map<std::string, std::string> merged = Contents(*ea, tenants);
  const auto from_b = Contents(*eb, tenants);
  for (const auto& [k, v] : from_b) EXPECT_TRUE(merged.emplace(k, v).second) << k << " is on both nodes";
  EXPECT_EQ(merged, Contents(*reference_, tenants));
  EXPECT_GT(merged.size(), 40u);
  // Every document sits on the node that owns its shard.
  for (const auto& [k, v] : from_b) {
    const auto slash = k.find('/');
    EXPECT_TRUE(nb->owned().contains(VirtualShardOf(k.substr(0, slash), k.substr(slash + 1), kShards))) << k;
  }
  auto lag = na->Lag();
  ASSERT_TRUE(lag.ok()) << lag.status().ToString();
  for (const VShardLag& l : *lag) EXPECT_EQ(l.pending + l.unacknowledged, 0u) << "vshard " << l.vshard;
  // What health reports (no request to NATS): the same shards, caught up as of the last fetch.
  const std::vector<VShardLag> seen = na->LagAsOfLastFetch();
  EXPECT_EQ(seen.size(), lag->size());
  for (const VShardLag& l : seen) {
    EXPECT_EQ(l.pending, 0u) << "vshard " << l.vshard;
    EXPECT_FALSE(l.stalled);
  }
}

TEST_F(ShardNodeTest, ARestartedNodeResumesWithoutLossOrDuplication) {
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto nb = StartNode(*eb, "b");
  for (int i = 0; i < 30; ++i) Put(Doc(i, ""), 1);
  {
    auto na = StartNode(*ea, "a");
    ASSERT_TRUE(na);
    Drain({na.get(), nb.get()});
  }
  const auto positions_before = ea->LogPositions();
  // Node a is down while the log moves on.
  for (int i = 30; i < 50; ++i) Put(Doc(i, ""), 1);
  for (int i = 0; i < 10; ++i) Put(Doc(i, "", "Second version."), 2);
  ea.reset();
  ea = Engine::Open(Options(dir_.str("a"))).value();
  EXPECT_EQ(ea->LogPositions(), positions_before);
  auto na = StartNode(*ea, "a");
  ASSERT_TRUE(na);
  Drain({na.get(), nb.get()});
  std::map<std::string, std::string> merged = Contents(*ea, {""});
  for (const auto& [k, v] : Contents(*eb, {""})) EXPECT_TRUE(merged.emplace(k, v).second) << k;
  EXPECT_EQ(merged, Contents(*reference_, {""}));
  EXPECT_EQ(na->counters().rejected, 0u);
  for (ShardNode* n : {na.get(), nb.get()}) {
    auto lag = n->Lag();
    ASSERT_TRUE(lag.ok()) << lag.status().ToString();
    for (const VShardLag& l : *lag) EXPECT_EQ(l.pending + l.unacknowledged, 0u) << "vshard " << l.vshard << " position " << l.position << " pending " << l.pending << " unacked " << l.unacknowledged;
  }
}

// The catalog wins over the consumer: a node whose data directory is lost (its consumers remember
// positions its empty catalog does not have) rebuilds its shards from the compacted log.
TEST_F(ShardNodeTest, ANodeWithALostStoreRebuildsItsShardsFromTheLog) {
  for (int i = 0; i < 40; ++i) Put(Doc(i, "acme"), 1);
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto nb = StartNode(*eb, "b");
  {
    auto na = StartNode(*ea, "a");
    Drain({na.get(), nb.get()});
  }
  ASSERT_FALSE(Contents(*ea, {"acme"}).empty());
  ea.reset();
  std::filesystem::remove_all(dir_.path() / "a");
  for (int i = 40; i < 50; ++i) Put(Doc(i, "acme"), 1);
  ea = Engine::Open(Options(dir_.str("a"))).value();
  auto na = StartNode(*ea, "a");
  Drain({na.get(), nb.get()});
  std::map<std::string, std::string> merged = Contents(*ea, {"acme"});
  for (const auto& [k, v] : Contents(*eb, {"acme"})) EXPECT_TRUE(merged.emplace(k, v).second) << k;
  EXPECT_EQ(merged, Contents(*reference_, {"acme"}));
  EXPECT_EQ(merged.size(), 50u);
}

// One NATS server killed (SIGKILL) while the nodes run and the log is written: writes are still
// acknowledged; shards whose consumer lived on that server stall while the others go on; once the
// server is back the stalled shards are re-read from the catalog's positions and the nodes reach the
// reference.
TEST_F(ShardNodeTest, NodesCatchUpWithOneNatsServerKilled) {
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto na = StartNode(*ea, "a");
  auto nb = StartNode(*eb, "b");
  ASSERT_TRUE(na && nb);
  std::atomic<bool> stop{false};
  std::thread ta([&] { (void)na->Run(stop); });
  std::thread tb([&] { (void)nb->Run(stop); });
  for (int i = 0; i < 60; ++i) {
    if (i == 20) cluster_->Kill(0);
    Put(Doc(i, ""), 1);
  }
  cluster_->Restart(0);
  const bool equal = RetryFor(45, [&] {
    std::map<std::string, std::string> merged = Contents(*ea, {""});
    for (const auto& [k, v] : Contents(*eb, {""})) merged.emplace(k, v);
    return merged == Contents(*reference_, {""});
  });
  stop = true;
  ta.join();
  tb.join();
  EXPECT_TRUE(equal) << "the nodes did not reach the reference with one server down";
}

// A delivery the node never receives (its reply lost with a killed server or a broken connection)
// leaves the consumer waiting for an acknowledgement with nothing new pending; the server would
// redeliver it only to a later pull, after the acknowledgement wait. The node notices that the
// consumer delivered more than it received and re-reads the shard from its committed position at
// once. Here another client takes the delivery (bound to the node's consumer, never acknowledging)
// and the acknowledgement wait is longer than the test.
TEST_F(ShardNodeTest, ADeliveryThatNeverReachedTheNodeIsReadAgainAtOnce) {
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto na = StartNode(*ea, "a");
  auto nb = StartNode(*eb, "b");
  ASSERT_TRUE(na && nb);
  const DocumentSpec d = Doc(7, "");
  const uint32_t v = VirtualShardOf("", d.id, kShards);
  const std::string owner = map_->Assignments().value().at(v).node;
  Put(d, 1);
  auto conn = NatsConnection::Connect(cluster_->urls(), 3000).value();
  jsSubOptions so;
  jsSubOptions_Init(&so);
  const std::string stream = ChangeLogOptions{}.stream;
  so.Stream = stream.c_str();
  const std::string consumer = ConsumerName(owner, v);
  so.Consumer = consumer.c_str();
  so.ManualAck = true;
  so.Config.Replicas = 1;
  so.Config.MemoryStorage = true;
  natsSubscription* thief = nullptr;
  jsErrCode jerr = jsErrCode(0);
  const std::string filter = "attest.doc." + std::to_string(v) + ".>";
  ASSERT_EQ(js_PullSubscribe(&thief, conn->js(), filter.c_str(), consumer.c_str(), nullptr, &so, &jerr), NATS_OK)
      << int(jerr);
  natsMsgList list{};
  ASSERT_EQ(natsSubscription_Fetch(&list, thief, 1, 2000, &jerr), NATS_OK);
  ASSERT_EQ(list.Count, 1);
  natsMsgList_Destroy(&list);  // taken and never acknowledged
  natsSubscription_Destroy(thief);
  Drain({na.get(), nb.get()});
  Engine& holder = owner == "a" ? *ea : *eb;
  SearchFilter admin;
  auto got = holder.GetDocument(admin, d.id);
  ASSERT_TRUE(got.ok()) << "the document whose delivery was lost was not applied: " << got.status().ToString();
  EXPECT_EQ(got->text, reference_->GetDocument(admin, d.id).value().text);
}

TEST_F(ShardNodeTest, MovingAShardReplaysItOnTheGainingNodeAndDropsItOnTheLosingOne) {
  for (int i = 0; i < 40; ++i) Put(Doc(i, "acme"), 1);
  auto ea = Engine::Open(Options(dir_.str("a"))).value();
  auto eb = Engine::Open(Options(dir_.str("b"))).value();
  auto na = StartNode(*ea, "a");
  auto nb = StartNode(*eb, "b");
  Drain({na.get(), nb.get()});
  // A shard of a's that holds documents.
  std::map<uint32_t, int> count;
  for (const auto& [k, v] : Contents(*ea, {"acme"})) count[VirtualShardOf("acme", k.substr(5), kShards)]++;
  ASSERT_FALSE(count.empty());
  const uint32_t moved = count.begin()->first;
  auto assignments = map_->Assignments().value();
  ASSERT_EQ(assignments.at(moved).node, "a");
  auto rev = map_->Assign(moved, "b", assignments.at(moved).revision);
  ASSERT_TRUE(rev.ok()) << rev.status().ToString();
  // A second move from the same revision is a conflict (compare-and-set).
  EXPECT_EQ(map_->Assign(moved, "a", assignments.at(moved).revision).status().code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(RetryFor(10, [&] {
    (void)na->Step();
    (void)nb->Step();
    return !na->owned().contains(moved) && nb->owned().contains(moved);
  }));
  Drain({na.get(), nb.get()});
  EXPECT_FALSE(ea->LogPositions().contains(moved));
  EXPECT_TRUE(eb->LogPositions().contains(moved));
  for (const auto& [k, v] : Contents(*ea, {"acme"})) {
    EXPECT_NE(VirtualShardOf("acme", k.substr(5), kShards), moved) << k << " stayed on the losing node";
  }
  std::map<std::string, std::string> merged = Contents(*ea, {"acme"});
  for (const auto& [k, v] : Contents(*eb, {"acme"})) EXPECT_TRUE(merged.emplace(k, v).second) << k;
  EXPECT_EQ(merged, Contents(*reference_, {"acme"}));
  EXPECT_EQ(na->counters().lost, 1u);
}

}  // namespace
}  // namespace attest
