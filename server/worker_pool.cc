#include "server/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

namespace attest::http {

WorkerPool::WorkerPool(std::string name, unsigned workers, size_t queue, size_t per_key)
    : name_(std::move(name)), workers_(workers == 0 ? 1 : workers), queue_(queue), per_key_(per_key) {}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Start() {
  MutexLock lock(mu_);
  if (!threads_.empty() || stop_) return;
  threads_.reserve(workers_);
  for (unsigned i = 0; i < workers_; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
    std::string thread_name = (name_ + "-" + std::to_string(i)).substr(0, 15);
    pthread_setname_np(threads_.back().native_handle(), thread_name.c_str());
  }
}

Admission WorkerPool::TrySubmit(Task task, const std::string& key) {
  {
    MutexLock lock(mu_);
    if (stop_) return Admission::kStopped;
    if (waiting_ + active_ >= queue_ + workers_) return Admission::kPoolFull;
    auto it = queues_.find(key);
    if (it != queues_.end() && per_key_ > 0 && it->second.tasks.size() >= per_key_) return Admission::kKeyFull;
    if (it == queues_.end()) it = queues_.try_emplace(key).first;
    KeyQueue& q = it->second;
    if (q.tasks.empty()) ready_.emplace(std::max(now_, q.finish), ++arrivals_, key);
    q.tasks.push_back(std::move(task));
    ++waiting_;
  }
  cv_.NotifyOne();
  return Admission::kQueued;
}

size_t WorkerPool::waiting(const std::string& key) const {
  MutexLock lock(mu_);
  auto it = queues_.find(key);
  return it == queues_.end() ? 0 : it->second.tasks.size();
}

WorkerPool::Task WorkerPool::PopLocked() {
  auto node = ready_.extract(ready_.begin());  // reused below: no allocation per task
  auto& [tag, arrival, key] = node.value();
  if (tag > now_) {
    // The virtual time moves on: keys emptied at the old time no longer carry a finish tag.
    for (const std::string& k : recent_) {
      auto r = queues_.find(k);
      if (r != queues_.end() && r->second.tasks.empty() && r->second.finish <= tag) queues_.erase(r);
    }
    recent_.clear();
    now_ = tag;
  }
  KeyQueue& q = queues_.at(key);
  Task task = std::move(q.tasks.front());
  q.tasks.pop_front();
  --waiting_;
  q.finish = tag + 1;
  if (q.tasks.empty()) {
    recent_.push_back(key);
  } else {
    tag = q.finish;  // the key's next task waits for the keys that have not had this turn
    arrival = ++arrivals_;
    ready_.insert(std::move(node));
  }
  return task;
}

void WorkerPool::Shutdown() {
  std::vector<Task> dropped;
  std::vector<std::thread> threads;
  {
    MutexLock lock(mu_);
    stop_ = true;
    while (waiting_ > 0) dropped.push_back(PopLocked());
    threads.swap(threads_);
  }
  cv_.NotifyAll();
  dropped.clear();  // outside the lock: destroying an exchange answers it
  for (auto& t : threads) t.join();
}

void WorkerPool::WorkerLoop() {
  while (true) {
    Task task;
    {
      MutexLock lock(mu_);
      while (!stop_ && waiting_ == 0) cv_.Wait(lock);
      if (stop_) return;
      task = PopLocked();
      ++active_;
    }
    try {
      // By value: if the handler throws, the exchange is released during unwinding and answers 500
      // (unless the handler kept a copy).
      if (task.owned) {
        task.owned(std::move(task.exchange));
      } else {
        (*task.handler)(std::move(task.exchange));
      }
    } catch (const std::exception& e) {
      spdlog::error("http: handler threw on pool {}: {}", name_, e.what());
    } catch (...) {
      spdlog::error("http: handler threw a non-standard exception on pool {}", name_);
    }
    task = Task{};  // release the exchange and continuation before counting the worker free
    MutexLock lock(mu_);
    --active_;
  }
}

}  // namespace attest::http
