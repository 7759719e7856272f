#include "attest/clock.h"

#include <thread>

namespace attest {
namespace {

class SystemClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() const override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point WallNow() const override { return std::chrono::system_clock::now(); }
  void SleepFor(std::chrono::milliseconds delay) const override {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
  }
};

}  // namespace

const Clock* RealClock() {
  static const SystemClock clock;
  return &clock;
}

}  // namespace attest
