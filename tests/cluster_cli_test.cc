// Black-box tests of `attest cluster init|status|add-node|move-shard` and `attest node` (the real
// binary) on a loopback three-server NATS cluster: two node processes apply the change log while it
// is written; one is killed with SIGKILL mid-ingestion and restarted; afterwards the two stores hold
// exactly what a single-process store holds after the same writes (no write lost, none doubled).
// Then a virtual shard is moved with the CLI: the gaining node replays it, the losing node drops it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "attest/engine.h"
#include "cluster/change_codec.h"
#include "cluster/change_log.h"
#include "support/nats_cluster.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::ChildProcess;
using testing_support::NatsCluster;
using testing_support::RetryFor;
using testing_support::RunAttest;
using testing_support::TempDir;

constexpr uint32_t kShards = 64;

EngineOptions Options(const std::string& dir, bool read_only) {
  EngineOptions o;
  o.data_dir = dir;
  o.read_only = read_only;
  o.embedder.kind = EmbedderKind::kNone;
  o.threads = 1;
  return o;
}

std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  auto e = Engine::Open(Options(dir, /*read_only=*/true));
  if (!e.ok()) return out;  // no store yet
  ListDocumentsOptions lo;
  lo.limit = 1000;
  auto page = (*e)->ListDocuments(lo);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  if (!page.ok()) return out;
  for (const auto& d : page->documents) {
    auto doc = (*e)->GetDocument(SearchFilter{}, d.id);
    out[d.id] = doc.ok() ? doc->text : "?";
  }
  return out;
}

class ClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::NatsServerAvailable()) {
      GTEST_SKIP() << testing_support::kNatsServer << " is absent (scripts/bootstrap installs it)";
    }
    setenv("ATTEST_CLUSTER_CREDENTIAL", "cluster-cli-test-credential-0123", 1);  // nodes need one
    cluster_ = std::make_unique<NatsCluster>(dir_);
    nats_ = cluster_->urls_csv();
    testing_support::ProcessResult init;
    ASSERT_TRUE(RetryFor(20, [&] {
      init = RunAttest({"cluster", "init", "--nats", nats_, "--vshards", "64", "--replicas", "3", "--nodes", "a,b"});
      return init.exit_code == 0;
    })) << init.err;
    EXPECT_NE(init.out.find("64 virtual shards over 2 node(s)"), std::string::npos) << init.out;
    // A second init is refused: the map exists.
    // (A loaded machine can time a JetStream request out: asked again until the answer is not a timeout.)
    testing_support::ProcessResult again;
    RetryFor(20, [&] {
      again = RunAttest({"cluster", "init", "--nats", nats_, "--nodes", "a,b"});
      return again.err.find("Timeout") == std::string::npos;
    });
    EXPECT_NE(again.exit_code, 0);
    EXPECT_NE(again.err.find("already"), std::string::npos) << again.err;
    ChangeLogOptions lo;
    lo.servers = cluster_->urls();
    lo.vshards = kShards;
    log_ = ChangeLog::Open(lo).value();
    reference_ = Engine::Open(Options(dir_.str("reference"), false)).value();
  }

  std::unique_ptr<ChildProcess> StartNode(const std::string& id) {
    return std::make_unique<ChildProcess>(std::vector<std::string>{
        ATTEST_BINARY, "--data", dir_.str(id), "--embedder", "none", "node", "--nats", nats_, "--node-id", id,
        "--listen", "127.0.0.1:" + std::to_string(testing_support::FreeLoopbackPort()), "--batch-messages", "8"});
  }

  void Put(int i, int version) {
    DocumentSpec d;
    d.id = "doc-" + std::to_string(i);
    d.title = "Document " + std::to_string(i);
    d.text = "Version " + std::to_string(version) + " of document " + std::to_string(i) + " about rivers.";
    DocumentChange c;
    c.id = d.id;
    c.source_version = uint64_t(version);
    c.idempotency_key = d.id + "@" + std::to_string(version);
    c.payload = EncodeUpsert(d);
    auto ack = log_->Append(c);
    ASSERT_TRUE(ack.ok()) << ack.status().ToString();
    ASSERT_TRUE(reference_->PutDocuments({d}).ok());
  }

  nlohmann::json Status() {
    testing_support::ProcessResult st;
    RetryFor(20, [&] {  // a JetStream request may time out on a loaded machine: asked again
      st = RunAttest({"cluster", "status", "--nats", nats_, "--json"});
      return st.exit_code == 0 || st.err.find("Timeout") == std::string::npos;
    });
    EXPECT_EQ(st.exit_code, 0) << st.err;
    auto j = nlohmann::json::parse(st.out, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
  }

  // Every shard consumed by its owner with nothing pending or unacknowledged.
  bool CaughtUp() {
    nlohmann::json j = Status();
    if (!j.contains("shards")) return false;
    for (const auto& s : j["shards"]) {
      if (!s["consuming"].get<bool>() || s["pending"].get<uint64_t>() + s["unacknowledged"].get<uint64_t>() > 0) {
        return false;
      }
    }
    return true;
  }

  std::map<std::string, std::string> Merged(bool* disjoint) {
    auto merged = Contents(dir_.str("a"));
    *disjoint = true;
    for (const auto& [k, v] : Contents(dir_.str("b"))) *disjoint = merged.emplace(k, v).second && *disjoint;
    return merged;
  }

  TempDir dir_;
  std::unique_ptr<NatsCluster> cluster_;
  std::string nats_;
  std::unique_ptr<ChangeLog> log_;
  std::unique_ptr<Engine> reference_;
};

