// Black-box tests of the vector leg through the real `attest` binary: ingest trains the corpus
// model and says so, `search --mode` and `--explain` (text and JSON), `stats` reports the vector
// leg, `reembed` switches the model, and bad modes or flags are usage errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/process.h"

namespace attest {
namespace {

using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

class CliVectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = tmp_.str("data");
    const std::vector<std::vector<std::string>> topics = {
        {"glacier", "moraine", "icefield", "crevasse", "fjord", "snowpack"},
        {"sourdough", "yeast", "crumb", "proofing", "flour", "oven"},
        {"satellite", "orbit", "apogee", "telemetry", "payload", "thruster"}};
    std::string jsonl;
    uint32_t x = 7;
    for (int t = 0; t < 3; ++t) {
      for (int n = 0; n < 20; ++n) {
        std::string text;
        for (int w = 0; w < 30; ++w) {
          x = x * 1664525u + 1013904223u;
          text += topics[t][(x >> 8) % topics[t].size()] + " ";
        }
        jsonl += "{\"_id\":\"t" + std::to_string(t) + "-" + std::to_string(n) + "\",\"title\":\"\",\"text\":\"" + text +
                 "\"}\n";
      }
    }
    WriteFile(tmp_.path() / "corpus.jsonl", jsonl);
  }
  std::vector<std::string> With(std::vector<std::string> args) {
    args.insert(args.begin(), {"--data", data_, "--embed-min-chunks", "10", "--embed-dim", "8"});
    return args;
  }
  TempDir tmp_;
  std::string data_;
};

TEST_F(CliVectorTest, IngestTrainsSearchExplainsStatsAndReembedSwitches) {
  auto ing = RunAttest(With({"ingest", tmp_.str("corpus.jsonl")}));
  ASSERT_EQ(ing.exit_code, 0) << ing.err << ing.out;
  EXPECT_NE(ing.out.find("vector leg: lsa-corpus 8 "), std::string::npos) << ing.out;
  EXPECT_NE(ing.out.find("not a pretrained semantic model"), std::string::npos) << ing.out;

  auto r = RunAttest(With({"search", "--mode", "vector", "--k", "5", "--json", "glacier crevasse"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "vector");
  EXPECT_NE(j["embedder"].get<std::string>().find("lsa-corpus"), std::string::npos);
  ASSERT_EQ(j["hits"].size(), 5u);
  for (const auto& h : j["hits"]) {
    EXPECT_EQ(h["doc_id"].get<std::string>().substr(0, 3), "t0-") << h.dump();
    EXPECT_TRUE(h["explain"]["bm25"].is_null());
    EXPECT_GE(h["explain"]["vector"]["rank"].get<int>(), 1);
    EXPECT_DOUBLE_EQ(h["explain"]["fused"].get<double>(), h["score"].get<double>());
  }

  r = RunAttest(With({"search", "--json", "--k", "10", "orbit payload"}));  // auto -> hybrid
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "hybrid");
  for (const auto& h : j["hits"]) {
    EXPECT_TRUE(!h["explain"]["bm25"].is_null() || !h["explain"]["vector"].is_null());
  }
  r = RunAttest(With({"search", "--explain", "--mode", "hybrid", "--fusion", "rrf", "sourdough"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(hybrid, snapshot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("explain: bm25 #1 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector leg: lsa-corpus"), std::string::npos) << r.out;

  auto st = RunAttest(With({"stats", "--json"}));
  ASSERT_EQ(st.exit_code, 0) << st.err;
  auto s = nlohmann::json::parse(st.out);
  EXPECT_EQ(s["vector_chunks"], s["chunks"]);
  EXPECT_GT(s["model_bytes"].get<uint64_t>(), 0u);
  const std::string before = s["embedder"];

  auto re = RunAttest(With({"--embed-seed", "9", "reembed", "--json"}));
  ASSERT_EQ(re.exit_code, 0) << re.err;
  auto rj = nlohmann::json::parse(re.out);
  EXPECT_EQ(rj["chunks"], s["chunks"]);
  EXPECT_EQ(rj["snapshot_version"].get<uint64_t>(), s["snapshot_version"].get<uint64_t>() + 1);
  st = RunAttest(With({"stats", "--json"}));
  s = nlohmann::json::parse(st.out);
  EXPECT_NE(s["embedder"], before);
  EXPECT_EQ(s["embedder"], rj["embedder"]);
}

TEST_F(CliVectorTest, BadModesAndMissingEmbedderAreUsageErrors) {
  auto ing = RunAttest({"--data", data_, "--embedder", "none", "ingest", tmp_.str("corpus.jsonl")});
  ASSERT_EQ(ing.exit_code, 0) << ing.err;
  EXPECT_NE(ing.out.find("vector leg: none yet"), std::string::npos) << ing.out;
  auto r = RunAttest({"--data", data_, "search", "--mode", "vector", "glacier"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("embedder"), std::string::npos) << r.err;
  r = RunAttest({"--data", data_, "search", "glacier"});  // auto: BM25 with a note
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: no embedder is active yet"), std::string::npos) << r.out;
  r = RunAttest({"--data", data_, "search", "--mode", "semantic", "glacier"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--mode 'semantic'"), std::string::npos) << r.err;
  r = RunAttest({"--data", data_, "search", "--vector-weight", "1.5", "glacier"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunAttest({"--data", data_, "--embedder", "word2vec", "reembed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown embedder 'word2vec'"), std::string::npos) << r.err;
  r = RunAttest({"--data", data_, "--embedder", "openai", "reembed"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--embed-url"), std::string::npos) << r.err;
  // reembed with the default corpus embedder trains one.
  r = RunAttest({"--data", data_, "--embed-dim", "8", "reembed"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("vector leg switched to lsa-corpus 8"), std::string::npos) << r.out;
  r = RunAttest({"--data", data_, "search", "--mode", "vector", "glacier"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace attest
