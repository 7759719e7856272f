// Tests of the server's operational pieces: Prometheus metrics, result caches, the audit log and
// the rate limiter (src/service/{metrics,result_cache,audit_log,rate_limiter}.h).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "common/file_util.h"
#include "service/audit_log.h"
#include "service/metrics.h"
#include "service/rate_limiter.h"
#include "service/result_cache.h"

namespace attest::service {
namespace {

using namespace std::chrono_literals;

// ---- metrics ------------------------------------------------------------------------------

TEST(Metrics, RendersExactExpositionText) {
  Registry r;
  r.GetCounter("attest_requests_total", "Requests by route and code.", {{"route", "/v1/answer"}, {"code", "200"}})
      ->Add(3);
  r.GetCounter("attest_requests_total", "ignored: help is stored once", {{"route", "a\"b\\c\nd"}, {"code", "200"}})
      ->Add();
  r.GetGauge("attest_inflight", "Requests in flight.\nNow \\ here.")->Set(2.5);
  Histogram* h = r.GetHistogram("attest_stage_seconds", "Stage latency.", {{"stage", "retrieve"}}, {1, 0.1});
  for (double v : {0.05, 0.1, 0.5, 2.0}) h->Observe(v);

  const std::string expected =
      "# HELP attest_inflight Requests in flight.\\nNow \\\\ here.\n"
      "# TYPE attest_inflight gauge\n"
      "attest_inflight 2.5\n"
      "# HELP attest_requests_total Requests by route and code.\n"
      "# TYPE attest_requests_total counter\n"
      "attest_requests_total{code=\"200\",route=\"/v1/answer\"} 3\n"
      "attest_requests_total{code=\"200\",route=\"a\\\"b\\\\c\\nd\"} 1\n"
      "# HELP attest_stage_seconds Stage latency.\n"
      "# TYPE attest_stage_seconds histogram\n"
      "attest_stage_seconds_bucket{stage=\"retrieve\",le=\"0.1\"} 2\n"
      "attest_stage_seconds_bucket{stage=\"retrieve\",le=\"1\"} 3\n"
      "attest_stage_seconds_bucket{stage=\"retrieve\",le=\"+Inf\"} 4\n"
      "attest_stage_seconds_sum{stage=\"retrieve\"} 2.65\n"
      "attest_stage_seconds_count{stage=\"retrieve\"} 4\n";
  EXPECT_EQ(r.Render(), expected);
}

TEST(Metrics, UnlabelledHistogramAndEmptyRegistry) {
  Registry r;
  EXPECT_EQ(r.Render(), "");
  r.GetHistogram("h", "H.", {}, {0.5})->Observe(-1);
  EXPECT_EQ(r.Render(),
            "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum -1\nh_count 1\n");
}

TEST(Metrics, HistogramBucketMath) {
  Histogram h({1, 0.5, 1, std::numeric_limits<double>::infinity(), 0.25});  // unsorted, duplicate, +Inf
  for (double v : {0.0, 0.25, 0.3, 0.5, 0.75, 1.0, 1.5, 100.0}) h.Observe(v);
  h.Observe(std::nan(""));  // ignored
  Histogram::Snapshot s = h.Read();
  ASSERT_EQ(s.bounds, (std::vector<double>{0.25, 0.5, 1}));
  // le is inclusive: 0.25 in the first bucket, 0.5 in the second, 1.0 in the third.
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{2, 4, 6, 8}));
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.sum, 104.3);

  std::vector<double> lb = LatencyBuckets();
  EXPECT_TRUE(std::is_sorted(lb.begin(), lb.end()));
  EXPECT_DOUBLE_EQ(lb.front(), 0.0005);
  EXPECT_DOUBLE_EQ(lb.back(), 10);
}

