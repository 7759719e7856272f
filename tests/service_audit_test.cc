// The audit log's bound (src/service/audit_log.h): while the file cannot be written, records are
// held up to max_queue (queued, being written, or claimed by requests in flight), further requests
// are refused at once instead of waiting or dropping, and when writes succeed again every record
// held is written, in order.
#include "service/audit_log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"

namespace attest::service {
namespace {

using testing_support::TempDir;

std::vector<std::string> Lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

AuditRecord Record(int i) {
  AuditRecord r;
  r.request_id = "r" + std::to_string(i);
  r.route = "/v1/search";
  r.outcome = "search";
  return r;
}

struct FailingLog {
  explicit FailingLog(const TempDir& dir, size_t max_queue) {
    AuditOptions opts;
    opts.path = dir.path() / "audit.jsonl";
    opts.max_queue = max_queue;
    opts.flush_interval_ms = 1;
    opts.fail_write = [this] { return fail.load(); };
    path = opts.path;
    auto opened = AuditLog::Open(opts);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (opened.ok()) log = std::move(opened).value();
  }
  // Waits until the writer has seen the failure (health says so).
  bool WaitUntilFailing() {
    for (int i = 0; i < 500; ++i) {
      if (!log->health().writing) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  std::atomic<bool> fail{true};
  std::filesystem::path path;
  std::unique_ptr<AuditLog> log;
};

// A disk outage made Append wait up to a second per record once the queue was full, and then queue
// past the limit anyway. Now the fifth record of a log bounded at four is refused at once, naming
// the file and the write error, and the four held are written when the disk recovers.
TEST(AuditLogBound, QueueIsBoundedDuringAnOutageAndDrainsOnRecovery) {
  TempDir dir;
  FailingLog f(dir, 4);
  ASSERT_TRUE(f.log);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(f.log->Append(Record(i)).ok()) << i;
  ASSERT_TRUE(f.WaitUntilFailing());

  const auto t0 = std::chrono::steady_clock::now();
  Status refused = f.log->Append(Record(4));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 0.2) << "a full log made the caller wait";
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find(f.path.string()), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("No space left"), std::string::npos) << refused.message();
  EXPECT_EQ(f.log->queued(), 4u);
  EXPECT_EQ(f.log->refused(), 1u);

  AuditHealth h = f.log->health();
  EXPECT_FALSE(h.writing);
  EXPECT_NE(h.error.find("No space left"), std::string::npos) << h.error;
  EXPECT_TRUE(h.full());
  EXPECT_EQ(h.held, 4u);
  EXPECT_EQ(h.limit, 4u);
  EXPECT_TRUE(Lines(f.path).empty());

  f.fail = false;  // the disk recovers
  ASSERT_TRUE(f.log->Flush().ok());
  std::vector<std::string> lines = Lines(f.path);
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(nlohmann::json::parse(lines[i])["request_id"], "r" + std::to_string(i));
  h = f.log->health();
  EXPECT_TRUE(h.writing);
  EXPECT_TRUE(h.error.empty());
  EXPECT_EQ(h.held, 0u);
  EXPECT_FALSE(h.full());
  EXPECT_TRUE(f.log->Append(Record(5)).ok());
  ASSERT_TRUE(f.log->Flush().ok());
  EXPECT_EQ(Lines(f.path).size(), 5u);
}

// Room claimed by requests in flight counts: a request refused before it runs is never audited
// late, and room given back unused (a request that failed) can be claimed again.
TEST(AuditLogBound, SlotsClaimRoomAndGiveItBackUnused) {
  TempDir dir;
  FailingLog f(dir, 3);
  ASSERT_TRUE(f.log);
  std::vector<AuditSlot> slots;
  for (int i = 0; i < 3; ++i) {
    auto slot = f.log->Reserve();
    ASSERT_TRUE(slot.ok()) << i;
    EXPECT_TRUE(slot->held());
    slots.push_back(std::move(slot).value());
  }
  EXPECT_EQ(f.log->queued(), 3u);
  EXPECT_TRUE(f.log->health().full());
  EXPECT_FALSE(f.log->Reserve().ok());

  slots.pop_back();  // a request that ended without a record
  EXPECT_EQ(f.log->queued(), 2u);
  auto again = f.log->Reserve();
  ASSERT_TRUE(again.ok());
  AuditSlot moved = std::move(again).value();
  slots.push_back(std::move(moved));
  EXPECT_FALSE(moved.held());  // NOLINT(bugprone-use-after-move): the moved-from slot claims nothing
  EXPECT_EQ(f.log->queued(), 3u);

  slots[0] = AuditSlot();  // assigning over a held slot gives its room back
  EXPECT_EQ(f.log->queued(), 2u);
  f.log->Append(std::move(slots[1]), Record(1));
  f.log->Append(std::move(slots[2]), Record(2));
  EXPECT_EQ(f.log->queued(), 2u);  // appended records keep the room their slots claimed
  f.fail = false;
  ASSERT_TRUE(f.log->Flush().ok());
  EXPECT_EQ(Lines(f.path).size(), 2u);
  EXPECT_EQ(f.log->queued(), 0u);
}

// Many request threads against a failing log: what is held never exceeds the bound, every claim
// is either refused or ends as a written record, and nothing is written twice.
TEST(AuditLogBound, ConcurrentRequestsNeverPassTheBoundAndLoseNothing) {
  TempDir dir;
  constexpr size_t kBound = 16;
  FailingLog f(dir, kBound);
  ASSERT_TRUE(f.log);
  std::atomic<int> accepted{0}, refused{0};
  std::atomic<size_t> most_held{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto slot = f.log->Reserve();
        if (!slot.ok()) {
          ++refused;
          continue;
        }
        size_t held = f.log->queued();
        size_t seen = most_held.load();
        while (held > seen && !most_held.compare_exchange_weak(seen, held)) {
        }
        if (i % 7 == 0) continue;  // the request failed: its room goes back
        f.log->Append(std::move(slot).value(), Record(t * 1000 + i));
        ++accepted;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(most_held.load(), kBound);
  EXPECT_GT(refused.load(), 0);
  EXPECT_LE(static_cast<size_t>(accepted.load()), kBound);
  f.fail = false;
  ASSERT_TRUE(f.log->Flush().ok());
  std::vector<std::string> lines = Lines(f.path);
  EXPECT_EQ(lines.size(), static_cast<size_t>(accepted.load()));
  std::set<std::string> ids;
  for (const auto& line : lines) ids.insert(nlohmann::json::parse(line)["request_id"].get<std::string>());
  EXPECT_EQ(ids.size(), lines.size());
}

}  // namespace
}  // namespace attest::service
