// Token buckets, one per key, in 16 shards chosen by the key's hash, each behind its own mutex.
// A bucket stores its tokens at its last use; Acquire first refills it by elapsed time x rate (up
// to the burst). A bucket that has been idle long enough to be full again is indistinguishable
// from a new one, so the periodic sweep (per shard, every 10 s of clock time at most) forgets
// exactly those: memory is bounded by the keys active within one refill period.
#include "service/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"

namespace attest::service {
namespace {

constexpr size_t kShards = 16;
constexpr auto kSweepEvery = std::chrono::seconds(10);

using TimePoint = std::chrono::steady_clock::time_point;

double Seconds(TimePoint from, TimePoint to) {
  return to > from ? std::chrono::duration<double>(to - from).count() : 0.0;  // monotonic guard
}

}  // namespace

struct RateLimiter::Impl {
  struct Bucket {
    double tokens = 0;
    double rate = 0;
    double burst = 0;
    TimePoint last;
  };
  struct Shard {
    Mutex mu;
    std::unordered_map<std::string, Bucket> buckets GUARDED_BY(mu);
    TimePoint last_sweep GUARDED_BY(mu){};
  };
  RateLimit default_limit;
  Clock clock;
  std::vector<Shard> shards = std::vector<Shard>(kShards);

  TimePoint Now() const { return clock ? clock() : std::chrono::steady_clock::now(); }

  static void Sweep(Shard& s, TimePoint now) REQUIRES(s.mu) {
    for (auto it = s.buckets.begin(); it != s.buckets.end();) {
      const Bucket& b = it->second;
      bool full = b.rate <= 0 || b.tokens + Seconds(b.last, now) * b.rate >= b.burst;
      it = full ? s.buckets.erase(it) : std::next(it);
    }
    s.last_sweep = now;
  }
};

RateLimiter::RateLimiter(RateLimit default_limit, Clock clock) : impl_(std::make_unique<Impl>()) {
  impl_->default_limit = default_limit;
  impl_->clock = std::move(clock);
}

RateLimiter::~RateLimiter() = default;

RateLimiter::Decision RateLimiter::Acquire(const std::string& key, double cost) {
  return Acquire(key, impl_->default_limit, cost);
}

RateLimiter::Decision RateLimiter::Acquire(const std::string& key, const RateLimit& limit, double cost) {
  Decision d;
  double rate = std::isfinite(limit.rate_per_second) ? limit.rate_per_second : 0;
  if (rate <= 0) {
    d.remaining = std::numeric_limits<double>::infinity();
    return d;
  }
  double burst = (std::isfinite(limit.burst) && limit.burst > 0) ? limit.burst : std::max(1.0, rate);
  if (std::isnan(cost)) cost = 1;
  cost = std::clamp(cost, 0.0, burst);

  TimePoint now = impl_->Now();
  Impl::Shard& shard = impl_->shards[std::hash<std::string>{}(key) % kShards];
  MutexLock lock(shard.mu);
  if (now - shard.last_sweep >= kSweepEvery) Impl::Sweep(shard, now);
  auto [it, inserted] = shard.buckets.try_emplace(key);
  Impl::Bucket& b = it->second;
  if (inserted) {
    b.tokens = burst;
  } else {
    b.tokens = std::min(b.burst, b.tokens + Seconds(b.last, now) * b.rate);
    b.tokens = std::min(b.tokens, burst);  // the limit may have been lowered
  }
  b.rate = rate;
  b.burst = burst;
  if (now > b.last || inserted) b.last = now;
  if (b.tokens >= cost) {
    b.tokens -= cost;
    d.allowed = true;
  } else {
    d.allowed = false;
    d.retry_after_seconds = (cost - b.tokens) / rate;
  }
  d.remaining = b.tokens;
  return d;
}

}  // namespace attest::service
