// The replicated change log (src/cluster/change_log.h) against a real three-server NATS cluster with
// JetStream on loopback (Debian's nats-server, started by the test on free ports): a write is
// acknowledged with its sequence, a retry with the same idempotency key is a duplicate of it, an
// older source version never replaces a newer one, the stream keeps one message per document, and
// with one server killed (kill -9) writes are still acknowledged by the other two.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <thread>

#include "cluster/change_log.h"
#include "support/nats_cluster.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::kNatsServer;
using testing_support::NatsCluster;
using testing_support::TempDir;

class ChangeLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kNatsServer, X_OK) != 0) GTEST_SKIP() << kNatsServer << " is absent (scripts/bootstrap installs it)";
    cluster_ = std::make_unique<NatsCluster>(dir_);
    ChangeLogOptions o;
    o.servers = cluster_->urls();
    o.timeout_ms = 3000;
    // The cluster elects its JetStream leader within seconds of starting.
    Status ensured = Status::Unavailable("not tried");
    for (int attempt = 0; attempt < 60 && !ensured.ok(); ++attempt) {
      auto log = ChangeLog::Open(o);
      if (log.ok()) {
        ensured = (*log)->EnsureStream();
        if (ensured.ok()) log_ = std::move(log).value();
      }
      if (!ensured.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    ASSERT_TRUE(ensured.ok()) << ensured.ToString();
  }

  static DocumentChange Change(const std::string& id, uint64_t version, const std::string& key) {
    DocumentChange c;
    c.tenant = "acme";
    c.id = id;
    c.source_version = version;
    c.idempotency_key = key;
    c.payload = R"({"id":")" + id + R"(","v":)" + std::to_string(version) + "}";
    return c;
  }

  TempDir dir_;
  std::unique_ptr<NatsCluster> cluster_;
  std::unique_ptr<ChangeLog> log_;
};

TEST_F(ChangeLogTest, AcknowledgesDeduplicatesOrdersAndCompacts) {
  auto a = log_->Append(Change("docs/a.md", 1, "k1"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_GT(a->sequence, 0u);
  EXPECT_FALSE(a->duplicate);
  // A retry with the same key is the same write.
  auto again = log_->Append(Change("docs/a.md", 1, "k1"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->sequence, a->sequence);
  // A newer version replaces it; an older one is refused and writes nothing.
  auto newer = log_->Append(Change("docs/a.md", 3, "k2"));
  ASSERT_TRUE(newer.ok()) << newer.status().ToString();
  EXPECT_GT(newer->sequence, a->sequence);
  auto older = log_->Append(Change("docs/a.md", 2, "k3"));
  ASSERT_FALSE(older.ok());
  EXPECT_EQ(older.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(older.status().message().find("stale"), std::string::npos) << older.status().ToString();
  // Ids with dots, spaces and wildcards are subjects too.
  auto odd = log_->Append(Change("a.b *>/ c", 1, "k4"));
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  // One message per document: the stream is a compacted log.
  auto state = log_->StreamState();
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->messages, 2u);
  EXPECT_EQ(state->last_sequence, odd->sequence);
}

TEST_F(ChangeLogTest, WritesAreAcknowledgedWithOneServerKilled) {
  ASSERT_TRUE(log_->Append(Change("before", 1, "b1")).ok());
  cluster_->Kill(2);
  int acknowledged = 0;
  for (int i = 0; i < 20; ++i) {
    // While the cluster notices the loss, a publish may time out; its retry (same key) is safe.
    for (int attempt = 0; attempt < 10; ++attempt) {
      auto r = log_->Append(Change("after-" + std::to_string(i), 1, "a" + std::to_string(i)));
      if (r.ok()) {
        ++acknowledged;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  EXPECT_EQ(acknowledged, 20);
  auto state = log_->StreamState();
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->messages, 21u);  // no write lost, none doubled
}

TEST(ChangeLogSubjects, AreValidTokensAndStable) {
  const std::string s = ChangeSubject("acme", "a.b *>", 64);
  EXPECT_EQ(s.rfind("attest.doc.", 0), 0u);
  EXPECT_EQ(s.find_first_of(" *>", 11), std::string::npos);
  EXPECT_EQ(s, ChangeSubject("acme", "a.b *>", 64));
  EXPECT_NE(s, ChangeSubject("other", "a.b *>", 64));
  EXPECT_LT(VirtualShardOf("acme", "x", 64), 64u);
  EXPECT_EQ(ChangeSubject("", "x", 1), "attest.doc.0._.78");
}

}  // namespace
}  // namespace attest
