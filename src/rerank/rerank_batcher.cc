#include "rerank/rerank_batcher.h"

#include <algorithm>
#include <limits>

namespace attest {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

constexpr size_t kMaxPairs = 1024;
constexpr size_t kMaxCalls = 64;

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

double Ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

Status ValidateOptions(const RerankBatcherOptions& o) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("rerank batcher: " + m); };
  if (o.max_pairs < 1 || o.max_pairs > kMaxPairs) {
    return bad("max_pairs must be in 1.." + std::to_string(kMaxPairs) + ", got " + std::to_string(o.max_pairs));
  }
  if (o.window.count() < 0) return bad("window must not be negative");
  if (!(o.deadline_fraction > 0.0 && o.deadline_fraction <= 1.0)) {
    return bad("deadline_fraction must be in (0, 1], got " + std::to_string(o.deadline_fraction));
  }
  if (o.max_concurrent_calls < 1 || o.max_concurrent_calls > kMaxCalls) {
    return bad("max_concurrent_calls must be in 1.." + std::to_string(kMaxCalls) + ", got " +
               std::to_string(o.max_concurrent_calls));
  }
  return Status::Ok();
}

}  // namespace

// One Score() call, on its caller's stack; every field after `due` is touched under mu_ only.
struct RerankBatcher::Request {
  std::string_view query;
  const std::vector<std::string>* passages = nullptr;
  std::vector<size_t> rows;    // the non-blank passages
  bool bulk = false;
  SteadyTime arrived;
  SteadyTime due;              // when its window ends
  std::vector<double> scores;  // one per row
  size_t unsent = 0;           // rows not yet in a batch
  size_t unfinished = 0;       // rows neither scored nor withdrawn
  SteadyTime left;             // when its last row left the queue
  Status error;
};

Result<std::unique_ptr<RerankBatcher>> RerankBatcher::Create(std::shared_ptr<const PairScorer> backend,
                                                             RerankBatcherOptions options) {
  if (backend == nullptr) return Status::InvalidArgument("rerank batcher: no backend");
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  return std::unique_ptr<RerankBatcher>(new RerankBatcher(std::move(backend), std::move(options)));
}

RerankBatcher::RerankBatcher(std::shared_ptr<const PairScorer> backend, RerankBatcherOptions options)
    : backend_(std::move(backend)),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock()) {
  for (size_t i = 0; i < options_.max_concurrent_calls; ++i) workers_.emplace_back([this] { Worker(); });
}

RerankBatcher::~RerankBatcher() { Shutdown(); }

std::string RerankBatcher::name() const { return "batched:" + backend_->name(); }

void RerankBatcher::Shutdown() {
  MutexLock once(shutdown_mu_);
  {
    MutexLock lock(mu_);
    stopping_ = true;
    work_cv_.NotifyAll();
  }
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
}

void RerankBatcher::Wake() const {
  MutexLock lock(mu_);
  work_cv_.NotifyAll();
}

RerankBatcherStats RerankBatcher::stats() const {
  MutexLock lock(mu_);
  RerankBatcherStats s = stats_;
  s.waiting_pairs = waiting_pairs_;
  s.in_flight = in_flight_;
  return s;
}

void RerankBatcher::Notify(const RerankBatchEvent& event) const {
  if (options_.observer) options_.observer(event);
}

Result<std::vector<double>> RerankBatcher::Score(std::string_view query,
                                                 const std::vector<std::string>& passages) const {
  RerankRequest request;
  request.query = query;
  request.passages = &passages;
  return Score(request);
}

Result<std::vector<double>> RerankBatcher::Score(const RerankRequest& in) const {
  const std::vector<std::string>& passages = *in.passages;
  if (passages.empty()) return std::vector<double>{};
  if (IsBlank(in.query)) return Status::InvalidArgument("rerank batcher: the query is empty");
  Request r;
  r.query = in.query;
  r.passages = &passages;
  r.bulk = in.priority == RerankPriority::kBulk;
  for (size_t i = 0; i < passages.size(); ++i) {
    if (!IsBlank(passages[i])) r.rows.push_back(i);
  }
  if (r.rows.empty()) return std::vector<double>(passages.size(), 0.0);
  r.scores.assign(r.rows.size(), 0.0);
  r.unsent = r.unfinished = r.rows.size();
  r.arrived = clock_->Now();
  std::chrono::steady_clock::duration window = options_.window;
  if (in.deadline) {
    const auto left = std::max(std::chrono::steady_clock::duration::zero(), *in.deadline - r.arrived);
    window = std::min(window, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  left * options_.deadline_fraction));
  }
  r.due = r.arrived + window;

  RerankBatchEvent done{.kind = RerankBatchEvent::Kind::kRequest, .pairs = r.rows.size(), .bulk = r.bulk};
  {
    MutexLock lock(mu_);
    if (stopping_) return Status::Unavailable("rerank batcher: shut down");
    (r.bulk ? bulk_ : interactive_).push_back(Segment{&r, 0, r.rows.size()});
    waiting_pairs_ += r.rows.size();
    work_cv_.NotifyAll();
    while (r.unfinished > 0) done_cv_.Wait(lock);
    const double wait_ms = Ms(r.left - r.arrived);
    ++stats_.requests;
    stats_.wait_ms_total += wait_ms;
    stats_.wait_ms_max = std::max(stats_.wait_ms_max, wait_ms);
    done.seconds = wait_ms / 1000.0;
    done.ok = r.error.ok();
  }
  Notify(done);
  if (!r.error.ok()) return r.error;
  std::vector<double> out(passages.size(), 0.0);
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < r.rows.size(); ++k) {
    out[r.rows[k]] = r.scores[k];
    lowest = std::min(lowest, r.scores[k]);
  }
  if (r.rows.size() < passages.size()) {
    for (size_t i = 0; i < passages.size(); ++i) {
      if (IsBlank(passages[i])) out[i] = lowest;
    }
  }
  return out;
}

