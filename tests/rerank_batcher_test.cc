// RerankBatcher with a fake pair scorer and a manual clock: full batches leave at once, partial ones
// when a window ends (the deadline can shorten it), interactive pairs go first and overdue bulk
// pairs before fresh interactive ones, a request may span batches, a failed call fails every
// request in it, shutdown drains, and many threads get exactly the scores of an unbatched oracle.
#include "rerank/rerank_batcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace attest {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A clock that moves only when told (Advance); SleepFor only records.
class ManualClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return base_ + offset_;
  }
  std::chrono::system_clock::time_point WallNow() const override { return std::chrono::system_clock::now(); }
  void SleepFor(std::chrono::milliseconds) const override {}
  void Advance(std::chrono::milliseconds d) {
    std::lock_guard<std::mutex> lock(mu_);
    offset_ += d;
  }

 private:
  mutable std::mutex mu_;
  const std::chrono::steady_clock::time_point base_ = std::chrono::steady_clock::now();
  std::chrono::milliseconds offset_{0};
};

// The oracle: a deterministic score of a pair, whatever batch it travels in.
double PairScore(std::string_view query, std::string_view passage) {
  return static_cast<double>(std::hash<std::string>{}(std::string(query) + "\x1f" + std::string(passage)) % 100000) /
         100000.0;
}

// Scores pairs with PairScore; records each call's pairs; can hold calls at a gate and fail calls.
class FakePairScorer final : public PairScorer {
 public:
  Result<std::vector<double>> ScorePairs(const std::vector<RerankPair>& pairs) const override {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<std::string> queries;
    for (const RerankPair& p : pairs) queries.emplace_back(p.query);
    calls_.push_back(queries);
    ++running_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    --running_;
    if (!failures_.empty()) {
      Status s = failures_.front();
      failures_.erase(failures_.begin());
      return s;
    }
    std::vector<double> out;
    for (const RerankPair& p : pairs) out.push_back(PairScore(p.query, p.passage));
    if (short_reply_) out.pop_back();
    return out;
  }
  std::string name() const override { return "fake-pairs"; }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void FailNext(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    failures_.push_back(std::move(s));
  }
  void set_short_reply(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    short_reply_ = on;
  }
  // Waits until `n` calls have started.
  bool WaitForCalls(size_t n, std::chrono::milliseconds limit = 5000ms) const {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return calls_.size() >= n; });
  }
  std::vector<std::vector<std::string>> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::vector<size_t> sizes() const {
    std::vector<size_t> out;
    for (const auto& c : calls()) out.push_back(c.size());
    return out;
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable std::vector<std::vector<std::string>> calls_;
  mutable std::vector<Status> failures_;
  mutable size_t running_ = 0;
  bool open_ = true;
  bool short_reply_ = false;
};

std::vector<std::string> Passages(const std::string& tag, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(tag + " passage " + std::to_string(i));
  return out;
}

void ExpectOracle(const std::string& query, const std::vector<std::string>& passages,
                  const Result<std::vector<double>>& got) {
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), passages.size());
  for (size_t i = 0; i < passages.size(); ++i) {
    EXPECT_DOUBLE_EQ((*got)[i], PairScore(query, passages[i])) << query << " passage " << i;
  }
}

// Set by each test's batcher: lets every waiting call finish (opens the backend, moves the clock
// an hour, wakes the batcher), so that a failed assertion does not leave a Caller waiting forever.
std::function<void()> g_unblock;

// A Score() call on its own thread.
class Caller {
 public:
  Caller(const RerankBatcher& b, std::string query, std::vector<std::string> passages,
         RerankPriority priority = RerankPriority::kInteractive,
         std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt)
      : query_(std::move(query)), passages_(std::move(passages)) {
    thread_ = std::thread([this, &b, priority, deadline] {
      RerankRequest r;
      r.query = query_;
      r.passages = &passages_;
      r.priority = priority;
      r.deadline = deadline;
      Result<std::vector<double>> got = b.Score(r);
      std::lock_guard<std::mutex> lock(mu_);
      result_ = std::move(got);
      cv_.notify_all();
    });
  }
  ~Caller() {
    if (!Get(10000ms) && g_unblock) g_unblock();
    thread_.join();
  }
  // The result once there is one within `limit`; nullopt if the call is still waiting.
  std::optional<Result<std::vector<double>>> Get(std::chrono::milliseconds limit = 5000ms) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, limit, [&] { return result_.has_value(); });
    return result_;
  }
  const std::string& query() const { return query_; }
  const std::vector<std::string>& passages() const { return passages_; }

 private:
  const std::string query_;
  const std::vector<std::string> passages_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Result<std::vector<double>>> result_;
  std::thread thread_;
};

