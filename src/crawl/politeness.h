// Politeness: when the crawler may send the next request to a host (an origin).
//
// - At most one request in flight per host (politeness on).
// - After a response, the host waits delay = min(max_delay, max(floor, Crawl-delay,
//   latency_factor x EWMA of its response times)) before the next request starts: a slow host is
//   asked less often (an adaptive estimate of what it can bear), a fast one no faster than the floor.
// - 429 and 503 push the host's next allowed time by Retry-After (seconds or an HTTP-date, capped
//   at max_retry_after), or, without one, by a bounded exponential back-off (backoff_base x 2^n,
//   at most backoff_max) that resets on the next success.
// - Politeness off (benchmarks on loopback): no delay, at most max_parallel_per_host requests at
//   once to a host.
//
// Time comes from the injected Clock (monotonic Now()), so tests drive it with a fake clock.
// Thread-safety: all methods may be called concurrently (one internal mutex).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "attest/clock.h"
#include "common/thread_annotations.h"

namespace attest {

struct PolitenessOptions {
  bool enabled = true;
  std::chrono::milliseconds floor{1000};          // minimum delay between requests to one host
  double latency_factor = 4.0;                    // delay >= factor x EWMA(response time)
  double ewma_alpha = 0.3;                        // weight of the newest response time
  std::chrono::milliseconds max_delay{60000};     // the adaptive delay and Crawl-delay are capped here
  std::chrono::milliseconds backoff_base{2000};   // 429/503 without Retry-After: base x 2^n ...
  std::chrono::milliseconds backoff_max{300000};  // ... at most this
  std::chrono::seconds max_retry_after{3600};     // a longer Retry-After is capped here
  int max_parallel_per_host = 8;                  // politeness off: requests in flight per host
};

// What a finished request tells the scheduler.
struct RequestOutcome {
  std::chrono::milliseconds latency{0};
  int status = 0;                                  // 0 = network error
  std::optional<std::chrono::seconds> retry_after; // parsed Retry-After of a 429/503
};

class PolitenessScheduler {
 public:
  PolitenessScheduler(PolitenessOptions options, const Clock& clock);

  // Starts a request to `host` if allowed now (nothing in flight, next allowed time reached);
  // false otherwise. Every true must be followed by one Finish().
  bool TryStart(const std::string& host);
  void Finish(const std::string& host, const RequestOutcome& outcome);

  // When `host` may next start a request (now or earlier when it may start at once; only the
  // time, not the in-flight rule).
  std::chrono::steady_clock::time_point NextAllowed(const std::string& host) const;
  bool InFlight(const std::string& host) const;
  // Crawl-delay from the host's robots.txt (capped at max_delay).
  void SetCrawlDelay(const std::string& host, std::chrono::milliseconds delay);
  // Pushes the host's next allowed time to at least `at` (restored from the frontier).
  void DeferUntil(const std::string& host, std::chrono::steady_clock::time_point at);
  // The delay the host is under now (without back-off): max(floor, Crawl-delay, adaptive), capped.
  std::chrono::milliseconds CurrentDelay(const std::string& host) const;

  const PolitenessOptions& options() const { return options_; }

 private:
  struct HostState {
    int in_flight = 0;
    std::chrono::steady_clock::time_point next_allowed{};
    std::optional<double> ewma_ms;
    std::chrono::milliseconds crawl_delay{0};
    int backoffs = 0;  // consecutive 429/503 without Retry-After
  };
  std::chrono::milliseconds DelayLocked(const HostState& h) const;

  const PolitenessOptions options_;
  const Clock& clock_;
  mutable Mutex mu_;
  std::map<std::string, HostState, std::less<>> hosts_ GUARDED_BY(mu_);
};

}  // namespace attest