bool RerankBatcher::BatchDue(SteadyTime now, SteadyTime* next_due) const {
  if (waiting_pairs_ == 0) return false;
  if (stopping_ || waiting_pairs_ >= options_.max_pairs) return true;
  SteadyTime earliest = SteadyTime::max();
  for (const std::vector<Segment>* queue : {&interactive_, &bulk_}) {
    for (const Segment& s : *queue) earliest = std::min(earliest, s.request->due);
  }
  if (earliest <= now) return true;
  *next_due = earliest;
  return false;
}

void RerankBatcher::TakeFrom(std::vector<Segment>* queue, bool overdue_only, SteadyTime now, Batch* batch) const {
  for (size_t i = 0; i < queue->size() && batch->pairs.size() < options_.max_pairs;) {
    Segment& s = (*queue)[i];
    Request* r = s.request;
    if (overdue_only && r->due > now) {
      ++i;
      continue;
    }
    const size_t n = std::min(options_.max_pairs - batch->pairs.size(), s.end - s.begin);
    batch->segments.push_back(Segment{r, s.begin, s.begin + n});
    for (size_t k = s.begin; k < s.begin + n; ++k) {
      batch->pairs.push_back(RerankPair{r->query, (*r->passages)[r->rows[k]]});
    }
    waiting_pairs_ -= n;
    r->unsent -= n;
    if (r->unsent == 0) r->left = now;
    s.begin += n;
    if (s.begin == s.end) {
      queue->erase(queue->begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

RerankBatcher::Batch RerankBatcher::TakeBatch(SteadyTime now) const {
  Batch batch;
  TakeFrom(&interactive_, /*overdue_only=*/true, now, &batch);
  TakeFrom(&bulk_, /*overdue_only=*/true, now, &batch);
  TakeFrom(&interactive_, /*overdue_only=*/false, now, &batch);
  TakeFrom(&bulk_, /*overdue_only=*/false, now, &batch);
  return batch;
}

void RerankBatcher::Withdraw(Request* request, SteadyTime now) const {
  for (std::vector<Segment>* queue : {&interactive_, &bulk_}) {
    for (size_t i = 0; i < queue->size();) {
      const Segment& s = (*queue)[i];
      if (s.request != request) {
        ++i;
        continue;
      }
      const size_t n = s.end - s.begin;
      waiting_pairs_ -= n;
      request->unsent -= n;
      request->unfinished -= n;
      queue->erase(queue->begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (request->unsent == 0 && request->left < request->arrived) request->left = now;
}

void RerankBatcher::Finish(const Batch& batch, const Result<std::vector<double>>& scores, SteadyTime now) const {
  Status failure;
  if (!scores.ok()) {
    failure = scores.status();
  } else if (scores->size() != batch.pairs.size()) {
    failure = Status::UpstreamError(backend_->name() + " returned " + std::to_string(scores->size()) +
                                    " scores for " + std::to_string(batch.pairs.size()) + " pairs");
  }
  if (!failure.ok()) {
    failure = failure.WithContext("rerank batch of " + std::to_string(batch.pairs.size()) + " pairs from " +
                                  std::to_string(batch.segments.size()) + " requests");
  }
  size_t k = 0;
  for (const Segment& s : batch.segments) {
    Request* r = s.request;
    if (failure.ok()) {
      for (size_t row = s.begin; row < s.end; ++row) r->scores[row] = (*scores)[k++];
    } else {
      if (r->error.ok()) r->error = failure;
      Withdraw(r, now);
    }
    r->unfinished -= s.end - s.begin;
  }
}

void RerankBatcher::Worker() const {
  MutexLock lock(mu_);
  while (true) {
    const SteadyTime now = clock_->Now();
    SteadyTime next_due = SteadyTime::max();
    if (BatchDue(now, &next_due)) {
      Batch batch = TakeBatch(now);
      ++in_flight_;
      if (waiting_pairs_ > 0) work_cv_.NotifyAll();  // another batch may be due too
      lock.Unlock();
      const SteadyTime t0 = clock_->Now();
      Result<std::vector<double>> scores = backend_->ScorePairs(batch.pairs);
      const SteadyTime t1 = clock_->Now();
      const bool ok = scores.ok() && scores->size() == batch.pairs.size();
      // Before the requests hear of it, so that a call's event precedes its requests' events.
      Notify(RerankBatchEvent{.kind = RerankBatchEvent::Kind::kCall, .pairs = batch.pairs.size(),
                              .requests = batch.segments.size(), .seconds = Ms(t1 - t0) / 1000.0, .ok = ok});
      lock.Lock();
      --in_flight_;
      Finish(batch, scores, t1);
      ++stats_.calls;
      stats_.failed_calls += ok ? 0 : 1;
      stats_.pairs += batch.pairs.size();
      ++stats_.batch_sizes[batch.pairs.size()];
      done_cv_.NotifyAll();
      continue;
    }
    if (stopping_ && waiting_pairs_ == 0) return;
    if (waiting_pairs_ == 0) {
      work_cv_.Wait(lock);
    } else {
      work_cv_.WaitFor(lock, next_due - now);
    }
  }
}

}  // namespace attest
