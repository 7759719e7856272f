// Clock: the time source and the sleeper of the core, an interface so that tests can substitute
// one (LevelDB's Env is the model). Engine::Open takes one through EngineOptions::clock; the model
// clients take it through their endpoint options. RealClock() is the process's clock.
//
// Thread-safety: implementations must allow concurrent calls.
#pragma once

#include <chrono>

namespace attest {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time, for durations and deadlines.
  virtual std::chrono::steady_clock::time_point Now() const = 0;
  // Wall-clock time, for dates (e.g. an HTTP-date in a Retry-After header).
  virtual std::chrono::system_clock::time_point WallNow() const = 0;
  // Blocks the calling thread for `delay` (a fake clock may only record it).
  virtual void SleepFor(std::chrono::milliseconds delay) const = 0;
};

// The real clock (std::chrono's clocks and std::this_thread::sleep_for). Never null; stateless.
const Clock* RealClock();

}  // namespace attest
