#include "crawl/politeness.h"

#include <algorithm>
#include <cmath>

namespace attest {

using std::chrono::milliseconds;

PolitenessScheduler::PolitenessScheduler(PolitenessOptions options, const Clock& clock)
    : options_(options), clock_(clock) {}

milliseconds PolitenessScheduler::DelayLocked(const HostState& h) const {
  if (!options_.enabled) return milliseconds{0};
  milliseconds adaptive{0};
  if (h.ewma_ms) adaptive = milliseconds{static_cast<int64_t>(std::ceil(options_.latency_factor * *h.ewma_ms))};
  milliseconds d = std::max({options_.floor, h.crawl_delay, adaptive});
  return std::min(d, std::max(options_.max_delay, options_.floor));
}

bool PolitenessScheduler::TryStart(const std::string& host) {
  MutexLock lock(mu_);
  HostState& h = hosts_[host];
  const int limit = options_.enabled ? 1 : std::max(1, options_.max_parallel_per_host);
  if (h.in_flight >= limit) return false;
  if (clock_.Now() < h.next_allowed) return false;
  ++h.in_flight;
  return true;
}

void PolitenessScheduler::Finish(const std::string& host, const RequestOutcome& outcome) {
  MutexLock lock(mu_);
  HostState& h = hosts_[host];
  if (h.in_flight > 0) --h.in_flight;
  const auto now = clock_.Now();
  if (outcome.status != 0) {
    const double ms = static_cast<double>(outcome.latency.count());
    h.ewma_ms = h.ewma_ms ? options_.ewma_alpha * ms + (1 - options_.ewma_alpha) * *h.ewma_ms : ms;
  }
  auto next = now + DelayLocked(h);
  if (outcome.status == 429 || outcome.status == 503) {
    milliseconds wait;
    if (outcome.retry_after) {
      wait = std::chrono::duration_cast<milliseconds>(std::min(*outcome.retry_after, options_.max_retry_after));
    } else {
      const int shift = std::min(h.backoffs, 20);
      wait = std::min(options_.backoff_max, options_.backoff_base * (int64_t{1} << shift));
      ++h.backoffs;
    }
    next = std::max(next, now + wait);
  } else if (outcome.status != 0) {
    h.backoffs = 0;
  }
  h.next_allowed = std::max(h.next_allowed, next);
}

std::chrono::steady_clock::time_point PolitenessScheduler::NextAllowed(const std::string& host) const {
  MutexLock lock(mu_);
  auto it = hosts_.find(host);
  return it == hosts_.end() ? std::chrono::steady_clock::time_point{} : it->second.next_allowed;
}

bool PolitenessScheduler::InFlight(const std::string& host) const {
  MutexLock lock(mu_);
  auto it = hosts_.find(host);
  return it != hosts_.end() && it->second.in_flight > 0;
}

void PolitenessScheduler::SetCrawlDelay(const std::string& host, milliseconds delay) {
  MutexLock lock(mu_);
  hosts_[host].crawl_delay = std::min(delay, options_.max_delay);
}

void PolitenessScheduler::DeferUntil(const std::string& host, std::chrono::steady_clock::time_point at) {
  MutexLock lock(mu_);
  HostState& h = hosts_[host];
  h.next_allowed = std::max(h.next_allowed, at);
}

milliseconds PolitenessScheduler::CurrentDelay(const std::string& host) const {
  MutexLock lock(mu_);
  auto it = hosts_.find(host);
  return it == hosts_.end() ? DelayLocked(HostState{}) : DelayLocked(it->second);
}

}  // namespace attest