TEST_F(ClusterCliTest, NodesSurviveSigkillAndMoveShard) {
  auto a = StartNode("a");
  auto b = StartNode("b");
  for (int i = 0; i < 150; ++i) {
    Put(i, 1);
    if (i == 60) {  // mid-ingestion (while it applies what arrived): kill node a, keep writing, bring it back
      a->Kill(SIGKILL);
      a->Wait();
    }
    if (i == 110) a = StartNode("a");
  }
  for (int i = 0; i < 150; i += 4) Put(i, 2);
  ASSERT_TRUE(RetryFor(45, [&] { return CaughtUp(); })) << Status().dump(2);
  bool disjoint = false;
  auto merged = Merged(&disjoint);
  EXPECT_TRUE(disjoint) << "a document is on both nodes";
  EXPECT_EQ(merged, Contents(dir_.str("reference")));
  EXPECT_EQ(merged.size(), 150u);

  nlohmann::json st = Status();
  ASSERT_EQ(st["nodes"].size(), 2u) << st.dump(2);
  for (const auto& n : st["nodes"]) {
    EXPECT_EQ(n["vshards"].get<int>(), 32) << n.dump();
    EXPECT_NE(n["url"].get<std::string>().find("http://127.0.0.1:"), std::string::npos) << n.dump();
    EXPECT_GT(n["heartbeat_unix_ms"].get<int64_t>(), 0);
  }
  // The text form names the stream and both nodes.
  auto text = RunAttest({"cluster", "status", "--nats", nats_});
  EXPECT_NE(text.out.find("stream ATTEST_DOCS: 3 replicas"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("node a"), std::string::npos) << text.out;

  // Move a shard of a's that holds documents to b.
  uint32_t moved = kShards;
  for (const auto& [id, text] : Contents(dir_.str("a"))) {
    moved = std::min(moved, VirtualShardOf("", id, kShards));
  }
  ASSERT_LT(moved, kShards);
  EXPECT_EQ(RunAttest({"cluster", "move-shard", std::to_string(moved), "--nats", nats_, "--to", "nobody"}).exit_code, 2);
  auto mv = RunAttest({"cluster", "move-shard", std::to_string(moved), "--nats", nats_, "--to", "b"});
  ASSERT_EQ(mv.exit_code, 0) << mv.err;
  EXPECT_NE(mv.out.find("moved from a to b"), std::string::npos) << mv.out;
  ASSERT_TRUE(RetryFor(30, [&] {
    if (!CaughtUp()) return false;
    for (const auto& [id, text] : Contents(dir_.str("a"))) {
      if (VirtualShardOf("", id, kShards) == moved) return false;
    }
    return true;
  })) << Status().dump(2);
  merged = Merged(&disjoint);
  EXPECT_TRUE(disjoint);
  EXPECT_EQ(merged, Contents(dir_.str("reference")));
  st = Status();
  EXPECT_EQ(st["shards"][moved]["node"], "b");

  // add-node --rebalance registers c and moves it a fair share; a second time is refused.
  auto added = RunAttest({"cluster", "add-node", "c", "--nats", nats_, "--rebalance"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("given 21 virtual shard(s)"), std::string::npos) << added.out;
  EXPECT_NE(RunAttest({"cluster", "add-node", "c", "--nats", nats_}).exit_code, 0);
  auto c = StartNode("c");
  ASSERT_TRUE(RetryFor(30, [&] { return CaughtUp(); })) << Status().dump(2);
  st = Status();
  ASSERT_EQ(st["nodes"].size(), 3u);
  for (const auto& n : st["nodes"]) EXPECT_GE(n["vshards"].get<int>(), 21) << n.dump();
  ASSERT_TRUE(RetryFor(20, [&] {
    bool d = false;
    auto m = Merged(&d);
    for (const auto& [k, v] : Contents(dir_.str("c"))) d = m.emplace(k, v).second && d;
    return d && m == Contents(dir_.str("reference"));
  })) << "the three nodes do not hold the reference's documents exactly once";

  a->Kill(SIGTERM);
  EXPECT_EQ(a->Wait(), 0);
  a->Poll();
  EXPECT_NE(a->out().find("stopped:"), std::string::npos) << a->out();
}

TEST_F(ClusterCliTest, IngestAppendsFilesAndReportsFormatsItCannotCarry) {
  std::filesystem::create_directories(dir_.path() / "docs" / "sub");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() / "docs" / name) << text;
  };
  write("a.md", "# Rivers\n\nRivers flow to the sea.\n");
  write("sub/b.html", "<html><head><title>Mountains</title></head><body><p>Mountains are high.</p></body></html>");
  write("c.txt", "Lakes are still water.\n");
  write("d.jsonl", R"({"_id":"x","title":"t","text":"beir line"})" "\n");
  const std::string docs = dir_.str("docs");
  auto r = RunAttest({"ingest", docs, "--cluster", nats_, "--print-acks", "--tenant", "acme", "--acl", "eng"});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // partial: the JSONL file is named, not dropped
  EXPECT_NE(r.err.find("d.jsonl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be carried"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("ack a.md "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ack sub/b.html "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("appended 3 documents from 4 files"), std::string::npos) << r.out;
  // The same files again: the log already holds these writes.
  auto again = RunAttest({"ingest", docs, "--cluster", nats_, "--tenant", "acme", "--acl", "eng", "--json"});
  auto j = nlohmann::json::parse(again.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << again.out << again.err;
  EXPECT_EQ(j["appended"], 0);
  EXPECT_EQ(j["duplicates"], 3);
  // A bad label is refused before anything is appended.
  EXPECT_EQ(RunAttest({"ingest", docs, "--cluster", nats_, "--label", "top-secret"}).exit_code, 2);
  // The nodes apply them: tenant, ACL and texts as given.
  auto a = StartNode("a");
  auto b = StartNode("b");
  ASSERT_TRUE(RetryFor(30, [&] { return CaughtUp(); })) << Status().dump(2);
  std::map<std::string, std::string> texts;
  for (const std::string& node : {"a", "b"}) {
    auto e = Engine::Open(Options(dir_.str(node), /*read_only=*/true));
    if (!e.ok()) continue;
    ListDocumentsOptions lo;
    lo.tenant = "acme";
    auto page = (*e)->ListDocuments(lo);
    ASSERT_TRUE(page.ok());
    for (const auto& d : page->documents) {
      EXPECT_EQ(d.acl_groups, std::vector<std::string>{"eng"});
      SearchFilter admin;
      admin.tenant = "acme";
      auto doc = (*e)->GetDocument(admin, d.id);
      texts[d.id] = doc.ok() ? doc->text : "?";
    }
  }
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_NE(texts["a.md"].find("Rivers flow to the sea."), std::string::npos);
  EXPECT_NE(texts["sub/b.html"].find("Mountains are high."), std::string::npos);
  EXPECT_NE(texts["c.txt"].find("Lakes are still water."), std::string::npos);
}

TEST_F(ClusterCliTest, CommandsRefuseBadArguments) {
  EXPECT_EQ(RunAttest({"cluster", "init", "--nats", nats_, "--vshards", "8", "--nodes", "x"}).exit_code, 2);
  auto bad_node = RunAttest({"--data", dir_.str("n"), "node", "--nats", nats_, "--node-id", "a.b", "--listen", "127.0.0.1:1"});
  EXPECT_EQ(bad_node.exit_code, 2) << bad_node.err;
  EXPECT_NE(bad_node.err.find("node id"), std::string::npos) << bad_node.err;
  EXPECT_EQ(RunAttest({"cluster", "move-shard", "999", "--nats", nats_, "--to", "a"}).exit_code, 2);
}

}  // namespace
}  // namespace attest
