// Tests for the BEIR loader: a tiny folder written by the test, malformed inputs with line numbers,
// and (when the shared datasets are present) the real SciFact counts.
#include "eval/beir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace attest {
namespace {

namespace fs = std::filesystem;

class EvalBeirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("eval_beir_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "qrels");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& content) {
    std::ofstream out(dir_ / rel, std::ios::binary);
    out << content;
  }

  fs::path dir_;
};

TEST_F(EvalBeirTest, LoadsATinyFolder) {
  Write("corpus.jsonl",
        R"({"_id": "d1", "title": "Alpha", "text": "first doc", "metadata": {"acl": "g1", "n": 3}})" "\n"
        R"({"_id": "d2", "text": "no title"})" "\r\n"
        "\n"
        R"({"_id": "d3", "title": "Gamma", "text": "", "metadata": {}})");  // no final newline
  Write("queries.jsonl",
        R"({"_id": "q1", "text": "alpha?", "metadata": {}})" "\n"
        R"({"_id": "q2", "text": "unjudged"})" "\n"
        R"({"_id": "q3", "text": "gamma", "metadata": {"answers": ["x", "y"]}})" "\n");
  Write("qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq3\td3\t1\nq9\td1\t1\n");

  std::vector<BeirDocument> docs;
  size_t count = 0;
  Status st = StreamBeirCorpus(BeirCorpusPath(dir_), [&](BeirDocument&& d) {
    docs.push_back(std::move(d));
    return Status::Ok();
  }, &count);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(count, 3u);
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].id, "d1");
  EXPECT_EQ(docs[0].title, "Alpha");
  EXPECT_EQ(docs[0].text, "first doc");
  EXPECT_EQ(docs[0].metadata.at("acl"), "g1");
  EXPECT_EQ(docs[0].metadata.at("n"), "3");  // non-string values keep their JSON text
  EXPECT_EQ(docs[1].title, "");
  EXPECT_EQ(docs[1].text, "no title");
  EXPECT_EQ(docs[2].id, "d3");
  EXPECT_EQ(docs[2].text, "");

  auto split = LoadBeirSplit(dir_, "test");
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->queries.size(), 2u);  // q2 has no judgments
  EXPECT_EQ(split->queries[0].id, "q1");
  EXPECT_EQ(split->queries[1].id, "q3");
  EXPECT_EQ(split->queries[1].metadata.at("answers"), R"(["x","y"])");
  EXPECT_EQ(split->qrels.at("q1").at("d1"), 2);
  EXPECT_EQ(split->qrels.at("q1").at("d2"), 0);
  ASSERT_EQ(split->judged_but_missing.size(), 1u);
  EXPECT_EQ(split->judged_but_missing[0], "q9");
}

TEST_F(EvalBeirTest, CallbackErrorStopsTheStreamWithItsLine) {
  Write("corpus.jsonl", R"({"_id": "a", "text": "x"})" "\n" R"({"_id": "b", "text": "y"})" "\n"
                        R"({"_id": "c", "text": "z"})" "\n");
  int seen = 0;
  Status st = StreamBeirCorpus(BeirCorpusPath(dir_), [&](BeirDocument&& d) {
    ++seen;
    return d.id == "b" ? Status::Cancelled("stop at b") : Status::Ok();
  });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_NE(st.message().find("corpus.jsonl:2"), std::string::npos) << st.message();
  EXPECT_EQ(seen, 2);
}

struct BadCorpusCase {
  const char* line;
  const char* expected;  // substring of the error message
};

