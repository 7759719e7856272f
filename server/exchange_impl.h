// The Stream and Exchange a handler gets for one request on a Connection (server/connection.h):
// StreamImpl queues SSE events into the connection's output under its mutex, bounded by
// stream_buffer_bytes (an event beyond it drops the client as `slow_client`, logged); ExchangeImpl
// answers once (a plain response or a stream) or defers the work to a pool. Internal to server/:
// included by server/connection.cc only.
//
// Thread-safety: every method may be called from any thread; output goes under conn_->out_mu_.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "server/connection.h"
#include "server/http_wire.h"

namespace attest::http {

// The last event of a stream the server stops.
inline constexpr char kShutdownNotice[] = R"({"code":"shutting_down","message":"server is shutting down"})";


class StreamImpl final : public Stream {
 public:
  StreamImpl(std::shared_ptr<Connection> connection, bool chunked)
      : conn_(std::move(connection)), chunked_(chunked) {}

  // A stream dropped without Finish() is finished, so the response ends and the connection moves on.
  ~StreamImpl() override {
    MutexLock lock(conn_->out_mu_);
    FinishLocked();
    if (conn_->stream_ == this) conn_->stream_ = nullptr;
  }

  bool Send(std::string_view event, std::string_view data) override {
    bool slow = false;
    size_t unsent = 0;
    {
      MutexLock lock(conn_->out_mu_);
      if (closed_.load(std::memory_order_relaxed)) return false;
      size_t n = wire::EventSize(event, data, chunked_);
      unsent = conn_->pending_.size() + conn_->writing_bytes_;
      if (unsent + n > conn_->core_.options.stream_buffer_bytes) {
        conn_->MarkStreamClosedLocked("slow_client");
        std::string().swap(conn_->pending_);
        slow = true;
      } else {
        wire::AppendEvent(event, data, chunked_, conn_->pending_);
        conn_->SchedulePostLocked();
      }
    }
    if (slow) {
      spdlog::warn("http: stream to {} closed (slow_client): {} bytes unsent plus a {}-byte event exceed the "
                   "per-stream buffer of {} bytes (--stream-buffer-bytes)",
                   conn_->remote_, unsent, wire::EventSize(event, data, chunked_),
                   conn_->core_.options.stream_buffer_bytes);
      net::post(conn_->socket_.get_executor(), [c = conn_] { c->Close("slow_client"); });
    }
    return !slow;
  }

  bool Closed() const override { return closed_.load(); }

  std::string CloseReason() const override {
    MutexLock lock(conn_->out_mu_);
    return reason_;
  }

  void Finish() override {
    MutexLock lock(conn_->out_mu_);
    FinishLocked();
  }

 private:
  friend class Connection;
  friend class ExchangeImpl;

  // Closes a stream no other thread has seen yet, so without the lock.
  void CloseUnshared(const char* reason) NO_THREAD_SAFETY_ANALYSIS {
    closed_ = true;
    reason_ = reason;
  }

  void FinishLocked() REQUIRES(conn_->out_mu_) {
    if (closed_.load(std::memory_order_relaxed)) return;
    if (chunked_ && !conn_->closed_) wire::AppendLastChunk(conn_->pending_);
    conn_->MarkStreamClosedLocked("finished");
    conn_->SchedulePostLocked();
  }

  const std::shared_ptr<Connection> conn_;
  const bool chunked_;
  std::atomic<bool> closed_{false};  // written under conn_->out_mu_
  const char* reason_ GUARDED_BY(conn_->out_mu_) = "";
};

class ExchangeImpl final : public Exchange, public std::enable_shared_from_this<ExchangeImpl> {
 public:
  ExchangeImpl(std::shared_ptr<Connection> connection, std::shared_ptr<const Request> request, unsigned version,
               bool keep_alive)
      : conn_(std::move(connection)), request_(std::move(request)), version_(version), keep_alive_(keep_alive) {}

  // A handler that drops its exchange unanswered (or throws) gets a 500 sent for it.
  ~ExchangeImpl() override {
    if (!responded_.load()) {
      Respond(conn_->core_.Error(500, "internal", "the request handler ended without a response"));
    }
  }

  const Request& request() const override { return *request_; }

  void Respond(Response response) override {
    if (responded_.exchange(true)) {
      spdlog::error("http: second response to {} {} ignored", request_->method, request_->path);
      return;
    }
    conn_->SubmitResponse(response, version_, keep_alive_);
  }

  std::shared_ptr<Stream> StartStream(std::vector<std::pair<std::string, std::string>> headers) override {
    const bool chunked = version_ >= 11;
    auto stream = std::make_shared<StreamImpl>(conn_, chunked);
    if (responded_.exchange(true)) {
      spdlog::error("http: stream started after a response to {} {}", request_->method, request_->path);
      stream->CloseUnshared("finished");
      return stream;
    }
    ServerCore& core = conn_->core_;
    MutexLock lock(conn_->out_mu_);
    conn_->stream_ = stream.get();
    conn_->streaming_ = true;
    const size_t sndbuf = core.options.stream_send_buffer_bytes;
    const size_t unsent = core.options.stream_kernel_unsent_bytes;
    if ((sndbuf > 0 || unsent > 0) && !conn_->closed_) {
      // Posted before the flush below, so it applies before the stream head is written.
      net::post(conn_->socket_.get_executor(), [c = conn_, sndbuf, unsent] {
        boost::system::error_code ec;
        if (sndbuf > 0) c->socket_.set_option(net::socket_base::send_buffer_size(static_cast<int>(sndbuf)), ec);
        // TCP_NOTSENT_LOWAT: the kernel takes unsent bytes only up to `unsent`, and reports the
        // socket writable again only once fewer than half of that are left, so a slow reader
        // wakes its connection every few kilobytes instead of at every read it makes.
        if (unsent > 0) {
          c->socket_.set_option(
              net::detail::socket_option::integer<IPPROTO_TCP, TCP_NOTSENT_LOWAT>(static_cast<int>(unsent)), ec);
        }
      });
    }
    conn_->status_ = 200;
    core.in_flight.fetch_sub(1);
    core.open_streams.fetch_add(1);
    if (conn_->closed_) {
      conn_->MarkStreamClosedLocked("client_closed");
    } else {
      const bool stopping = core.stopping.load();
      conn_->keep_alive_after_ = chunked && keep_alive_ && !stopping;
      wire::AppendStreamHead(headers, version_, chunked, conn_->keep_alive_after_, conn_->pending_);
      if (stopping) {
        wire::AppendEvent("notice", kShutdownNotice, chunked, conn_->pending_);
        if (chunked) wire::AppendLastChunk(conn_->pending_);
        conn_->MarkStreamClosedLocked("shutting_down");
      }
    }
    conn_->SchedulePostLocked();
    return stream;
  }

  bool ClientGone() const override { return conn_->peer_gone_.load(std::memory_order_relaxed); }

  Admission Defer(Pool pool, const std::string& key, Handler next) override {
    ServerCore& core = conn_->core_;
    auto self = shared_from_this();
    if (pool == Pool::kInline) {
      next(std::move(self));
      return Admission::kQueued;
    }
    WorkerPool& target = pool == Pool::kBulk ? core.bulk : pool == Pool::kAnswer ? core.answers : core.interactive;
    return target.TrySubmit({nullptr, std::move(next), std::move(self)}, key);
  }

 private:
  const std::shared_ptr<Connection> conn_;
  const std::shared_ptr<const Request> request_;
  const unsigned version_;
  const bool keep_alive_;
  std::atomic<bool> responded_{false};
};

}  // namespace attest::http
