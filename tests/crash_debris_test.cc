// Regressions found by the kill -9 campaign (tests/crash_recovery_test.cc): what a kill leaves
// behind must be cleaned by the next run of the writer, whatever that run has to do.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "store/store.h"
#include "support/crash_child.h"
#include "support/crash_corpus.h"
#include "support/http_test_client.h"
#include "support/process.h"
#include "vector/segment_vectors.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::CrashChild;
using testing_support::CrashCorpus;
using testing_support::TempDir;

class CrashDebris : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = tmp_.path() / "data";
    Corpus(1);
  }
  void Corpus(int version) {
    std::ofstream out(tmp_.path() / "corpus.jsonl", std::ios::trunc);
    for (int i = 0; i < CrashCorpus::kDocuments; ++i) out << CrashCorpus::JsonlLine(i, i < 40 ? version : 1) << "\n";
  }
  // Runs attest with `args` after the global flags; kill_at = "" runs it to the end.
  int Run(const std::vector<std::string>& args, const std::string& kill_at = "") {
    std::vector<std::string> argv = {ATTEST_BINARY, "--data", data_.string(), "--threads", "2", "--embed-dim", "32"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = {"OMP_NUM_THREADS=1"};  // fast training on a loaded machine
    if (!kill_at.empty()) env.push_back("ATTEST_FAULT_KILL=" + kill_at);
    CrashChild child(argv, env, tmp_.path() / "stderr");
    return child.Wait();
  }
  int Ingest(const std::string& kill_at = "") {
    return Run({"ingest", (tmp_.path() / "corpus.jsonl").string(), "--batch-docs", "32"}, kill_at);
  }
  std::set<std::string> Models() const {
    std::set<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(data_ / "models", ec)) names.insert(e.path().filename().string());
    return names;
  }

  TempDir tmp_;
  fs::path data_;
};

// Found by the campaign (training scenario): a kill before the trained model was renamed left
// models/training-<pid>.tmp-model; when the next run was killed right after the switch (before it
// removed old models), the run after that only built vector files and the temporary model stayed.
TEST_F(CrashDebris, KilledTrainingLeavesNoTemporaryModelAfterTheNextRuns) {
  ASSERT_EQ(Ingest("vectors.before_model_rename"), -SIGKILL);
  ASSERT_EQ(Models().size(), 1u);
  ASSERT_NE(Models().begin()->find(".tmp"), std::string::npos) << "expected the temporary model of the killed run";
  ASSERT_EQ(Ingest("embedder.after_catalog_commit"), -SIGKILL);  // trains again and switches, then dies
  Corpus(2);
  ASSERT_EQ(Ingest(), 0);  // an active embedder: only the vector files of the new segment are built
  const auto models = Models();
  ASSERT_EQ(models.size(), 1u) << "models/ holds " << models.size() << " files, the first " << *models.begin();
  EXPECT_EQ(models.begin()->find(".tmp"), std::string::npos) << *models.begin();
}

// Same campaign finding for models that are no longer active: reembed killed after the switch left
// the previous model beside the new one, and the next run did not remove it.
TEST_F(CrashDebris, KilledReembedLeavesNoInactiveModelAfterTheNextRun) {
  ASSERT_EQ(Ingest(), 0);
  const auto first = Models();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(Run({"--embed-seed", "7", "reembed"}, "embedder.after_catalog_commit"), -SIGKILL);
  ASSERT_EQ(Models().size(), 2u);
  Corpus(2);
  ASSERT_EQ(Ingest(), 0);
  const auto after = Models();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(*after.begin(), *first.begin()) << "the reembedded model is the active one";
}

// Found by the campaign (server scenario): a kill after a commit but before the vector files of its
// segment were built left that segment without vectors, and a restarted `attest serve` never built
// them until the next write: with no writes, vector and hybrid search stayed degraded for good.
TEST_F(CrashDebris, RestartedServerBuildsVectorFilesAKillLeftMissing) {
  ASSERT_EQ(Ingest(), 0);  // trains; every segment has its vector file
  Corpus(2);
  ASSERT_EQ(Ingest("vectors.sync"), -SIGKILL);  // committed and merged, then killed before its vectors
  auto uncovered = [&]() -> long {
    StoreOptions so;
    so.dir = data_;
    so.read_only = true;
    auto store = Store::Open(so);
    if (!store.ok()) return -1;
    auto snap = (*store)->Pin();
    if (!snap->embedder("")) return -2;
    auto loaded = VectorFiles(data_ / "vectors").Load(*snap, "", snap->embedder("")->key);
    if (!loaded.ok()) return -3;
    return long(snap->segments().size() - loaded->size());
  };
  ASSERT_GT(uncovered(), 0) << "the kill should have left a segment without vectors";
  testing_support::ServeProcess server(data_.string(), {"--threads", "2", "--embed-dim", "32"},
                                       {"--audit-log", (tmp_.path() / "audit.jsonl").string()});
  ASSERT_NE(server.port(), 0);
  long left = uncovered();
  for (int i = 0; i < 300 && left != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = uncovered();
  }
  EXPECT_EQ(left, 0) << "segments still without vectors 30 s after the server started";
}

}  // namespace
}  // namespace attest
