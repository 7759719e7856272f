// FakeClock: a Clock for tests. Now() and WallNow() are the real clocks shifted by what SleepFor()
// was asked to sleep (nothing blocks); every requested delay is recorded, so tests of retries and
// backoff run at full speed and can assert on the delays.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "attest/clock.h"

namespace attest::testing_support {

class FakeClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return std::chrono::steady_clock::now() + slept_;
  }
  std::chrono::system_clock::time_point WallNow() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return std::chrono::system_clock::now() + slept_;
  }
  void SleepFor(std::chrono::milliseconds delay) const override {
    std::lock_guard<std::mutex> lock(mu_);
    delays_ms_.push_back(delay.count());
    slept_ += delay;
  }
  // The delays asked for, oldest first.
  std::vector<int64_t> delays_ms() const {
    std::lock_guard<std::mutex> lock(mu_);
    return delays_ms_;
  }

 private:
  mutable std::mutex mu_;
  mutable std::vector<int64_t> delays_ms_;          // guarded by mu_
  mutable std::chrono::milliseconds slept_{0};      // guarded by mu_
};

}  // namespace attest::testing_support