// Polls until `pred` holds (the batcher's state moves on its own threads).
bool Eventually(const std::function<bool()>& pred, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return pred();
}

class RerankBatcherTest : public ::testing::Test {
 protected:
  std::unique_ptr<RerankBatcher> Make(size_t max_pairs, std::chrono::milliseconds window, size_t calls = 4) {
    RerankBatcherOptions o;
    o.max_pairs = max_pairs;
    o.window = window;
    o.max_concurrent_calls = calls;
    o.clock = &clock_;
    o.observer = [this](const RerankBatchEvent& e) {
      std::lock_guard<std::mutex> lock(events_mu_);
      events_.push_back(e);
    };
    auto b = RerankBatcher::Create(backend_, o);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok()) return nullptr;
    g_unblock = [this, batcher = b->get()] {
      backend_->Open();
      clock_.Advance(std::chrono::hours(2));
      batcher->Wake();
    };
    return std::move(b).value();
  }
  void TearDown() override { g_unblock = nullptr; }
  bool Waiting(const RerankBatcher& b, size_t pairs) {
    return Eventually([&] { return b.stats().waiting_pairs == pairs; });
  }

  ManualClock clock_;
  std::shared_ptr<FakePairScorer> backend_ = std::make_shared<FakePairScorer>();
  std::mutex events_mu_;
  std::vector<RerankBatchEvent> events_;
};

TEST_F(RerankBatcherTest, FullBatchLeavesWithoutWaitingForTheWindow) {
  auto b = Make(64, std::chrono::hours(1));
  Caller a(*b, "first question", Passages("a", 32));
  ASSERT_TRUE(Waiting(*b, 32));
  Caller c(*b, "second question", Passages("c", 32));
  auto ra = a.Get();
  auto rc = c.Get();
  ASSERT_TRUE(ra && rc) << "a full batch must leave although the clock never moves";
  ExpectOracle(a.query(), a.passages(), *ra);
  ExpectOracle(c.query(), c.passages(), *rc);
  EXPECT_THAT(backend_->sizes(), ElementsAre(64u));
  const RerankBatcherStats s = b->stats();
  EXPECT_EQ(s.calls, 1u);
  EXPECT_EQ(s.pairs, 64u);
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.batch_sizes.at(64), 1u);
  EXPECT_EQ(b->name(), "batched:fake-pairs");
}

TEST_F(RerankBatcherTest, PartialBatchLeavesWhenTheWindowEnds) {
  auto b = Make(64, 10ms);
  Caller a(*b, "q", Passages("a", 5));
  ASSERT_TRUE(Waiting(*b, 5));
  clock_.Advance(9ms);
  b->Wake();
  EXPECT_FALSE(a.Get(50ms)) << "left before its window ended";
  EXPECT_TRUE(backend_->calls().empty());
  clock_.Advance(1ms);
  b->Wake();
  auto r = a.Get();
  ASSERT_TRUE(r);
  ExpectOracle(a.query(), a.passages(), *r);
  EXPECT_THAT(backend_->sizes(), ElementsAre(5u));
  EXPECT_DOUBLE_EQ(b->stats().wait_ms_max, 10.0);
  std::lock_guard<std::mutex> lock(events_mu_);
  ASSERT_EQ(events_.size(), 2u);  // the call, then the request
  EXPECT_EQ(events_[0].kind, RerankBatchEvent::Kind::kCall);
  EXPECT_EQ(events_[0].pairs, 5u);
  EXPECT_EQ(events_[1].kind, RerankBatchEvent::Kind::kRequest);
  EXPECT_DOUBLE_EQ(events_[1].seconds, 0.010);
}

TEST_F(RerankBatcherTest, TheDeadlineShortensTheWindow) {
  auto b = Make(64, 1000ms);  // deadline_fraction 0.1 of 100 ms left: a 10 ms window
  Caller a(*b, "q", Passages("a", 3), RerankPriority::kInteractive, clock_.Now() + 100ms);
  ASSERT_TRUE(Waiting(*b, 3));
  clock_.Advance(9ms);
  b->Wake();
  EXPECT_FALSE(a.Get(50ms));
  clock_.Advance(1ms);
  b->Wake();
  ASSERT_TRUE(a.Get());

  // Past its deadline: no window at all.
  Caller late(*b, "q", Passages("late", 3), RerankPriority::kInteractive, clock_.Now() - 1ms);
  auto r = late.Get();
  ASSERT_TRUE(r);
  ExpectOracle(late.query(), late.passages(), *r);
}

