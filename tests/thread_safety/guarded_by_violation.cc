// Fixture for scripts/check_thread_safety --expect-violation (CTest thread_safety_check_can_fail):
// code that breaks its locking contract, which the analysis must reject. Never built or linked.
#include "common/thread_annotations.h"

namespace attest {

class Counter {
 public:
  void Bump() { ++count_; }  // violation: writes count_ without holding mu_

  int Read() {
    MutexLock lock(mu_);
    return count_;
  }

 private:
  Mutex mu_;
  int count_ GUARDED_BY(mu_) = 0;
};

}  // namespace attest
