// A full disk: the data directory lives on a small tmpfs that the test fills. Ingestion must fail
// with an error that names the full disk, lose nothing acknowledged before, leave the store
// readable, and work again once space is freed; through the server a write gets 503 storage_full.
// Mounting a tmpfs needs root (CAP_SYS_ADMIN); without it every test here is skipped, saying so.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/crash_corpus.h"
#include "support/crash_oracle.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing_support::CrashCorpus;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::RunAttest;
using testing_support::TempDir;

class DiskFull : public ::testing::Test {
 protected:
  void SetUp() override {
    mnt_ = tmp_.path() / "mnt";
    fs::create_directories(mnt_);
    if (::mount("tmpfs", mnt_.c_str(), "tmpfs", 0, "size=4m") != 0) {
      GTEST_SKIP() << "needs root (CAP_SYS_ADMIN) to mount a 4 MiB tmpfs for the data directory; mount(2) said: "
                   << std::strerror(errno) << ". Nothing about a full disk was tested.";
    }
    mounted_ = true;
    data_ = (mnt_ / "data").string();
  }
  void TearDown() override {
    if (mounted_) ::umount2(mnt_.c_str(), MNT_DETACH);
  }

  // Fills the tmpfs to the last byte; returns the bytes written.
  uint64_t Fill() {
    const fs::path filler = mnt_ / "filler";
    FILE* f = std::fopen(filler.c_str(), "ab");
    EXPECT_NE(f, nullptr);
    if (!f) return 0;
    std::setvbuf(f, nullptr, _IONBF, 0);
    std::string block(4096, 'x');
    uint64_t total = 0;
    while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) total += block.size();
    std::fclose(f);
    return total;
  }
  void Free() { fs::remove(mnt_ / "filler"); }

  // Documents [from, to) of the crash corpus at version 1, as a JSONL file outside the tmpfs.
  std::string Corpus(int from, int to) {
    const std::string path = tmp_.str("corpus-" + std::to_string(from) + ".jsonl");
    std::ofstream out(path);
    for (int i = from; i < to; ++i) {
      const std::string line = CrashCorpus::JsonlLine(i, 1);
      out << line << "\n";
      ledger_.Sent(CrashCorpus::Id(i), CrashCorpus::Token(i), 1, oracle_.FromJsonlLine(line));
    }
    return path;
  }
  void Acknowledge(const std::string& out) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("ack ", 0) == 0) ledger_.Acknowledged(line.substr(4), 1);
    }
  }
  // The search CLI finds document `doc` (read-only open).
  void ExpectFound(int doc) {
    auto r = RunAttest({"--data", data_, "search", "--json", "--mode", "bm25", CrashCorpus::Token(doc)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"" + CrashCorpus::Id(doc) + "\""), std::string::npos) << r.out;
  }
  void ExpectIntact() {
    testing_support::StoreCheckArgs a;
    a.data_dir = data_;
    a.ledger = &ledger_;
    a.oracle = &oracle_;
    auto c = testing_support::CheckReopenedStore(a);
    EXPECT_EQ(c.lost, 0u);
    for (const auto& f : c.failures) ADD_FAILURE() << f;
  }

  TempDir tmp_;
  fs::path mnt_;
  std::string data_;
  bool mounted_ = false;
  testing_support::CrashOracle oracle_;
  testing_support::DocumentLedger ledger_;
};