TEST_F(RerankBatcherTest, ARequestSpansBatches) {
  auto b = Make(64, 10ms);
  Caller a(*b, "long question", Passages("a", 150));
  ASSERT_TRUE(backend_->WaitForCalls(2));
  ASSERT_TRUE(Waiting(*b, 22));
  clock_.Advance(10ms);
  b->Wake();
  auto r = a.Get();
  ASSERT_TRUE(r);
  ExpectOracle(a.query(), a.passages(), *r);
  EXPECT_THAT(backend_->sizes(), ElementsAre(64u, 64u, 22u));
}

TEST_F(RerankBatcherTest, InteractivePairsGoFirst) {
  auto b = Make(4, 10ms, /*calls=*/1);
  backend_->Close();
  Caller blocker(*b, "blocker", Passages("x", 4));  // holds the only call slot
  ASSERT_TRUE(backend_->WaitForCalls(1));
  Caller bulk(*b, "bulk", Passages("b", 3), RerankPriority::kBulk);
  ASSERT_TRUE(Waiting(*b, 3));
  Caller interactive(*b, "interactive", Passages("i", 3));
  ASSERT_TRUE(Waiting(*b, 6));
  backend_->Open();
  ASSERT_TRUE(backend_->WaitForCalls(2));
  ASSERT_TRUE(Waiting(*b, 2));
  clock_.Advance(10ms);
  b->Wake();
  for (Caller* c : {&blocker, &bulk, &interactive}) {
    auto r = c->Get();
    ASSERT_TRUE(r);
    ExpectOracle(c->query(), c->passages(), *r);
  }
  const auto calls = backend_->calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_THAT(calls[1], ElementsAre("interactive", "interactive", "interactive", "bulk"));
  EXPECT_THAT(calls[2], ElementsAre("bulk", "bulk"));
}

TEST_F(RerankBatcherTest, BulkPairsPastTheirWindowGoBeforeFreshInteractiveOnes) {
  auto b = Make(4, 10ms, /*calls=*/1);
  backend_->Close();
  Caller blocker(*b, "blocker", Passages("x", 4));
  ASSERT_TRUE(backend_->WaitForCalls(1));
  Caller bulk(*b, "bulk", Passages("b", 3), RerankPriority::kBulk);
  ASSERT_TRUE(Waiting(*b, 3));
  clock_.Advance(20ms);  // the bulk window has ended while the call slot was busy
  Caller interactive(*b, "interactive", Passages("i", 3));
  ASSERT_TRUE(Waiting(*b, 6));
  backend_->Open();
  ASSERT_TRUE(backend_->WaitForCalls(2));
  ASSERT_TRUE(Waiting(*b, 2));
  clock_.Advance(10ms);
  b->Wake();
  for (Caller* c : {&blocker, &bulk, &interactive}) ASSERT_TRUE(c->Get());
  const auto calls = backend_->calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_THAT(calls[1], ElementsAre("bulk", "bulk", "bulk", "interactive"));
}

TEST_F(RerankBatcherTest, AFailedCallFailsEveryRequestInIt) {
  auto b = Make(6, std::chrono::hours(1));
  backend_->FailNext(Status::Unavailable("model overloaded", 2));
  Caller a(*b, "qa", Passages("a", 3));
  ASSERT_TRUE(Waiting(*b, 3));
  Caller c(*b, "qc", Passages("c", 3));
  for (Caller* x : {&a, &c}) {
    auto r = x->Get();
    ASSERT_TRUE(r);
    ASSERT_FALSE(r->ok());
    EXPECT_EQ(r->status().code(), StatusCode::kUnavailable);
    EXPECT_THAT(r->status().message(), HasSubstr("model overloaded"));
    EXPECT_THAT(r->status().message(), HasSubstr("rerank batch of 6 pairs from 2 requests"));
  }
  EXPECT_EQ(b->stats().failed_calls, 1u);
  // The batcher goes on.
  Caller d(*b, "qd", Passages("d", 6));
  auto r = d.Get();
  ASSERT_TRUE(r);
  ExpectOracle(d.query(), d.passages(), *r);
}

