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
#include "support/process.h"

namespace attest {
namespace {

using testing_support::ChildProcess;
using testing_support::TempDir;

const char* kNatsServer = "/usr/sbin/nats-server";

uint16_t FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Three nats-server processes with JetStream, routed to each other, on 127.0.0.1.
class NatsCluster {
 public:
  explicit NatsCluster(const TempDir& dir) {
    for (int i = 0; i < 3; ++i) {
      client_[i] = FreePort();
      route_[i] = FreePort();
    }
    for (int i = 0; i < 3; ++i) {
      const std::string conf = dir.str("n" + std::to_string(i) + ".conf");
      std::ofstream out(conf);
      out << "server_name: n" << i << "\nlisten: 127.0.0.1:" << client_[i] << "\njetstream { store_dir: \""
          << dir.str("store" + std::to_string(i)) << "\" }\ncluster {\n  name: attest\n  listen: 127.0.0.1:" << route_[i]
          << "\n  routes: [";
      for (int j = 0; j < 3; ++j) out << (j ? ", " : "") << "nats-route://127.0.0.1:" << route_[j];
      out << "]\n}\n";
      out.close();
      servers_[i] = std::make_unique<ChildProcess>(std::vector<std::string>{kNatsServer, "-c", conf});
    }
  }
  std::vector<std::string> urls() const {
    std::vector<std::string> out;
    for (uint16_t p : client_) out.push_back("nats://127.0.0.1:" + std::to_string(p));
    return out;
  }
  void Kill(int i) {
    servers_[i]->Kill(SIGKILL);
    servers_[i]->Wait();
  }

 private:
  uint16_t client_[3], route_[3];
  std::unique_ptr<ChildProcess> servers_[3];
};

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
