// The audit log's writer: request threads queue records; one background thread takes them in
// groups (everything queued within flush_interval_ms, up to kMaxBatch records), serializes them
// as JSON lines, writes them with one write() on an O_APPEND descriptor and fdatasyncs.
//
// Bound: queued records, the group being written and the slots claimed by requests in flight
// together never exceed max_queue; Reserve() refuses beyond it (counted, logged at most once a
// second), so memory is bounded and nothing waits on the request path.
//
// Failure handling: a group whose write or fdatasync fails stays with the writer (a partial write
// resumes where it stopped, a failed sync retries the sync only, so nothing is written twice);
// the failure is counted, logged with spdlog::error and reported through on_failure, and retried
// after a backoff of 10 ms doubling to 1 s. Records are only lost if the process ends while writes
// still fail: the destructor retries for about two seconds and then logs how many records it could
// not write (at most max_queue).
#include "service/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <deque>
#include <system_error>
#include <thread>

#include "common/thread_annotations.h"

namespace attest::service {
namespace {

constexpr size_t kMaxBatch = 4096;
constexpr auto kMinBackoff = std::chrono::milliseconds(10);
constexpr auto kMaxBackoff = std::chrono::milliseconds(1000);
constexpr int kRetriesWhenStopping = 8;  // 10+20+...+1000 ms: about two seconds

std::string IsoUtcMillis(int64_t unix_ms) {
  int64_t secs = unix_ms >= 0 ? unix_ms / 1000 : -((-unix_ms + 999) / 1000);
  int64_t ms = unix_ms - secs * 1000;
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return "1970-01-01T00:00:00.000Z";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

class AuditLogImpl final : public AuditLog {
 public:
  AuditLogImpl(AuditOptions options, int fd) : opts_(std::move(options)), fd_(fd) {
    opts_.max_queue = std::max<size_t>(1, opts_.max_queue);
    writer_ = std::thread([this] { WriterLoop(); });
  }

  ~AuditLogImpl() override {
    {
      MutexLock lock(mu_);
      stop_ = true;
    }
    work_cv_.NotifyAll();
    writer_.join();
    ::close(fd_);
  }

  Result<AuditSlot> Reserve() override {
    MutexLock lock(mu_);
    const size_t held = HeldLocked();
    if (held < opts_.max_queue && !stop_) {
      ++reserved_;
      return MakeSlot();
    }
    refused_.fetch_add(1, std::memory_order_relaxed);
    std::string why = stop_ ? "the log is closing"
                            : (writing_ ? "records come faster than the disk takes them"
                                        : "writes fail: " + last_error_.message());
    std::string message = "audit log " + opts_.path.string() + " holds " + std::to_string(held) +
                          " records, its limit; " + why;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_refusal_log_ > std::chrono::seconds(1)) {
      last_refusal_log_ = now;
      lock.Unlock();
      spdlog::error("{} (requests are refused until it drains)", message);
    }
    return Status::ResourceExhausted(std::move(message));
  }

  void Append(AuditSlot slot, AuditRecord record) override {
    MutexLock lock(mu_);
    if (Consume(slot)) --reserved_;
    queue_.push_back(std::move(record));
    ++appended_;
    lock.Unlock();
    work_cv_.NotifyOne();
  }

  Status Flush() override {
    MutexLock lock(mu_);
    const uint64_t target = appended_;
    const uint64_t failures_before = failure_events_;
    ++flush_waiters_;
    work_cv_.NotifyAll();
    while (done_ < target && failure_events_ == failures_before && !writer_exited_) done_cv_.Wait(lock);
    --flush_waiters_;
    if (done_ >= target) return Status::Ok();
    if (!last_error_.ok()) return last_error_;
    return Status::IOError("audit: the writer of " + opts_.path.string() + " has stopped");
  }

  uint64_t failures() const override { return failures_.load(std::memory_order_relaxed); }
  uint64_t written() const override { return written_.load(std::memory_order_relaxed); }
  uint64_t refused() const override { return refused_.load(std::memory_order_relaxed); }
  size_t queued() const override {
    MutexLock lock(mu_);
    return HeldLocked();
  }
  AuditHealth health() const override {
    MutexLock lock(mu_);
    AuditHealth h;
    h.writing = writing_;
    if (!writing_) h.error = last_error_.message();
    h.held = HeldLocked();
    h.limit = opts_.max_queue;
    return h;
  }

 protected:
  void Release() override {
    MutexLock lock(mu_);
    --reserved_;
  }

 private:
  size_t HeldLocked() const REQUIRES(mu_) { return queue_.size() + in_writer_ + reserved_; }

  // Writes buf[*off..] fully; advances *off past what was written even on failure.
  Status WriteAll(const std::string& buf, size_t* off) {
    while (*off < buf.size()) {
      if (opts_.fail_write && opts_.fail_write()) {
        return Status::IOError("audit: cannot write " + opts_.path.string() + ": " + std::strerror(ENOSPC) +
                               " (simulated)");
      }
      ssize_t n = ::write(fd_, buf.data() + *off, buf.size() - *off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError("audit: cannot write " + opts_.path.string() + ": " + std::strerror(errno));
      }
      *off += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  void WriterLoop() {
    std::string buf;   // the serialized group being written
    size_t off = 0;    // bytes of buf already written
    size_t records = 0;
    int attempt = 0;
    int stopping_attempts = 0;
    for (;;) {
      if (records == 0) {
        std::vector<AuditRecord> batch;
        {
          MutexLock lock(mu_);
          while (!stop_ && queue_.empty()) work_cv_.Wait(lock);
          if (queue_.empty()) break;  // stopping, and everything is written
          if (!stop_ && flush_waiters_ == 0 && queue_.size() < kMaxBatch && opts_.flush_interval_ms > 0) {
            // Group commit: let records gather for one interval (a Flush cuts it short).
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts_.flush_interval_ms);
            while (!stop_ && flush_waiters_ == 0 && queue_.size() < kMaxBatch &&
                   work_cv_.WaitUntil(lock, until) != std::cv_status::timeout) {
            }
          }
          size_t take = std::min(queue_.size(), kMaxBatch);
          batch.reserve(take);
          for (size_t i = 0; i < take; ++i) {
            batch.push_back(std::move(queue_.front()));
            queue_.pop_front();
          }
          in_writer_ = take;
        }
        buf.clear();
        for (const auto& r : batch) {
          buf += AuditRecordToJson(r);
          buf += '\n';
        }
        off = 0;
        records = batch.size();
      }

      Status st = WriteAll(buf, &off);
      if (st.ok() && ::fdatasync(fd_) != 0) {
        st = Status::IOError("audit: cannot sync " + opts_.path.string() + ": " + std::strerror(errno));
      }
      if (st.ok()) {
        written_.fetch_add(records, std::memory_order_relaxed);
        if (opts_.on_written) opts_.on_written(records);  // before Flush returns, as on_failure
        {
          MutexLock lock(mu_);
          done_ += records;
          in_writer_ = 0;
          writing_ = true;
        }
        done_cv_.NotifyAll();
        records = 0;
        attempt = 0;
        continue;
      }

      failures_.fetch_add(1, std::memory_order_relaxed);
      spdlog::error("{} ({} records held for retry)", st.message(), records);
      // The callback runs before a waiting Flush learns of the failure, so that when Flush
      // returns the error the metrics already show it.
      if (opts_.on_failure) opts_.on_failure(st.message());
      bool stopping;
      {
        MutexLock lock(mu_);
        last_error_ = st;
        writing_ = false;
        ++failure_events_;
        stopping = stop_;
      }
      done_cv_.NotifyAll();
      if (stopping && ++stopping_attempts > kRetriesWhenStopping) {
        size_t lost;
        {
          MutexLock lock(mu_);
          lost = records + queue_.size();
        }
        spdlog::error("audit: giving up on {} records for {} at shutdown: {}", lost, opts_.path.string(),
                      st.message());
        if (opts_.on_failure) opts_.on_failure("audit: " + std::to_string(lost) + " records not written at shutdown");
        break;
      }
      auto backoff = std::min<std::chrono::milliseconds>(kMinBackoff * (1 << std::min(attempt, 10)), kMaxBackoff);
      ++attempt;
      std::this_thread::sleep_for(backoff);  // shutdown retries keep their backoff too
    }
    {
      MutexLock lock(mu_);
      writer_exited_ = true;
    }
    done_cv_.NotifyAll();
  }

  AuditOptions opts_;
  const int fd_;
  std::thread writer_;

  mutable Mutex mu_;
  CondVar work_cv_;  // the writer waits for records / flush / stop
  CondVar done_cv_;  // Flush waits for progress or failure
  std::deque<AuditRecord> queue_ GUARDED_BY(mu_);
  size_t in_writer_ GUARDED_BY(mu_) = 0;       // records taken by the writer and not yet written
  size_t reserved_ GUARDED_BY(mu_) = 0;        // slots claimed and not yet appended or released
  bool writing_ GUARDED_BY(mu_) = true;        // false from a failed attempt until a write succeeds
  uint64_t appended_ GUARDED_BY(mu_) = 0;      // records ever appended
  uint64_t done_ GUARDED_BY(mu_) = 0;          // records ever written and synced (in append order)
  uint64_t failure_events_ GUARDED_BY(mu_) = 0;
  Status last_error_ GUARDED_BY(mu_);
  int flush_waiters_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  bool writer_exited_ GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point last_refusal_log_ GUARDED_BY(mu_){};

  std::atomic<uint64_t> failures_{0}, written_{0}, refused_{0};
};

}  // namespace

AuditSlot& AuditSlot::operator=(AuditSlot&& other) noexcept {
  if (this != &other) {
    if (log_) log_->Release();
    log_ = std::exchange(other.log_, nullptr);
  }
  return *this;
}

AuditSlot::~AuditSlot() {
  if (log_) log_->Release();
}

Status AuditLog::Append(AuditRecord record) {
  ATTEST_ASSIGN_OR_RETURN(AuditSlot slot, Reserve());
  Append(std::move(slot), std::move(record));
  return Status::Ok();
}

std::string AuditRecordToJson(const AuditRecord& r) {
  nlohmann::ordered_json j;
  j["request_id"] = r.request_id;
  j["ts"] = IsoUtcMillis(r.unix_ms);
  j["route"] = r.route;
  j["user"] = r.user;
  j["tenant"] = r.tenant;
  j["credential_id"] = r.credential_id;
  j["groups"] = r.groups;
  j["clearance"] = r.clearance;
  j["chunks_given"] = r.chunks_given;
  j["chunks_cited"] = r.chunks_cited;
  j["blocked_citations"] = r.blocked_citations;
  j["outcome"] = r.outcome;
  j["snapshot"] = r.snapshot;
  j["answer_id"] = r.answer_id;
  if (!r.mode.empty()) {
    j["mode"] = r.mode;
    j["tier"] = r.tier;
    j["cost"] = r.cost;
    nlohmann::ordered_json stages = nlohmann::ordered_json::object();
    for (const AuditStage& s : r.stages) {
      stages[s.stage] = {{"searches", s.searches},         {"fetches", s.fetches},
                         {"rerank_pairs", s.rerank_pairs}, {"model_calls", s.model_calls},
                         {"prompt_tokens", s.prompt_tokens}, {"completion_tokens", s.completion_tokens},
                         {"cost", s.cost}};
    }
    j["stages"] = stages;
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::unique_ptr<AuditLog>> AuditLog::Open(AuditOptions options) {
  if (options.path.empty()) return Status::InvalidArgument("audit: no log path given");
  std::error_code ec;
  if (options.path.has_parent_path()) {
    std::filesystem::create_directories(options.path.parent_path(), ec);
    if (ec) {
      return Status::IOError("audit: cannot create the directory of " + options.path.string() + ": " + ec.message());
    }
  }
  int fd = ::open(options.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError("audit: cannot open " + options.path.string() + ": " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("audit: " + options.path.string() + " is not a regular file");
  }
  return std::unique_ptr<AuditLog>(std::make_unique<AuditLogImpl>(std::move(options), fd));
}

}  // namespace attest::service
