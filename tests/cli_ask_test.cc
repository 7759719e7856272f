// Black-box tests of `attest ask`, `attest verify-manifest` and `attest check` through the real
// binary: cited answers with verdicts and the as-of time, calculations, fallbacks with results,
// usage errors, manifest signing and tamper detection, and scenario files (the shared seed set
// must pass entirely).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "support/process.h"

namespace attest {
namespace {

using testing_support::DatasetsDir;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

class CliAskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = tmp_.str("data");
    WriteFile(tmp_.path() / "docs.jsonl",
              "{\"_id\":\"notes-17\",\"title\":\"Release 17 notes\",\"text\":\"ExampleDB 17 was released on "
              "2025-09-25. Subscribers can now apply large streamed transactions with parallel workers.\","
              "\"metadata\":{\"url\":\"https://docs.example.org/release/17/notes\",\"version\":\"17\","
              "\"source_type\":\"release_notes\",\"published\":\"2025-09-25\"}}\n"
              "{\"_id\":\"vacuum\",\"title\":\"Vacuum\",\"text\":\"Autovacuum reclaims dead tuples in the "
              "background.\",\"metadata\":{\"source_type\":\"official\"}}\n");
    auto r = RunAttest({"--data", data_, "ingest", tmp_.str("docs.jsonl")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  nlohmann::json Ask(std::vector<std::string> extra, int expect_exit = 0) {
    std::vector<std::string> args = {"--data", data_, "ask", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunAttest(args);
    EXPECT_EQ(r.exit_code, expect_exit) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  }
  TempDir tmp_;
  std::string data_;
};

TEST_F(CliAskTest, AnswersWithVerifiedCitationsSourcesAndAsOf) {
  auto j = Ask({"--now", "2026-01-10", "Can subscribers apply streamed transactions in parallel in ExampleDB 17?"});
  ASSERT_EQ(j["outcome"], "answer") << j.dump(2);
  EXPECT_NE(j["answer"].get<std::string>().find("[1]"), std::string::npos);
  EXPECT_FALSE(j["as_of"].get<std::string>().empty());
  EXPECT_EQ(j["plan"]["original"], "Can subscribers apply streamed transactions in parallel in ExampleDB 17?");
  bool kept = false;
  for (const auto& c : j["claims"]) {
    if (!c["kept"].get<bool>()) continue;
    kept = true;
    EXPECT_EQ(c["verdict"], "supported");
    // Every kept claim's quote occurs verbatim in the source it cites.
    for (const auto& cite : c["cites"]) {
      bool found = false;
      for (const auto& s : j["sources"]) {
        if (s["id"] == cite["source"]) found = s["text"].get<std::string>().find(cite["quote"].get<std::string>()) != std::string::npos;
      }
      EXPECT_TRUE(found) << cite.dump();
    }
  }
  EXPECT_TRUE(kept);
  EXPECT_EQ(j["sources"][0]["doc_id"], "notes-17");
  EXPECT_TRUE(j["sources"][0]["cited"].get<bool>());
  EXPECT_EQ(j["manifest"]["sha256"].get<std::string>().size(), 64u);
  for (const char* stage : {"plan", "retrieve", "rerank", "write", "verify", "total"}) {
    EXPECT_TRUE(j["timings_ms"].contains(stage)) << stage;
  }
}

TEST_F(CliAskTest, CalculationsFallbacksAndUsageErrors) {
  auto j = Ask({"what is 17 * 23"});
  EXPECT_EQ(j["outcome"], "calculation");
  EXPECT_NE(j["answer"].get<std::string>().find("391"), std::string::npos);
  EXPECT_EQ(j["plan"]["needs_search"], false);

  j = Ask({"Who is the chief executive of Acme?"});
  EXPECT_EQ(j["outcome"], "fallback");
  EXPECT_TRUE(j["fallback_reason"] == "no_confident_answer" || j["fallback_reason"] == "no_documents") << j.dump(2);
  EXPECT_TRUE(j["claims"].empty() || !j["claims"][0]["kept"].get<bool>());

  j = Ask({"--tenant", "other", "autovacuum dead tuples"});
  EXPECT_EQ(j["fallback_reason"], "no_documents") << "another tenant sees nothing";
  j = Ask({"--groups", "staff", "autovacuum dead tuples"});
  EXPECT_EQ(j["outcome"], "answer") << "public documents are visible to every group";

  auto r = RunAttest({"--data", data_, "ask", ""});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunAttest({"--data", data_, "ask", std::string(2100, 'x')});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = RunAttest({"--data", data_, "ask", "--writer", "poet", "hello"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunAttest({"--data", data_, "ask", "--writer", "llm", "autovacuum dead tuples"});
  EXPECT_EQ(r.exit_code, 2) << "no chat model configured";
  EXPECT_NE(r.err.find("LLM writer is not configured"), std::string::npos) << r.err;
}

TEST_F(CliAskTest, ManifestsAreSignedAndTamperingIsDetected) {
  setenv("ATTEST_TEST_MANIFEST_KEY", "k3y", 1);
  const std::string file = tmp_.str("manifest.json");
  auto r = RunAttest({"--data", data_, "ask", "--manifest", file, "--manifest-key-env", "ATTEST_TEST_MANIFEST_KEY",
                      "autovacuum dead tuples"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunAttest({"verify-manifest", file, "--key-env", "ATTEST_TEST_MANIFEST_KEY"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("HMAC verified"), std::string::npos);
  setenv("ATTEST_TEST_MANIFEST_KEY", "wrong", 1);
  r = RunAttest({"verify-manifest", file, "--key-env", "ATTEST_TEST_MANIFEST_KEY"});
  EXPECT_EQ(r.exit_code, 1);
  unsetenv("ATTEST_TEST_MANIFEST_KEY");
  std::ifstream in(file);
  auto m = nlohmann::json::parse(in);
  std::string body = m["manifest"];
  body.replace(body.find("dead"), 4, "live");
  m["manifest"] = body;
  WriteFile(file, m.dump());
  r = RunAttest({"verify-manifest", file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("SHA-256"), std::string::npos) << r.err;
}

TEST(CliCheckTest, ScenarioFilesReportEveryExpectation) {
  TempDir tmp;
  WriteFile(tmp.path() / "s.json", R"({"format": "attest-scenarios/1", "scenarios": [
    {"id": "calc", "now": "2026-01-01T00:00:00Z", "documents": [], "identity": {"tenant": "t", "groups": []},
     "question": "convert 30 C to F", "expect": {"outcome": "calculation", "answer_contains": ["86"]}},
    {"id": "wrong", "now": "2026-01-01T00:00:00Z", "documents": [], "identity": {"tenant": "t", "groups": []},
     "question": "what is 2 + 2", "expect": {"answer_contains": ["5"], "no_such_key": true}}]})");
  auto r = RunAttest({"check", tmp.str("s.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("PASS  calc"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL  wrong"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown expectation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 2 scenario checks passed"), std::string::npos) << r.out;

  WriteFile(tmp.path() / "bad.json", R"({"format": "attest-scenarios/0", "scenarios": []})");
  r = RunAttest({"check", tmp.str("bad.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("attest-scenarios/1"), std::string::npos) << r.err;
  r = RunAttest({"check", tmp.str("missing.json")});
  EXPECT_EQ(r.exit_code, 1);
}

// The bar: every scenario of ../shared/scenarios/seed-scenarios.json passes through `attest check`.
TEST(CliCheckTest, EverySeedScenarioPasses) {
  const std::string datasets = DatasetsDir();
  if (datasets.empty()) GTEST_SKIP() << "../shared is absent: the seed scenarios were not checked";
  const std::string file = datasets + "/../scenarios/seed-scenarios.json";
  if (!std::ifstream(file)) GTEST_SKIP() << file << " is absent: the seed scenarios were not checked";
  auto r = RunAttest({"check", "--json", file});
  auto j = nlohmann::json::parse(r.out);
  for (const auto& s : j["scenarios"]) {
    if (!s["passed"].get<bool>()) ADD_FAILURE() << s.dump(2);
  }
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(j["passed"], j["total"]);
  EXPECT_GE(j["total"].get<int>(), 14);
}

// The same through a cluster coordinator over three shard stores (docs/cluster.md, "Equivalence").
TEST(CliCheckTest, EverySeedScenarioPassesThroughAThreeShardCluster) {
  const std::string datasets = DatasetsDir();
  if (datasets.empty()) GTEST_SKIP() << "../shared is absent: the seed scenarios were not checked";
  const std::string file = datasets + "/../scenarios/seed-scenarios.json";
  if (!std::ifstream(file)) GTEST_SKIP() << file << " is absent: the seed scenarios were not checked";
  auto r = RunAttest({"check", "--json", "--shards", "3", file});
  auto j = nlohmann::json::parse(r.out);
  for (const auto& s : j["scenarios"]) {
    if (!s["passed"].get<bool>()) ADD_FAILURE() << s.dump(2);
  }
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(j["passed"], j["total"]);
  EXPECT_GE(j["total"].get<int>(), 14);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// Disagreeing sources: at equal rank both views are shown with their dates; otherwise the source
// hierarchy decides and the less authoritative claim is dropped.
TEST(CliAskConflictTest, EqualRankShowsBothViewsHigherRankWins) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl",
            "{\"_id\":\"a\",\"title\":\"Retention policy\",\"text\":\"The default retention period for audit logs is "
            "30 days.\",\"metadata\":{\"source_type\":\"official\",\"published\":\"2025-01-10\"}}\n"
            "{\"_id\":\"b\",\"title\":\"Retention FAQ\",\"text\":\"The default retention period for audit logs is "
            "60 days.\",\"metadata\":{\"source_type\":\"official\",\"published\":\"2025-06-01\"}}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  auto r = RunAttest({"--data", data, "ask", "--json", "What is the default retention period for audit logs?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["outcome"], "answer") << j.dump(2);
  const std::string answer = j["answer"];
  EXPECT_NE(answer.find("According to Retention policy (2025-01-10): "), std::string::npos) << answer;
  EXPECT_NE(answer.find("According to Retention FAQ (2025-06-01): "), std::string::npos) << answer;
  EXPECT_NE(answer.find("30 days"), std::string::npos);
  EXPECT_NE(answer.find("60 days"), std::string::npos);
  bool warned = false;
  for (const auto& w : j["warnings"]) warned |= w.get<std::string>().find("disagree") != std::string::npos;
  EXPECT_TRUE(warned);

  TempDir tmp2;
  const std::string data2 = tmp2.str("data");
  WriteFile(tmp2.path() / "d.jsonl",
            "{\"_id\":\"a\",\"title\":\"Retention policy\",\"text\":\"The default retention period for audit logs is "
            "30 days.\",\"metadata\":{\"source_type\":\"official\"}}\n"
            "{\"_id\":\"w\",\"title\":\"Team wiki\",\"text\":\"The default retention period for audit logs is "
            "90 days.\",\"metadata\":{\"source_type\":\"wiki\"}}\n");
  ASSERT_EQ(RunAttest({"--data", data2, "ingest", tmp2.str("d.jsonl")}).exit_code, 0);
  r = RunAttest({"--data", data2, "ask", "--json", "What is the default retention period for audit logs?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["outcome"], "answer") << j.dump(2);
  EXPECT_NE(j["answer"].get<std::string>().find("30 days"), std::string::npos);
  EXPECT_EQ(j["answer"].get<std::string>().find("90 days"), std::string::npos) << j["answer"];
  bool overruled = false;
  for (const auto& c : j["claims"]) {
    overruled |= !c["kept"].get<bool>() && c["reason"].get<std::string>().find("more authoritative") != std::string::npos;
  }
  EXPECT_TRUE(overruled) << j["claims"].dump(2);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// The text form: the answer with markers, the version it is about with its date, and one source
// entry per cited document listing its markers and the passages used.
TEST(CliAskTextTest, ShowsVersionAndSourcesGroupedByDocument) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl",
            "{\"_id\":\"n17\",\"title\":\"Release 17 notes\",\"text\":\"The ExampleDB 17 release adds parallel apply "
            "for subscribers. The ExampleDB 17 release also adds column lists for publishers.\",\"metadata\":{\"version\":\"17\","
            "\"source_type\":\"release_notes\",\"published\":\"2025-09-25\",\"url\":\"https://x.example/17\"}}\n"
            "{\"_id\":\"n16\",\"title\":\"Release 16 notes\",\"text\":\"ExampleDB 16 was released on 2024-09-26. "
            "Publishers gain row filters.\",\"metadata\":{\"version\":\"16\",\"source_type\":\"release_notes\","
            "\"published\":\"2024-09-26\",\"url\":\"https://x.example/16\"}}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  auto r = RunAttest({"--data", data, "ask", "What does the latest ExampleDB release add?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(version 17, 2025-09-25)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Sources:\n[1][2] Release 17 notes  https://x.example/17"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Release 16 notes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as of "), std::string::npos);
}

}  // namespace
}  // namespace attest
