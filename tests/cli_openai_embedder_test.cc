// The vector leg over an OpenAI-compatible embeddings server, end to end through the real binary:
// the local test server (tests/support/openai_test_server.h) speaks the wire protocol. Ingest adopts
// the configured remote embedder, searches embed the query through it, the API key travels only in
// the Authorization header (never into the catalog), and server failures are clear errors that
// never lose the committed documents.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/openai_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::OpenAiTestServer;
using testing_support::OpenAiTestServerOptions;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

class CliOpenAiEmbedderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OpenAiTestServerOptions o;
    o.dim = 24;
    o.required_api_key = "sk-test-123";
    server_ = std::make_unique<OpenAiTestServer>(o);
    setenv("ATTEST_TEST_EMBED_KEY", "sk-test-123", 1);
    data_ = tmp_.str("data");
    WriteFile(tmp_.path() / "corpus.jsonl",
              "{\"_id\":\"a\",\"title\":\"Replication\",\"text\":\"logical replication slot streams changes\"}\n"
              "{\"_id\":\"b\",\"title\":\"Vacuum\",\"text\":\"autovacuum reclaims dead tuples and freezes\"}\n"
              "{\"_id\":\"c\",\"title\":\"Checkpoints\",\"text\":\"checkpoints flush dirty buffers to disk\"}\n");
  }
  void TearDown() override { unsetenv("ATTEST_TEST_EMBED_KEY"); }
  std::vector<std::string> With(std::vector<std::string> args) {
    args.insert(args.begin(), {"--data", data_, "--embedder", "openai", "--embed-url", server_->base_url(),
                               "--embed-model", "test-embed", "--embed-key-env", "ATTEST_TEST_EMBED_KEY"});
    return args;
  }
  std::unique_ptr<OpenAiTestServer> server_;
  TempDir tmp_;
  std::string data_;
};

TEST_F(CliOpenAiEmbedderTest, IngestAdoptsTheServerAndSearchEmbedsQueriesThroughIt) {
  auto ing = RunAttest(With({"ingest", tmp_.str("corpus.jsonl")}));
  ASSERT_EQ(ing.exit_code, 0) << ing.err << ing.out;
  EXPECT_NE(ing.out.find("vector leg: openai:test-embed 24"), std::string::npos) << ing.out;
  const size_t after_ingest = server_->request_count();
  EXPECT_GE(after_ingest, 2u);  // the dimension probe, then the chunks
  for (const auto& req : server_->requests()) {
    EXPECT_EQ(req.path, "/v1/embeddings");
    EXPECT_EQ(req.header("authorization"), "Bearer sk-test-123");
    EXPECT_EQ(req.json["model"], "test-embed");
  }
  // Searching needs only --data: the catalog remembers the server (but not the key).
  auto r = RunAttest({"--data", data_, "--embed-key-env", "ATTEST_TEST_EMBED_KEY", "search", "--mode", "vector",
                      "--json", "replication slot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["hits"].empty());
  EXPECT_EQ(j["hits"][0]["doc_id"], "a");
  EXPECT_EQ(server_->request_count(), after_ingest + 1) << "one call for the query";
  std::ifstream cat(tmp_.path() / "data" / "catalog.db", std::ios::binary);
  std::stringstream bytes;
  bytes << cat.rdbuf();
  EXPECT_EQ(bytes.str().find("sk-test-123"), std::string::npos) << "the API key is never stored";
  EXPECT_NE(bytes.str().find("ATTEST_TEST_EMBED_KEY"), std::string::npos);
}

TEST_F(CliOpenAiEmbedderTest, ServerFailuresAreClearAndKeepTheDocuments) {
  // Every request fails with a 400 and an OpenAI error body: ingest commits the documents, reports
  // the vector leg's failure, and exits 3 (partial).
  OpenAiFault bad;
  bad.status = 400;
  server_->PushFault(bad, 1000);
  auto ing = RunAttest(With({"ingest", tmp_.str("corpus.jsonl")}));
  EXPECT_EQ(ing.exit_code, 3) << ing.err << ing.out;
  EXPECT_NE(ing.err.find("vectors not updated"), std::string::npos) << ing.err;
  EXPECT_NE(ing.err.find("400"), std::string::npos) << ing.err;
  auto r = RunAttest({"--data", data_, "search", "--json", "replication"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "bm25");
  ASSERT_FALSE(j["hits"].empty());

  // Wrong dimension on the chunks' batch after a good probe: reembed fails, naming the dimensions.
  // The server's answer is at fault, not the command line: exit 1 (kUpstreamError), not 2 (usage).
  server_ = nullptr;
  OpenAiTestServerOptions o;
  o.dim = 24;
  server_ = std::make_unique<OpenAiTestServer>(o);
  server_->PushFault(OpenAiFault{}, 1);  // the probe succeeds
  OpenAiFault wrong;
  wrong.wrong_dim = 7;
  server_->PushFault(wrong, 10);
  auto re = RunAttest(With({"reembed"}));
  EXPECT_EQ(re.exit_code, 1) << re.err;
  EXPECT_NE(re.err.find("24"), std::string::npos) << re.err;
  EXPECT_NE(re.err.find("7"), std::string::npos) << re.err;

  // Now it works; then the server goes away: vector search fails clearly, BM25 still works.
  re = RunAttest(With({"reembed"}));
  ASSERT_EQ(re.exit_code, 0) << re.err;
  server_ = nullptr;
  r = RunAttest({"--data", data_, "search", "--mode", "vector", "vacuum"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("vector leg"), std::string::npos) << r.err;
  r = RunAttest({"--data", data_, "search", "--mode", "bm25", "vacuum"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunAttest({"--data", data_, "search", "vacuum"});  // auto: degrades to BM25 and says why
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(bm25, snapshot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: vector leg failed, BM25 only"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attest
