// A fixed pool of worker threads running submitted tasks in FIFO order. Used to run a query's
// vector leg while the calling thread runs its lexical leg, without creating a thread per query.
//
// Thread-safety: Submit() may be called from any thread. The destructor runs the queued tasks to
// completion and joins the workers.
#pragma once

#include <deque>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "common/thread_annotations.h"

namespace attest {

class TaskPool {
 public:
  explicit TaskPool(unsigned threads) {
    for (unsigned i = 0; i < std::max(1u, threads); ++i) workers_.emplace_back([this] { Loop(); });
  }
  ~TaskPool() {
    {
      MutexLock lock(mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    for (auto& t : workers_) t.join();
  }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  template <typename F>
  auto Submit(F&& f) -> std::future<decltype(f())> {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    std::future<R> fut = task->get_future();
    {
      MutexLock lock(mu_);
      queue_.emplace_back([task] { (*task)(); });
    }
    cv_.NotifyOne();
    return fut;
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> job;
      {
        MutexLock lock(mu_);
        while (!stop_ && queue_.empty()) cv_.Wait(lock);
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  Mutex mu_;
  CondVar cv_;
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace attest
