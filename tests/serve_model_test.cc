// Black-box test of a corrupt vector model under `attest serve` (the real binary on an ephemeral
// port): two tenants each with a corpus model trained by `attest ingest`; one tenant's model file is
// damaged on disk before the server starts.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ops_test::Body;
using ops_test::Call;
using ops_test::CreateKey;
using ops_test::ErrorCode;
using testing_support::HttpReply;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::TempDir;
using testing_support::WriteFile;

// 60 documents over three topics: enough text for an 8-dimensional LSA model (a different seed,
// different text: tenants with the same text would share one model file).
std::string Corpus(const std::string& prefix, uint32_t seed) {
  const std::vector<std::vector<std::string>> topics = {
      {"glacier", "moraine", "icefield", "crevasse", "fjord", "snowpack"},
      {"sourdough", "yeast", "crumb", "proofing", "flour", "oven"},
      {"satellite", "orbit", "apogee", "telemetry", "payload", "thruster"}};
  std::string jsonl;
  uint32_t x = seed;
  for (int t = 0; t < 3; ++t) {
    for (int n = 0; n < 20; ++n) {
      std::string text;
      for (int w = 0; w < 30; ++w) {
        x = x * 1664525u + 1013904223u;
        text += topics[t][(x >> 8) % topics[t].size()] + " ";
      }
      jsonl += json{{"_id", prefix + std::to_string(t) + "-" + std::to_string(n)}, {"title", ""}, {"text", text}}.dump() +
               "\n";
    }
  }
  return jsonl;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool Contains(const json& list, const std::string& needle) {
  for (const auto& item : list) {
    if (item.is_string() && item.get<std::string>().find(needle) != std::string::npos) return true;
  }
  return false;
}

// A damaged model file gave 500 in `mode: vector`, an empty `degraded` in auto mode, and a 200 from
// /readyz. Now: vector and hybrid searches of that tenant are 503 vector_leg_unavailable naming the
// model file and what is wrong; auto mode degrades to BM25 and says why in `degraded` and
// `notices` (searches and answers); /readyz is 503 naming the tenant's model until the file is
// good again; the other tenant's vector leg is unaffected.
TEST(ServeCorruptModel, Regression_CorruptVectorModelIs503NotReadyAndDegradesAutoMode) {
  TempDir dir;
  const std::string data = dir.str("data");
  const std::vector<std::string> global = {"--embed-min-chunks", "10", "--embed-dim", "8"};
  for (const std::string tenant : {"acme", "bolt"}) {
    WriteFile(dir.path() / (tenant + ".jsonl"), Corpus(tenant, tenant == "acme" ? 7 : 11));
    std::vector<std::string> args = {"--data", data};
    args.insert(args.end(), global.begin(), global.end());
    args.insert(args.end(), {"ingest", "--tenant", tenant, dir.str(tenant + ".jsonl")});
    auto r = RunAttest(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  }
  const std::string acme = CreateKey(data, {"--tenant", "acme", "--user", "alice"});
  const std::string bolt = CreateKey(data, {"--tenant", "bolt", "--user", "bob"});

  // The catalog names each tenant's active model.
  const fs::path acme_model = fs::path(data) / "models" /
                              ops_test::SqlText(data + "/catalog.db",
                                                "SELECT model_file FROM embedders WHERE tenant = 'acme' "
                                                "ORDER BY activated_snapshot DESC LIMIT 1");
  ASSERT_TRUE(fs::is_regular_file(acme_model)) << acme_model;
  size_t model_files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(data) / "models")) model_files += e.is_regular_file();
  ASSERT_EQ(model_files, 2u) << "each tenant has a model of its own";
  const std::string original = ReadAll(acme_model);
  std::string damaged = original;
  damaged[damaged.size() / 2] ^= 0x5A;
  WriteFile(acme_model, damaged);

  ServeProcess server(data, global, {});
  ASSERT_NE(server.port(), 0) << server.child().out();
  const uint16_t port = server.port();
  const std::string file = acme_model.filename().string();

  HttpReply ready = Call(port, "GET", "/readyz", "");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_NE(ready.body.find(file), std::string::npos) << ready.body;
  EXPECT_NE(ready.body.find("acme"), std::string::npos) << ready.body;

  for (const char* mode : {"vector", "hybrid"}) {
    HttpReply r = Call(port, "POST", "/v1/search", acme, json{{"query", "glacier crevasse"}, {"mode", mode}}.dump());
    EXPECT_EQ(r.status, 503) << mode << ": " << r.body;
    EXPECT_EQ(ErrorCode(r), "vector_leg_unavailable") << r.body;
    const std::string message = Body(r)["error"].value("message", "");
    EXPECT_NE(message.find(file), std::string::npos) << message;
    EXPECT_NE(message.find("CRC-32C"), std::string::npos) << message;  // what is wrong
    EXPECT_EQ(message.find(data), std::string::npos) << "the data directory's path is not the caller's business";
  }

  HttpReply autosearch = Call(port, "POST", "/v1/search", acme, json{{"query", "glacier crevasse"}}.dump());
  ASSERT_EQ(autosearch.status, 200) << autosearch.body;
  json body = Body(autosearch);
  EXPECT_EQ(body.value("mode", ""), "bm25");
  EXPECT_FALSE(body["hits"].empty());
  EXPECT_TRUE(Contains(body["degraded"], "vector_leg_unavailable")) << body["degraded"].dump();
  EXPECT_TRUE(Contains(body["degraded"], file)) << body["degraded"].dump();
  EXPECT_TRUE(Contains(body["notices"], file)) << body["notices"].dump();

  HttpReply answer = Call(port, "POST", "/v1/answer", acme, json{{"query", "What is a glacier crevasse?"}}.dump());
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_TRUE(Contains(Body(answer)["degraded"], "vector_leg_unavailable")) << answer.body.substr(0, 600);

  // The other tenant's model is fine.
  HttpReply other = Call(port, "POST", "/v1/search", bolt, json{{"query", "glacier crevasse"}, {"mode", "vector"}}.dump());
  EXPECT_EQ(other.status, 200) << other.body;
  HttpReply other_auto = Call(port, "POST", "/v1/search", bolt, json{{"query", "glacier crevasse"}}.dump());
  EXPECT_EQ(Body(other_auto).value("mode", ""), "hybrid") << other_auto.body;
  EXPECT_TRUE(Body(other_auto)["degraded"].empty()) << other_auto.body;

  // The file is restored: ready again, vector search works.
  WriteFile(acme_model, original);
  ready = Call(port, "GET", "/readyz", "");
  EXPECT_EQ(ready.status, 200) << ready.body;
  HttpReply healed = Call(port, "POST", "/v1/search", acme, json{{"query", "glacier crevasse"}, {"mode", "vector"}}.dump());
  EXPECT_EQ(healed.status, 200) << healed.body;
}

}  // namespace
}  // namespace attest