TEST_F(RerankBatcherTest, AFailedBatchWithdrawsTheRestOfItsRequests) {
  auto b = Make(4, std::chrono::hours(1), /*calls=*/1);
  backend_->FailNext(Status::UpstreamError("boom"));
  Caller a(*b, "qa", Passages("a", 6));  // 4 in the failing call, 2 waiting behind it
  auto r = a.Get();
  ASSERT_TRUE(r) << "the waiting rest must be withdrawn, not left for a window of an hour";
  EXPECT_EQ(r->status().code(), StatusCode::kUpstreamError);
  EXPECT_EQ(b->stats().waiting_pairs, 0u);
  EXPECT_THAT(backend_->sizes(), ElementsAre(4u));
}

TEST_F(RerankBatcherTest, AWrongNumberOfScoresIsAnUpstreamError) {
  auto b = Make(3, std::chrono::hours(1));
  backend_->set_short_reply(true);
  Caller a(*b, "q", Passages("a", 3));
  auto r = a.Get();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r->status().message(), HasSubstr("returned 2 scores for 3 pairs"));
}

TEST_F(RerankBatcherTest, ShutdownDrainsWaitingRequestsAndRefusesNewOnes) {
  auto b = Make(64, std::chrono::hours(1));
  Caller a(*b, "q", Passages("a", 5));
  ASSERT_TRUE(Waiting(*b, 5));
  b->Shutdown();
  auto r = a.Get();
  ASSERT_TRUE(r);
  ExpectOracle(a.query(), a.passages(), *r);
  const std::vector<std::string> more = Passages("m", 2);
  auto refused = b->Score("q", more);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  b->Shutdown();  // idempotent
}

TEST_F(RerankBatcherTest, BlankPassagesAreNotSentAndScoreLowest) {
  auto b = Make(64, 0ms);
  const std::vector<std::string> passages = {"alpha", " ", "beta", ""};
  auto r = b->Score("q", passages);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const double lo = std::min(PairScore("q", "alpha"), PairScore("q", "beta"));
  EXPECT_THAT(*r, ElementsAre(PairScore("q", "alpha"), lo, PairScore("q", "beta"), lo));
  EXPECT_THAT(backend_->sizes(), ElementsAre(2u));
  EXPECT_THAT(*b->Score("q", {}), ElementsAre());
  EXPECT_THAT(*b->Score("q", {" "}), ElementsAre(0.0));
  EXPECT_EQ(b->Score("  ", passages).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(RerankBatcherTest, BadOptionsAreRefused) {
  RerankBatcherOptions o;
  o.max_pairs = 0;
  EXPECT_EQ(RerankBatcher::Create(backend_, o).status().code(), StatusCode::kInvalidArgument);
  o = {};
  o.deadline_fraction = 0;
  EXPECT_EQ(RerankBatcher::Create(backend_, o).status().code(), StatusCode::kInvalidArgument);
  o = {};
  o.max_concurrent_calls = 0;
  EXPECT_EQ(RerankBatcher::Create(backend_, o).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RerankBatcher::Create(nullptr, {}).status().code(), StatusCode::kInvalidArgument);
}

// Many threads with the real clock: every score is the oracle's, no call exceeds max_pairs, every
// pair is sent once.
TEST(RerankBatcherConcurrency, ManyThreadsGetTheOraclesScores) {
  auto backend = std::make_shared<FakePairScorer>();
  RerankBatcherOptions o;
  o.max_pairs = 64;
  o.window = 3ms;
  o.max_concurrent_calls = 3;
  auto b = RerankBatcher::Create(backend, o);
  ASSERT_TRUE(b.ok());
  constexpr int kThreads = 12, kRounds = 20;
  std::atomic<size_t> sent{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int round = 0; round < kRounds; ++round) {
        const std::string q = "question " + std::to_string(t) + "/" + std::to_string(round);
        const std::vector<std::string> p = Passages(q, 1 + rng() % 100);
        RerankRequest r;
        r.query = q;
        r.passages = &p;
        r.priority = t % 3 == 0 ? RerankPriority::kBulk : RerankPriority::kInteractive;
        auto got = (*b)->Score(r);
        sent += p.size();
        if (!got.ok() || got->size() != p.size()) {
          ++wrong;
          continue;
        }
        for (size_t i = 0; i < p.size(); ++i) wrong += (*got)[i] != PairScore(q, p[i]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  const RerankBatcherStats s = (*b)->stats();
  EXPECT_EQ(s.pairs, sent.load());
  EXPECT_EQ(s.requests, size_t{kThreads * kRounds});
  size_t total = 0;
  for (size_t n : backend->sizes()) {
    EXPECT_LE(n, 64u);
    total += n;
  }
  EXPECT_EQ(total, sent.load());
}

}  // namespace
}  // namespace attest