TEST_F(DiskFull, IngestOnFullDiskFailsNamingNoSpaceAndLosesNothing) {
  auto first = RunAttest({"--data", data_, "--embedder", "none", "ingest", Corpus(0, 60), "--print-acks"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Acknowledge(first.out);
  ASSERT_EQ(ledger_.acknowledged.size(), 60u);
  ASSERT_GT(Fill(), 0u);

  auto full = RunAttest({"--data", data_, "--embedder", "none", "ingest", Corpus(60, 120), "--print-acks"});
  EXPECT_NE(full.exit_code, 0);
  EXPECT_NE(full.err.find("is full (no space left on device, ENOSPC)"), std::string::npos) << full.err;
  Acknowledge(full.out);  // nothing, or what was committed before the disk filled
  ExpectFound(3);
  ExpectFound(59);

  Free();
  auto again = RunAttest({"--data", data_, "--embedder", "none", "ingest", Corpus(60, 120), "--print-acks"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  Acknowledge(again.out);
  EXPECT_EQ(ledger_.acknowledged.size(), 120u);
  ExpectIntact();
}

// On main a restart on a full disk said only "disk I/O error", and a reader could not even open
// the store (it had to create the catalog's -shm file).
TEST_F(DiskFull, RestartOnFullDiskNamesTheFullDiskAndStillSearches) {
  auto first = RunAttest({"--data", data_, "--embedder", "none", "ingest", Corpus(0, 40), "--print-acks"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Acknowledge(first.out);
  auto key = RunAttest({"--data", data_, "keys", "create", "--tenant", "default", "--user", "root", "--admin", "--json"});
  ASSERT_EQ(key.exit_code, 0) << key.err;
  ASSERT_GT(Fill(), 0u);

  ExpectFound(7);  // a fresh reader opens the store on the full disk
  auto stats = RunAttest({"--data", data_, "stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(json::parse(stats.out).value("documents", 0), 40);

  auto ingest = RunAttest({"--data", data_, "--embedder", "none", "ingest", Corpus(40, 80)});
  EXPECT_EQ(ingest.exit_code, 1);
  EXPECT_NE(ingest.err.find("is full (no space left on device, ENOSPC)"), std::string::npos) << ingest.err;
  EXPECT_EQ(ingest.err.find("Internal"), std::string::npos) << ingest.err;

  // The server starts on the full disk and serves reads.
  testing_support::ServeProcess server(data_, {}, {"--audit-log", tmp_.str("audit.jsonl")});
  ASSERT_NE(server.port(), 0) << "attest serve did not start on a full disk";
  HttpCall search = testing_support::MakeCall(
      "POST", "/v1/search", {{"Authorization", "Bearer " + json::parse(key.out).at("key").get<std::string>()}},
      json{{"query", CrashCorpus::Token(7)}}.dump());
  HttpReply r = HttpRequest(server.port(), search);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find(CrashCorpus::Id(7)), std::string::npos) << r.body;
}

// On main a write on a full disk through the server was a 500 "internal".
TEST_F(DiskFull, ServerWriteOnFullDiskIs503StorageFull) {
  auto key = RunAttest({"--data", data_, "keys", "create", "--tenant", "default", "--user", "root", "--admin", "--json"});
  ASSERT_EQ(key.exit_code, 0) << key.err;
  const std::string bearer = "Bearer " + json::parse(key.out).at("key").get<std::string>();
  testing_support::ServeProcess server(data_, {"--embedder", "none"}, {"--audit-log", tmp_.str("audit.jsonl")});
  ASSERT_NE(server.port(), 0);
  auto post = [&](int from, int to) {
    json docs = json::array();
    for (int i = from; i < to; ++i) {
      const DocumentSpec s = CrashCorpus::Spec(i, 1);
      docs.push_back({{"id", s.id}, {"title", s.title}, {"text", s.text}});
    }
    return HttpRequest(server.port(), testing_support::MakeCall("POST", "/v1/documents:batch",
                                                                {{"Authorization", bearer}},
                                                                json{{"documents", docs}}.dump()));
  };
  ASSERT_EQ(post(0, 10).status, 200);
  ASSERT_GT(Fill(), 0u);

  HttpReply full = post(10, 20);
  EXPECT_EQ(full.status, 503) << full.body;
  auto body = json::parse(full.body, nullptr, false);
  ASSERT_FALSE(body.is_discarded()) << full.body;
  EXPECT_EQ(body["error"].value("code", ""), "storage_full") << full.body;
  EXPECT_NE(body["error"].value("message", "").find("ENOSPC"), std::string::npos) << full.body;

  HttpReply search = HttpRequest(server.port(), testing_support::MakeCall("POST", "/v1/search",
                                                                          {{"Authorization", bearer}},
                                                                          json{{"query", CrashCorpus::Token(4)}}.dump()));
  EXPECT_EQ(search.status, 200) << search.body;
  EXPECT_NE(search.body.find(CrashCorpus::Id(4)), std::string::npos) << search.body;

  Free();
  EXPECT_EQ(post(10, 20).status, 200);
  HttpReply got = HttpRequest(server.port(), testing_support::MakeCall("GET", "/v1/documents/doc-15",
                                                                       {{"Authorization", bearer}}));
  EXPECT_EQ(got.status, 200) << got.body;
}

}  // namespace
}  // namespace attest
