// Per-credential rate limits: a token bucket per key (credential id), refilled continuously at
// `rate_per_second` up to `burst`. Idle buckets are forgotten after a while, so memory is bounded
// by the number of active credentials.
//
// Thread-safety: Acquire() from any thread (sharded mutexes).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace attest::service {

struct RateLimit {
  double rate_per_second = 0;  // 0 = unlimited
  double burst = 0;            // bucket size; 0 = max(1, rate)
};

class RateLimiter {
 public:
  // The clock is injectable for tests; by default std::chrono::steady_clock (monotonic).
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit RateLimiter(RateLimit default_limit, Clock clock = {});
  ~RateLimiter();
  struct Decision {
    bool allowed = true;
    double retry_after_seconds = 0;  // when not allowed: until `cost` tokens are available
    double remaining = 0;            // tokens left; +infinity when the limit is unlimited
  };
  // `cost` above the burst is charged as the burst (admitted when the bucket is full rather than
  // never); negative costs count as 0, NaN as 1. A key's bucket follows the limit passed with it.
  Decision Acquire(const std::string& key, double cost = 1);
  Decision Acquire(const std::string& key, const RateLimit& limit, double cost = 1);
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attest::service