TEST_F(EvalBeirTest, MalformedCorpusLinesGiveLineNumberedErrors) {
  const BadCorpusCase cases[] = {
      {R"({"_id": "x", "text": "ok"} trailing)", "invalid JSON"},
      {R"(["not", "an", "object"])", "expected a JSON object"},
      {R"({"text": "no id"})", "missing \"_id\""},
      {R"({"_id": 7, "text": "numeric id"})", "\"_id\" must be a string"},
      {R"({"_id": "", "text": "empty id"})", "\"_id\" is empty"},
      {R"({"_id": "x"})", "missing \"text\""},
      {R"({"_id": "x", "text": 1})", "\"text\" must be a string"},
      {R"({"_id": "x", "text": "t", "title": ["a"]})", "\"title\" must be a string"},
      {R"({"_id": "x", "text": "t", "metadata": "m"})", "\"metadata\" must be an object"},
      {"{\"_id\": \"x\", \"text\": \"bad \xff utf8\"}", "invalid JSON"},
  };
  for (const auto& c : cases) {
    Write("corpus.jsonl", std::string(R"({"_id": "good", "text": "fine"})") + "\n\n" + c.line + "\n");
    Status st = StreamBeirCorpus(BeirCorpusPath(dir_), [](BeirDocument&&) { return Status::Ok(); });
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.line;
    EXPECT_NE(st.message().find("corpus.jsonl:3"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(c.expected), std::string::npos) << st.message();
  }
}

TEST_F(EvalBeirTest, MalformedQueriesAndQrelsGiveLineNumberedErrors) {
  Write("queries.jsonl", R"({"_id": "q1", "text": "a"})" "\n" R"({"_id": "q1", "text": "b"})" "\n");
  auto q = LoadBeirQueries(dir_ / "queries.jsonl");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("queries.jsonl:2"), std::string::npos) << q.status().message();
  EXPECT_NE(q.status().message().find("duplicate query id"), std::string::npos);

  const std::pair<const char*, const char*> cases[] = {
      {"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\n", "qrels/test.tsv:3: expected 3 columns"},
      {"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\thigh\n", "test.tsv:3: score \"high\" is not an integer"},
      {"query-id\tcorpus-id\tscore\nq1\td1\t1.5\n", "test.tsv:2: score \"1.5\" is not an integer"},
      {"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n", "test.tsv:3: duplicate judgment"},
      {"q1\td1\t1\n", "test.tsv:1: expected the header"},
      {"", "empty qrels file"},
  };
  for (const auto& [content, expected] : cases) {
    Write("qrels/test.tsv", content);
    auto r = LoadBeirQrels(dir_ / "qrels" / "test.tsv");
    ASSERT_FALSE(r.ok()) << content;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(expected), std::string::npos) << r.status().message();
  }
}

TEST_F(EvalBeirTest, MissingFilesAndBadSplitNamesAreReported) {
  auto r = LoadBeirSplit(dir_, "dev");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("dev.tsv"), std::string::npos) << r.status().message();

  auto bad = LoadBeirSplit(dir_, "../../etc/passwd");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);

  Status st = StreamBeirCorpus(dir_ / "nope.jsonl", [](BeirDocument&&) { return Status::Ok(); });
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
}

fs::path DatasetsDir() {
  if (const char* env = std::getenv("ATTEST_DATASETS"); env && *env) return env;
  return fs::path(ATTEST_SOURCE_DIR) / ".." / "shared" / "datasets";
}

TEST(EvalBeirSciFactTest, LoadsSciFactWithTheExpectedCounts) {
  const fs::path dir = DatasetsDir() / "scifact" / "beir";
  if (!fs::exists(dir / "corpus.jsonl")) {
    GTEST_SKIP() << "SciFact not found at " << dir << " (set ATTEST_DATASETS to the shared datasets folder)";
  }
  size_t docs = 0;
  size_t with_title = 0;
  Status st = StreamBeirCorpus(BeirCorpusPath(dir), [&](BeirDocument&& d) {
    if (!d.title.empty()) ++with_title;
    return Status::Ok();
  }, &docs);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(docs, 5183u);
  EXPECT_GT(with_title, 5000u);

  auto split = LoadBeirSplit(dir, "test");
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(split->queries.size(), 300u);
  EXPECT_EQ(split->qrels.size(), 300u);
  EXPECT_TRUE(split->judged_but_missing.empty());
  size_t judgments = 0;
  for (const auto& [q, j] : split->qrels) judgments += j.size();
  EXPECT_EQ(judgments, 339u);
}

}  // namespace
}  // namespace attest