TEST(Metrics, CounterAndGaugeValues) {
  Counter c;
  c.Add(0.25);
  c.Add(-5);  // counters never go down
  c.Add(2);
  EXPECT_DOUBLE_EQ(c.value(), 2.25);
  Gauge g;
  g.Set(10);
  g.Add(-12.5);
  EXPECT_DOUBLE_EQ(g.value(), -2.5);
}

TEST(Metrics, ConcurrentUpdatesSumExactly) {
  Registry r;
  constexpr int kThreads = 4, kPerThread = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&r, t] {
      Counter* c = r.GetCounter("c_total", "C.", {{"k", "v"}});
      Gauge* g = r.GetGauge("g", "G.");
      Histogram* h = r.GetHistogram("h_seconds", "H.", {}, {0.5});
      for (int i = 0; i < kPerThread; ++i) {
        c->Add();
        g->Add(i % 2 ? 1 : -1);
        h->Observe(i % 2 ? 0.25 : 1.0);
        if (i % 1000 == 0) r.GetCounter("c_total", "C.", {{"k", "t" + std::to_string(t)}})->Add();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_DOUBLE_EQ(r.GetCounter("c_total", "C.", {{"k", "v"}})->value(), kThreads * kPerThread);
  EXPECT_DOUBLE_EQ(r.GetGauge("g", "G.")->value(), 0);
  Histogram::Snapshot s = r.GetHistogram("h_seconds", "H.", {}, {0.5})->Read();
  EXPECT_EQ(s.count, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(s.cumulative[0], uint64_t{kThreads * kPerThread / 2});
  EXPECT_DOUBLE_EQ(s.sum, kThreads * kPerThread / 2 * 1.25);
  EXPECT_DOUBLE_EQ(r.GetCounter("c_total", "C.", {{"k", "t0"}})->value(), kPerThread / 1000);
}

TEST(Metrics, MisuseReturnsUsableSeriesWithoutCorruptingTheText) {
  Registry r;
  Counter* c = r.GetCounter("x_total", "X.", {{"a", "1"}});
  c->Add(1);
  // Same family, another type: detached (works, not exported), same object on every call.
  Gauge* g = r.GetGauge("x_total", "X.", {{"a", "1"}});
  ASSERT_NE(g, nullptr);
  g->Set(7);
  EXPECT_EQ(g, r.GetGauge("x_total", "X.", {{"a", "1"}}));
  // Invalid names: detached.
  r.GetCounter("bad name", "B.")->Add(1);
  r.GetCounter("ok_total", "O.", {{"__reserved", "1"}})->Add(1);
  r.GetHistogram("lat", "L.", {{"le", "1"}})->Observe(1);
  // Different label names for the same family: exported anyway.
  r.GetCounter("x_total", "X.", {{"b", "2"}})->Add(2);
  // Different bounds: the family's first ones are used.
  r.GetHistogram("y", "Y.", {}, {1})->Observe(0.5);
  Histogram* y2 = r.GetHistogram("y", "Y.", {{"s", "2"}}, {5, 6});
  EXPECT_EQ(y2->Read().bounds, std::vector<double>{1});

  std::string text = r.Render();
  EXPECT_EQ(text.find("bad"), std::string::npos) << text;
  EXPECT_EQ(text.find("__reserved"), std::string::npos) << text;
  EXPECT_EQ(text.find("lat"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 7\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE x_total counter\nx_total{a=\"1\"} 1\nx_total{b=\"2\"} 2\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("# TYPE x_total gauge"), std::string::npos);
}

// ---- caches -------------------------------------------------------------------------------

TEST(LruCache, EvictsLeastRecentlyUsedByBytes) {
  LruCache cache(100, 0ms, 1);
  std::string v(30, 'v');  // each entry charges 2 + 30 = 32 bytes
  cache.Put("ka", v);
  cache.Put("kb", v);
  cache.Put("kc", v);
  ASSERT_TRUE(cache.Get("ka").has_value());  // ka is now the most recent
  cache.Put("kd", v);                          // 128 > 100: evicts kb
  EXPECT_FALSE(cache.Get("kb").has_value());
  EXPECT_EQ(cache.Get("ka"), v);
  EXPECT_TRUE(cache.Get("kc").has_value());
  EXPECT_TRUE(cache.Get("kd").has_value());
  CacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.bytes, 96u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.inserts, 4u);

  cache.Put("big", std::string(200, 'x'));  // larger than the whole budget: not stored
  EXPECT_FALSE(cache.Get("big").has_value());
  EXPECT_EQ(cache.stats().entries, 3u);
  cache.Put("ka", std::string(60, 'y'));  // replacing an entry re-charges it: 62 + 32 + 32 > 100
  EXPECT_LE(cache.stats().bytes, 100u);
  EXPECT_EQ(cache.Get("ka"), std::string(60, 'y'));
}

TEST(LruCache, EntriesExpireAfterTtl) {
  LruCache cache(1 << 20, 50ms, 4);
  cache.Put("k", "v");
  EXPECT_EQ(cache.Get("k"), "v");
  std::this_thread::sleep_for(120ms);
  EXPECT_FALSE(cache.Get("k").has_value());
  CacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, 0u);
}

TEST(LruCache, StatsCountHitsMissesAndInvalidations) {
  LruCache cache(1 << 20, 0ms);
  for (int i = 0; i < 10; ++i) cache.Put("k" + std::to_string(i), "value");
  for (int i = 0; i < 15; ++i) (void)cache.Get("k" + std::to_string(i));
  cache.Erase("k1");
  cache.Erase("missing");
  CacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 10u);
  EXPECT_EQ(s.misses, 5u);
  EXPECT_EQ(s.inserts, 10u);
  EXPECT_EQ(s.invalidations, 1u);
  EXPECT_EQ(s.entries, 9u);
  EXPECT_EQ(s.bytes, 9u * 7);
  cache.Clear();
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(cache.stats().invalidations, 10u);
}

TEST(AnswerCache, InvalidatesByChunkAndByAnswerId) {
  AnswerCache cache(1 << 20, 0ms);
  cache.Put("q1", "answer one", {1, 2}, "A1");
  cache.Put("q2", "answer two", {2, 3, 3}, "A2");
  cache.Put("q3", "answer three", {4}, "A3");
  EXPECT_EQ(cache.InvalidateChunks({2, 99}), 2u);
  EXPECT_FALSE(cache.Get("q1").has_value());
  EXPECT_FALSE(cache.Get("q2").has_value());
  EXPECT_EQ(cache.Get("q3"), "answer three");
  EXPECT_EQ(cache.InvalidateChunks({1, 3}), 0u);

  EXPECT_FALSE(cache.Flagged("A3"));
  EXPECT_TRUE(cache.InvalidateAnswer("A3"));
  EXPECT_TRUE(cache.Flagged("A3"));
  EXPECT_FALSE(cache.Get("q3").has_value());
  cache.Put("q3", "answer three", {4}, "A3");  // a flagged answer is never cached again
  EXPECT_FALSE(cache.Get("q3").has_value());
  EXPECT_FALSE(cache.InvalidateAnswer("A3"));
  EXPECT_FALSE(cache.InvalidateAnswer("never-cached"));
  cache.Put("q4", "x", {}, "never-cached");  // flagged before it was ever cached
  EXPECT_FALSE(cache.Get("q4").has_value());
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(AnswerCache, ReplacedAndEvictedEntriesLeaveNoStaleIndex) {
  AnswerCache cache(1 << 20, 0ms);
  cache.Put("q", "old", {1}, "A1");
  cache.Put("q", "new", {2}, "A2");  // same key, new citations
  EXPECT_EQ(cache.InvalidateChunks({1}), 0u);
  EXPECT_FALSE(cache.InvalidateAnswer("A1"));
  EXPECT_EQ(cache.Get("q"), "new");
  EXPECT_EQ(cache.InvalidateChunks({2}), 1u);

  AnswerCache small(200, 0ms);  // room for two entries of ~90 bytes
  for (int i = 0; i < 5; ++i) small.Put("key" + std::to_string(i), std::string(80, 'a'), {uint64_t(i)}, "id" + std::to_string(i));
  EXPECT_LE(small.stats().bytes, 200u);
  EXPECT_EQ(small.stats().evictions, 3u);
  EXPECT_EQ(small.InvalidateChunks({0, 1, 2}), 0u);
  EXPECT_EQ(small.InvalidateChunks({3, 4}), 2u);
}

TEST(AnswerCache, FlaggedIdsAreBounded) {
  AnswerCache cache(1 << 20, 0ms);
  for (int i = 0; i <= 100000; ++i) (void)cache.InvalidateAnswer("id" + std::to_string(i));
  EXPECT_FALSE(cache.Flagged("id0"));  // the oldest is forgotten
  EXPECT_TRUE(cache.Flagged("id1"));
  EXPECT_TRUE(cache.Flagged("id100000"));
}

TEST(Caches, ConcurrentUseStaysWithinBudget) {
  constexpr size_t kBudget = 64 * 1024;
  LruCache lru(kBudget, 0ms, 4);
  AnswerCache answers(kBudget, 0ms);
  std::atomic<bool> over_budget{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 20000; ++i) {
        std::string key = "k" + std::to_string(rng() % 500);
        switch (rng() % 6) {
          case 0: lru.Put(key, std::string(rng() % 600, 'v')); break;
          case 1: lru.Erase(key); break;
          case 2: answers.Put(key, std::string(rng() % 600, 'a'), {rng() % 50, rng() % 50}, "id" + key); break;
          case 3: (void)answers.InvalidateChunks({rng() % 50}); break;
          case 4: if (rng() % 20 == 0) (void)answers.InvalidateAnswer("id" + key); break;
          default: (void)lru.Get(key); (void)answers.Get(key);
        }
        if (i % 1000 == 0 && (lru.stats().bytes > kBudget || answers.stats().bytes > kBudget)) over_budget = true;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(over_budget.load());
  EXPECT_LE(lru.stats().bytes, kBudget);
  EXPECT_LE(answers.stats().bytes, kBudget);
  EXPECT_GT(lru.stats().hits + answers.stats().hits, 0u);
}

// ---- audit log ----------------------------------------------------------------------------

std::vector<std::string> ReadLines(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

AuditRecord MakeRecord(int i) {
  AuditRecord r;
  r.request_id = "r" + std::to_string(i);
  r.unix_ms = 1714566896789 + i;  // 2024-05-01T12:34:56.789Z
  r.route = "/v1/answer";
  r.user = "u1";
  r.tenant = "t1";
  r.credential_id = "key1";
  r.groups = {"eng", "ops"};
  r.chunks_given = {10, 11, 12};
  r.chunks_cited = {11};
  r.blocked_citations = {"c99"};
  r.outcome = "answer";
  r.snapshot = 42;
  r.answer_id = "ans" + std::to_string(i);
  return r;
}

TEST(AuditLog, WritesIdOnlyJsonLines) {
  ScopedTempDir dir("audit");
  std::atomic<size_t> written_cb{0};
  AuditOptions opts;
  opts.path = dir.path() / "sub" / "audit.jsonl";
  opts.on_written = [&](size_t n) { written_cb += n; };
  auto log = AuditLog::Open(opts);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*log)->Append(MakeRecord(i)).ok());
  ASSERT_TRUE((*log)->Flush().ok());
  EXPECT_EQ((*log)->written(), 3u);
  EXPECT_EQ(written_cb.load(), 3u);
  EXPECT_EQ((*log)->failures(), 0u);

  struct stat st{};
  ASSERT_EQ(::stat(opts.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);

  std::vector<std::string> lines = ReadLines(opts.path);
  ASSERT_EQ(lines.size(), 3u);
  const std::vector<std::string> keys = {"request_id", "ts", "route", "user", "tenant", "credential_id", "groups",
                                         "clearance",
                                         "chunks_given", "chunks_cited", "blocked_citations", "outcome", "snapshot",
                                         "answer_id"};
  for (int i = 0; i < 3; ++i) {
    auto j = nlohmann::ordered_json::parse(lines[i]);
    std::vector<std::string> got;
    for (auto it = j.begin(); it != j.end(); ++it) got.push_back(it.key());
    EXPECT_EQ(got, keys);
    EXPECT_EQ(j["request_id"], "r" + std::to_string(i));
    EXPECT_EQ(j["chunks_given"], (std::vector<uint64_t>{10, 11, 12}));
    EXPECT_EQ(j["chunks_cited"], (std::vector<uint64_t>{11}));
    EXPECT_EQ(j["groups"], (std::vector<std::string>{"eng", "ops"}));
    EXPECT_EQ(j["snapshot"], 42);
  }
  EXPECT_EQ(nlohmann::json::parse(lines[0])["ts"], "2024-05-01T12:34:56.789Z");
}

TEST(AuditLog, InvalidUtf8StaysValidJson) {
  AuditRecord r;
  r.user = std::string("bad\xff\xfe");
  r.unix_ms = -1;
  std::string line = AuditRecordToJson(r);
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["ts"], "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(AuditLog, FailedWritesAreRetriedNotLost) {
  ScopedTempDir dir("audit");
  std::atomic<bool> fail{true};
  std::atomic<int> failure_calls{0};
  AuditOptions opts;
  opts.path = dir.path() / "audit.jsonl";
  opts.flush_interval_ms = 5;
  opts.fail_write = [&] { return fail.load(); };
  opts.on_failure = [&](const std::string& e) {
    EXPECT_NE(e.find("No space left"), std::string::npos) << e;
    ++failure_calls;
  };
  auto log = AuditLog::Open(opts);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*log)->Append(MakeRecord(i)).ok());
  Status st = (*log)->Flush();
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_GE((*log)->failures(), 1u);
  EXPECT_GE(failure_calls.load(), 1);
  EXPECT_EQ((*log)->written(), 0u);
  EXPECT_EQ((*log)->queued(), 5u);
  EXPECT_TRUE(ReadLines(opts.path).empty());

  for (int i = 5; i < 8; ++i) ASSERT_TRUE((*log)->Append(MakeRecord(i)).ok());  // more during the outage
  fail = false;
  ASSERT_TRUE((*log)->Flush().ok());
  EXPECT_EQ((*log)->written(), 8u);
  EXPECT_EQ((*log)->queued(), 0u);
  std::vector<std::string> lines = ReadLines(opts.path);
  ASSERT_EQ(lines.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(nlohmann::json::parse(lines[i])["request_id"], "r" + std::to_string(i));
}

TEST(AuditLog, DestructorWritesWhatIsQueued) {
  ScopedTempDir dir("audit");
  AuditOptions opts;
  opts.path = dir.path() / "audit.jsonl";
  opts.flush_interval_ms = 10000;  // only the shutdown writes
  {
    auto log = AuditLog::Open(opts);
    ASSERT_TRUE(log.ok());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE((*log)->Append(MakeRecord(i)).ok());
  }
  EXPECT_EQ(ReadLines(opts.path).size(), 100u);
  // Reopening appends.
  auto log = AuditLog::Open(opts);
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(MakeRecord(100)).ok());
  ASSERT_TRUE((*log)->Flush().ok());
  EXPECT_EQ(ReadLines(opts.path).size(), 101u);
}

TEST(AuditLog, OpenRejectsBadPaths) {
  ScopedTempDir dir("audit");
  std::filesystem::create_directories(dir.path());
  AuditOptions opts;
  EXPECT_EQ(AuditLog::Open(opts).status().code(), StatusCode::kInvalidArgument);
  opts.path = dir.path();  // a directory
  EXPECT_FALSE(AuditLog::Open(opts).ok());
}

// ---- rate limiter -------------------------------------------------------------------------

struct FakeClock {
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::time_point(std::chrono::hours(1));
  void Advance(double seconds) {
    now += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
};

TEST(RateLimiter, BurstThenDenialThenRefill) {
  FakeClock clock;
  RateLimiter limiter({/*rate_per_second=*/2, /*burst=*/3}, [&] { return clock.now; });
  for (int i = 0; i < 3; ++i) {
    auto d = limiter.Acquire("key-a");
    EXPECT_TRUE(d.allowed) << i;
    EXPECT_DOUBLE_EQ(d.remaining, 2 - i);
  }
  auto denied = limiter.Acquire("key-a");
  EXPECT_FALSE(denied.allowed);
  EXPECT_NEAR(denied.retry_after_seconds, 0.5, 1e-9);
  EXPECT_TRUE(limiter.Acquire("key-b").allowed);  // independent key

  clock.Advance(0.25);
  denied = limiter.Acquire("key-a");
  EXPECT_FALSE(denied.allowed);
  EXPECT_NEAR(denied.retry_after_seconds, 0.25, 1e-6);
  clock.Advance(0.25);
  EXPECT_TRUE(limiter.Acquire("key-a").allowed);
  EXPECT_FALSE(limiter.Acquire("key-a").allowed);

  clock.Advance(1000);  // refill is capped at the burst
  int allowed = 0;
  for (int i = 0; i < 10; ++i) allowed += limiter.Acquire("key-a").allowed ? 1 : 0;
  EXPECT_EQ(allowed, 3);
}

TEST(RateLimiter, UnlimitedPerCallLimitsAndCosts) {
  FakeClock clock;
  RateLimiter unlimited({0, 0}, [&] { return clock.now; });
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(unlimited.Acquire("k").allowed);

  RateLimiter limiter({1, 0}, [&] { return clock.now; });  // burst 0 -> max(1, rate) = 1
  EXPECT_TRUE(limiter.Acquire("k").allowed);
  EXPECT_FALSE(limiter.Acquire("k").allowed);
  RateLimit generous{10, 10};
  EXPECT_TRUE(limiter.Acquire("admin", generous, 5).allowed);
  EXPECT_TRUE(limiter.Acquire("admin", generous, 5).allowed);
  auto d = limiter.Acquire("admin", generous, 5);
  EXPECT_FALSE(d.allowed);
  EXPECT_NEAR(d.retry_after_seconds, 0.5, 1e-9);
  clock.Advance(1);
  EXPECT_TRUE(limiter.Acquire("admin", generous, 50).allowed);  // cost capped at the burst
}

TEST(RateLimiter, RealClockRefills) {
  RateLimiter limiter({50, 1});
  EXPECT_TRUE(limiter.Acquire("k").allowed);
  auto d = limiter.Acquire("k");
  ASSERT_FALSE(d.allowed);
  EXPECT_GT(d.retry_after_seconds, 0);
  EXPECT_LE(d.retry_after_seconds, 0.02 + 1e-9);
  std::this_thread::sleep_for(std::chrono::duration<double>(d.retry_after_seconds + 0.01));
  EXPECT_TRUE(limiter.Acquire("k").allowed);
}

TEST(RateLimiter, ConcurrentAcquiresNeverExceedTheBurst) {
  FakeClock clock;  // frozen: no refill
  RateLimiter limiter({1, 100}, [&] { return clock.now; });
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) allowed += limiter.Acquire("shared").allowed ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(allowed.load(), 100);
}

}  // namespace
}  // namespace attest::service
