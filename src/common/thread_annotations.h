#pragma once
// Clang thread-safety annotations and the annotated lock types the code uses instead of bare
// std::mutex / std::shared_mutex (docs/design.md, "Thread safety").
//
// With Clang and -Wthread-safety the compiler checks that every member marked GUARDED_BY(mu_) is
// touched only while mu_ is held and that every function marked REQUIRES(mu_) is called with it
// held; scripts/check_thread_safety runs that check in the test suite. With GCC every macro expands
// to nothing and the types below are thin inline wrappers over the standard ones, so behaviour and
// code generation are those of std::mutex, std::lock_guard / std::unique_lock and
// std::condition_variable.
//
// Usage:
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_) = 0;
//   void BumpLocked() REQUIRES(mu_);
//   ...
//   MutexLock lock(mu_);               // like std::unique_lock: Unlock()/Lock() in between allowed
//   while (count_ == 0) cv_.Wait(lock);  // CondVar waits take the MutexLock
//
// Predicates of condition waits are written as loops at the call site (as above), not as lambdas:
// the analysis does not see a lambda run under the caller's lock.

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define ATTEST_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ATTEST_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) ATTEST_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY ATTEST_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) ATTEST_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) ATTEST_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) ATTEST_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) ATTEST_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define REQUIRES(...) ATTEST_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) ATTEST_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) ATTEST_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) ATTEST_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) ATTEST_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) ATTEST_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) ATTEST_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) ATTEST_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) ATTEST_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) ATTEST_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) ATTEST_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) ATTEST_THREAD_ANNOTATION(assert_shared_capability(x))
#define RETURN_CAPABILITY(x) ATTEST_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS ATTEST_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace attest {

class CondVar;
class MutexLock;

// std::mutex as a capability.
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis the caller holds the lock (no run-time check).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds a Mutex for its scope, like std::lock_guard; Unlock() and Lock() release and retake it
// within the scope (like std::unique_lock), and a CondVar waits on it.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() { lock_.unlock(); }
  void Lock() ACQUIRE() { lock_.lock(); }

 private:
  friend class CondVar;
  std::unique_lock<std::mutex> lock_;
};

// std::condition_variable over a MutexLock. The lock is held again when a wait returns, so to the
// analysis a wait does not change what is held.
class CondVar {
 public:
  void Wait(MutexLock& lock) { cv_.wait(lock.lock_); }
  template <class Rep, class Period>
  std::cv_status WaitFor(MutexLock& lock, const std::chrono::duration<Rep, Period>& timeout) {
    return cv_.wait_for(lock.lock_, timeout);
  }
  template <class Clock, class Duration>
  std::cv_status WaitUntil(MutexLock& lock, const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv_.wait_until(lock.lock_, deadline);
  }
  void NotifyOne() noexcept { cv_.notify_one(); }
  void NotifyAll() noexcept { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace attest
