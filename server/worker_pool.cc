#include "server/worker_pool.h"

#include <pthread.h>

#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

namespace attest::http {

WorkerPool::WorkerPool(std::string name, unsigned workers, size_t queue)
    : name_(std::move(name)), workers_(workers == 0 ? 1 : workers), queue_(queue) {
  ring_.resize(queue_ + workers_);
}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!threads_.empty() || stop_) return;
  threads_.reserve(workers_);
  for (unsigned i = 0; i < workers_; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
    std::string thread_name = (name_ + "-" + std::to_string(i)).substr(0, 15);
    pthread_setname_np(threads_.back().native_handle(), thread_name.c_str());
  }
}

bool WorkerPool::TrySubmit(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ || count_ + active_ >= ring_.size()) return false;
    ring_[(head_ + count_) % ring_.size()] = std::move(task);
    ++count_;
  }
  cv_.notify_one();
  return true;
}

void WorkerPool::Shutdown() {
  std::vector<Task> dropped;
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    while (count_ > 0) {
      dropped.push_back(std::move(ring_[head_]));
      head_ = (head_ + 1) % ring_.size();
      --count_;
    }
    threads.swap(threads_);
  }
  cv_.notify_all();
  dropped.clear();  // outside the lock: destroying an exchange answers it
  for (auto& t : threads) t.join();
}

void WorkerPool::WorkerLoop() {
  while (true) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || count_ > 0; });
      if (stop_) return;
      task = std::move(ring_[head_]);
      head_ = (head_ + 1) % ring_.size();
      --count_;
      ++active_;
    }
    try {
      // By value: if the handler throws, the exchange is released during unwinding and answers 500
      // (unless the handler kept a copy).
      (*task.handler)(std::move(task.exchange));
    } catch (const std::exception& e) {
      spdlog::error("http: handler threw on pool {}: {}", name_, e.what());
    } catch (...) {
      spdlog::error("http: handler threw a non-standard exception on pool {}", name_);
    }
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
  }
}

}  // namespace attest::http
