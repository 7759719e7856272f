// `attest watch` black-box: the real binary brings the index in line, prints one line per change,
// is readable meanwhile by a read-only `attest search --data` process, refuses a second writer of
// the data directory, and stops cleanly on SIGINT.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/process.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::ChildProcess;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

bool WaitForOutput(ChildProcess& p, const std::string& needle, std::chrono::seconds limit = std::chrono::seconds(15)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    p.Poll();
    if (p.out().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(WatchCliTest, FollowsAFolderUntilInterrupted) {
  TempDir dir;
  const std::string data = dir.str("data");
  const fs::path docs = dir.path() / "docs";
  WriteFile(docs / "a.md", "# A\n\nword firstlight\n");
  ChildProcess watch({ATTEST_BINARY, "--data", data, "--embedder", "none", "watch", docs.string(), "--json"});
  ASSERT_TRUE(WaitForOutput(watch, "in line with 1 folder(s): 1 added")) << watch.out();

  WriteFile(docs / "sub" / "b.md", "# B\n\nword secondwind\n");
  ASSERT_TRUE(WaitForOutput(watch, R"("change":"added")")) << watch.out();
  ASSERT_TRUE(WaitForOutput(watch, R"("id":"sub/b.md")")) << watch.out();
  // Another process reads the same data directory while the watcher writes it.
  auto found = RunAttest({"--data", data, "search", "secondwind", "--json"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_NE(found.out.find("sub/b.md"), std::string::npos) << found.out;

  // A second writer of the data directory (another watcher) is refused, saying why.
  auto second = RunAttest({"--data", data, "--embedder", "none", "watch", docs.string()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("another attest process is writing"), std::string::npos) << second.err;

  fs::remove(docs / "a.md");
  ASSERT_TRUE(WaitForOutput(watch, R"("change":"deleted")")) << watch.out();
  auto gone = RunAttest({"--data", data, "search", "firstlight", "--json"});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_EQ(gone.out.find("a.md"), std::string::npos) << gone.out;

  watch.Kill(SIGINT);
  EXPECT_EQ(watch.Wait(), 0);
  watch.Poll();
  EXPECT_NE(watch.out().find("stopped"), std::string::npos) << watch.out();
  // Every change line is a JSON object naming the change, the id, the file and the lag.
  size_t lines = 0;
  for (size_t start = 0; start < watch.out().size();) {
    const size_t end = watch.out().find('\n', start);
    const std::string line = watch.out().substr(start, end - start);
    start = end == std::string::npos ? watch.out().size() : end + 1;
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << line;
    EXPECT_TRUE(j.contains("lag_ms") && j["lag_ms"].is_number()) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 2u) << watch.out();
}

// kill -9 right after a change's commit became durable (named fault point): the map already names
// the new id (it is written before the commit), so when the file is deleted while nobody watches,
// the next start deletes its document instead of leaving it behind for ever.
TEST(WatchCliTest, KilledRightAfterACommitLeavesNothingBehind) {
  TempDir dir;
  const std::string data = dir.str("data");
  const fs::path docs = dir.path() / "docs";
  fs::create_directories(docs);  // empty: the sync commits nothing, the first commit is the change's
  ::setenv("ATTEST_FAULT_KILL", "commit.after_catalog_commit@1", 1);
  ChildProcess watch({ATTEST_BINARY, "--data", data, "--embedder", "none", "watch", docs.string()});
  ::unsetenv("ATTEST_FAULT_KILL");
  ASSERT_TRUE(WaitForOutput(watch, "in line with 1 folder(s)")) << watch.out();
  WriteFile(docs / "x.md", "# X\n\nword orphanguard\n");
  EXPECT_EQ(watch.Wait(), -SIGKILL) << watch.out();
  auto committed = RunAttest({"--data", data, "search", "orphanguard"});
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
  ASSERT_NE(committed.out.find("x.md"), std::string::npos) << "the commit was durable before the kill: " << committed.out;

  fs::remove(docs / "x.md");  // while nobody watches
  ChildProcess again({ATTEST_BINARY, "--data", data, "--embedder", "none", "watch", docs.string()});
  ASSERT_TRUE(WaitForOutput(again, "in line with 1 folder(s): 0 added, 0 replaced, 1 deleted")) << again.out();
  again.Kill(SIGINT);
  EXPECT_EQ(again.Wait(), 0);
  auto gone = RunAttest({"--data", data, "search", "orphanguard"});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_EQ(gone.out.find("x.md"), std::string::npos) << gone.out;
}

TEST(WatchCliTest, BadArgumentsAreErrorsNamingThem) {
  TempDir dir;
  auto r = RunAttest({"--data", dir.str("data"), "watch", dir.str("nowhere")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
  fs::create_directories(dir.path() / "docs");
  auto label = RunAttest({"--data", dir.str("data"), "watch", dir.str("docs"), "--label", "top-secret"});
  EXPECT_EQ(label.exit_code, 2);
  EXPECT_NE(label.err.find("--label"), std::string::npos) << label.err;
  // serve --watch refuses to start on a folder that is not there, or a label that is not a level
  // (regression: a failed open crashed in the destructor of the half-made ServeWatch).
  auto serve = RunAttest({"--data", dir.str("data"), "serve", "--port", "0", "--watch", dir.str("nowhere")});
  EXPECT_EQ(serve.exit_code, 1);
  EXPECT_NE(serve.err.find("--watch"), std::string::npos) << serve.err;
  EXPECT_NE(serve.err.find("nowhere"), std::string::npos) << serve.err;
  auto serve_label = RunAttest({"--data", dir.str("data"), "serve", "--port", "0", "--watch", dir.str("docs"),
                                "--watch-label", "top-secret"});
  EXPECT_EQ(serve_label.exit_code, 1);
  EXPECT_NE(serve_label.err.find("--watch-label"), std::string::npos) << serve_label.err;
}

}  // namespace
}  // namespace attest
