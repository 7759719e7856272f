#include "server/connection.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>

#include <boost/beast/http/error.hpp>
#include <spdlog/spdlog.h>

#include "server/exchange_impl.h"
#include "server/http_wire.h"

namespace attest::http {
namespace {

namespace bhttp = boost::beast::http;
using boost::system::error_code;

constexpr size_t kReadChunk = 16 << 10;
// While a handler runs or a stream is open, bytes a client sends ahead (pipelining) are kept up to
// this much; beyond it reading pauses (and disconnects are then noticed on the next write).
constexpr size_t kMaxAhead = 64 << 10;
constexpr auto kLingerMax = std::chrono::milliseconds(1000);

Response MakeError(const ServerCore& core, int status, const char* code, std::string message,
                   std::string field = "") {
  return core.Error(status, code, std::move(message), std::move(field));
}

std::string_view SV(boost::beast::string_view v) { return std::string_view(v.data(), v.size()); }

size_t FieldCount(const bhttp::request<bhttp::string_body>& msg) {
  return static_cast<size_t>(std::distance(msg.begin(), msg.end()));
}

}  // namespace

// The peer's IP address (IPv4-mapped IPv6 addresses as IPv4) and "ip:port" ("[ip]:port" for v6).
std::pair<std::string, std::string> PeerOf(const tcp::socket& socket) {
  error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (ec) return {"", ""};
  auto addr = ep.address();
  if (addr.is_v6() && addr.to_v6().is_v4_mapped()) {
    addr = net::ip::make_address_v4(net::ip::v4_mapped, addr.to_v6());
  }
  std::string ip = addr.to_string();
  return {ip, (addr.is_v6() ? "[" + ip + "]" : ip) + ":" + std::to_string(ep.port())};
}


// ---- Connection: any thread ---------------------------------------------------------------------

Connection::Connection(ServerCore& core, tcp::socket socket)
    : core_(core), socket_(std::move(socket)), timer_(socket_.get_executor()) {
  std::tie(address_, remote_) = PeerOf(socket_);
  error_code ec;
  socket_.non_blocking(true, ec);  // DoRead waits for readability, then reads what is there
}

Connection::~Connection() { core_.Unregister(this); }

void Connection::Start(ServerCore::Admit admit) {
  net::post(socket_.get_executor(), [self = shared_from_this(), admit] {
    error_code ec;
    self->socket_.set_option(tcp::no_delay(true), ec);
    if (admit == ServerCore::Admit::kServerFull) {
      self->core_.Refused("server_full");
      self->TransportError(503, "overloaded", "too many open connections", true);
      self->DoRead();
      return;
    }
    if (admit == ServerCore::Admit::kAddressFull) {
      self->core_.Refused("per_address");
      // No lingering read: whoever holds this many connections gets the answer and the close.
      self->TransportError(429, "rate_limited",
                           "too many open connections from " + self->address_ + " (limit " +
                               std::to_string(self->core_.options.max_connections_per_address) + ")",
                           false);
      return;
    }
    self->StartReadingRequest();
  });
}

void Connection::BeginShutdown() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->state_ == State::kClosed) return;
    const bool idle = self->state_ == State::kReading && !self->exchange_open_ && self->buffer_.size() == 0 &&
                      (!self->parser_ || !self->parser_->got_some());
    if (idle || self->state_ == State::kDraining) return self->Close("");
    MutexLock lock(self->out_mu_);
    self->keep_alive_after_ = false;
    if (self->streaming_ && self->stream_ != nullptr && !self->stream_->closed_) {
      const bool chunked = self->stream_->chunked_;
      wire::AppendEvent("notice", kShutdownNotice, chunked, self->pending_);
      if (chunked) wire::AppendLastChunk(self->pending_);
      self->MarkStreamClosedLocked("shutting_down");
      self->SchedulePostLocked();
    }
  });
}

void Connection::ForceClose() {
  net::post(socket_.get_executor(), [self = shared_from_this()] { self->Close("shutting_down"); });
}

void Connection::SubmitResponse(const Response& response, unsigned version, bool keep_alive) {
  MutexLock lock(out_mu_);
  status_ = response.status;
  keep_alive_after_ = keep_alive && !core_.stopping.load();
  response_done_ = true;
  if (!closed_) wire::AppendResponse(response, version, keep_alive_after_, pending_);
  SchedulePostLocked();
}

void Connection::SchedulePostLocked() {
  if (flush_posted_) return;
  flush_posted_ = true;
  net::post(socket_.get_executor(), [self = shared_from_this()] { self->Flush(); });
}

void Connection::MarkStreamClosedLocked(const char* reason) {
  if (!streaming_) return;
  if (stream_ != nullptr && !stream_->closed_.load(std::memory_order_relaxed)) {
    stream_->conn_->out_mu_.AssertHeld();  // the stream's connection is this one
    stream_->reason_ = reason;
    stream_->closed_.store(true);
  }
  response_done_ = true;
}

// ---- Connection: strand -------------------------------------------------------------------------

void Connection::StartReadingRequest() {
  state_ = State::kReading;
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(
      std::min<size_t>(core_.options.max_header_bytes, std::numeric_limits<uint32_t>::max())));
  parser_->body_limit(core_.options.max_body_bytes);
  parser_->eager(false);  // stop after the header: CheckHeader() runs before any body is parsed
  sent_continue_ = false;
  header_checked_ = false;
  header_fields_ = 0;
  linger_ = false;
  const auto now = Clock::now();
  request_deadline_ = now + std::chrono::milliseconds(core_.options.read_timeout_ms);
  SetDeadline(std::min(request_deadline_, now + std::chrono::milliseconds(core_.options.header_timeout_ms)));
  if (buffer_.size() > 0) ParseBuffered();
  DoRead();
}

void Connection::DoRead() {
  if (reading_ || state_ == State::kClosed) return;
  if ((state_ == State::kHandling || state_ == State::kStreaming) && buffer_.size() >= kMaxAhead) return;
  reading_ = true;
  // Wait for readability with no buffer: an idle or streaming connection holds no read memory
  // while it waits (thousands of open streams), and the bytes are read on the IO thread's stack.
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](error_code ec) { self->OnReadable(ec); });
}

void Connection::OnReadable(error_code ec) {
  reading_ = false;
  if (state_ == State::kClosed) return;
  char chunk[kReadChunk];
  size_t n = 0;
  if (!ec) n = socket_.read_some(net::buffer(chunk), ec);
  if (ec == net::error::would_block || ec == net::error::try_again) return DoRead();  // spurious wake-up
  if (ec) return Close("client_closed");  // EOF or reset: the peer is gone
  if (state_ != State::kDraining) {
    auto space = buffer_.prepare(n);
    std::memcpy(space.data(), chunk, n);
    buffer_.commit(n);
    if (state_ == State::kReading) ParseBuffered();
  }
  DoRead();
}

void Connection::ParseBuffered() {
  while (state_ == State::kReading && buffer_.size() > 0) {
    error_code ec;
    size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    // Beast keeps an unfinished chunk-size line or trailer section in the buffer until it ends:
    // bound it like a header, or a client could grow it without limit.
    const bool stalled = ec == bhttp::error::need_more || (!ec && used == 0 && !parser_->is_done());
    if (stalled && header_checked_ && buffer_.size() > core_.options.max_header_bytes) {
      return TransportError(400, "bad_http",
                            "a chunk-size line or trailer section exceeds " +
                                std::to_string(core_.options.max_header_bytes) + " bytes",
                            true);
    }
    if (ec == bhttp::error::need_more) break;
    if (ec == bhttp::error::body_limit) {
      return TransportError(413, "payload_too_large",
                            "request body exceeds " + std::to_string(core_.options.max_body_bytes) + " bytes", true);
    }
    if (ec == bhttp::error::header_limit) {
      return TransportError(431, "headers_too_large",
                            "request header exceeds " + std::to_string(core_.options.max_header_bytes) + " bytes",
                            true);
    }
    if (ec) return TransportError(400, "bad_http", "malformed HTTP request: " + ec.message(), true);
    if (!header_checked_ && parser_->is_header_done() && !CheckHeader()) return;
    if (parser_->is_done()) {
      if (FieldCount(parser_->get()) != header_fields_) {
        return TransportError(400, "bad_http", "trailer fields after a chunked body are not accepted", true);
      }
      return Dispatch();
    }
    if (used == 0) break;
  }
  if (state_ == State::kReading && !sent_continue_ && parser_->is_header_done()) {
    sent_continue_ = true;
    auto expect = parser_->get()[bhttp::field::expect];
    if (boost::beast::iequals(expect, "100-continue")) {
      MutexLock lock(out_mu_);
      pending_ += "HTTP/1.1 100 Continue\r\n\r\n";
      SchedulePostLocked();
    }
  }
}

bool Connection::CheckHeader() {
  header_checked_ = true;
  const auto& msg = parser_->get();
  std::vector<std::string_view> codings;
  for (const auto& field : msg) {  // every Transfer-Encoding line, in order, wherever it is
    if (field.name() == bhttp::field::transfer_encoding) codings.push_back(SV(field.value()));
  }
  wire::FramingVerdict verdict = wire::CheckTransferEncoding(codings, msg.version());
  if (verdict.status == 0 && !codings.empty() && !parser_->chunked()) {
    verdict = {400, "Transfer-Encoding was not understood as chunked"};  // a parser disagreement: refuse
  }
  if (verdict.status != 0) {
    // The body's length is unknown: answer and close. What the client sends meanwhile is drained
    // and discarded (never parsed), so its body can never run as a next request.
    TransportError(verdict.status, verdict.status == 501 ? "not_implemented" : "bad_http", std::move(verdict.message),
                   true);
    return false;
  }
  header_fields_ = FieldCount(msg);
  parser_->eager(true);
  if (!parser_->is_done()) SetDeadline(request_deadline_);  // the body has the rest of read_timeout_ms
  return true;
}

void Connection::Dispatch() {
  auto& msg = parser_->get();
  auto req = std::make_shared<Request>();
  req->method = std::string(SV(msg.method_string()));
  req->target = std::string(SV(msg.target()));
  std::string repeated;
  const wire::TargetParse target = wire::ParseTarget(SV(msg.target()), req->path, req->query, repeated);
  for (const auto& field : msg) {
    std::string name(SV(field.name_string()));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, inserted] = req->headers.try_emplace(std::move(name), SV(field.value()));
    if (!inserted) {
      it->second += ", ";
      it->second += SV(field.value());
    }
  }
  req->body = std::move(msg.body());
  req->remote = remote_;
  req->received = Clock::now();
  const unsigned version = msg.version();
  const bool keep_alive = msg.keep_alive();
  parser_.reset();
  if (buffer_.size() == 0) buffer_.shrink_to_fit();  // nothing pipelined: hold no read buffer meanwhile

  state_ = State::kHandling;
  deadline_ = Clock::time_point::max();
  exchange_open_ = true;
  core_.in_flight.fetch_add(1);
  started_ = req->received;
  route_ = {};
  request_ = req;

  if (target == wire::TargetParse::kMalformed) {
    return SubmitResponse(MakeError(core_, 400, "bad_http", "malformed request target (path or %-escape)"), version,
                          false);
  }
  if (target == wire::TargetParse::kRepeatedKey) {
    return SubmitResponse(MakeError(core_, 400, "invalid_request",
                                    "query parameter '" + repeated.substr(0, 64) + "' is given more than once",
                                    repeated.substr(0, 64)),
                          version, keep_alive);
  }
  Router::Match match = core_.router.Find(req->method, wire::RawPath(req->target));
  if (match.handler == nullptr) {
    if (match.allow.empty()) {
      return SubmitResponse(MakeError(core_, 404, "not_found", "no route for " + req->path), version, keep_alive);
    }
    Response r = MakeError(core_, 405, "method_not_allowed",
                           req->method + " is not allowed on " + req->path + " (allowed: " + match.allow + ")");
    r.headers.emplace_back("Allow", match.allow);
    return SubmitResponse(r, version, keep_alive);
  }
  req->params = std::move(match.params);
  route_ = match.pattern;
  auto exchange = std::make_shared<ExchangeImpl>(shared_from_this(), std::move(req), version, keep_alive);
  if (match.pool == Pool::kInline) {
    try {
      (*match.handler)(std::move(exchange));
    } catch (const std::exception& e) {
      spdlog::error("http: inline handler for {} threw: {}", route_, e.what());
    }
    return;
  }
  WorkerPool& pool = match.pool == Pool::kBulk     ? core_.bulk
                     : match.pool == Pool::kAnswer ? core_.answers
                                                   : core_.interactive;
  if (pool.TrySubmit({match.handler, nullptr, exchange}) != Admission::kQueued) {
    exchange->Respond(MakeError(core_, 503, "overloaded",
                                match.pool == Pool::kBulk ? "the bulk work queue is full; retry later"
                                                          : "the server is at capacity; retry later"));
  }
}

void Connection::TransportError(int status, const char* code, std::string message, bool linger) {
  if (!exchange_open_) {
    auto req = std::make_shared<Request>();
    if (parser_ && parser_->is_header_done()) {
      req->method = std::string(SV(parser_->get().method_string()));
      req->target = std::string(SV(parser_->get().target()));
    }
    req->remote = remote_;
    req->received = Clock::now();
    started_ = req->received;
    request_ = std::move(req);
    route_ = {};
    exchange_open_ = true;
    core_.in_flight.fetch_add(1);
  }
  state_ = State::kHandling;
  deadline_ = Clock::time_point::max();
  linger_ = linger;
  SubmitResponse(MakeError(core_, status, code, std::move(message)), 11, false);
}

void Connection::Flush() {
  if (write_in_flight_) return;
  bool done;
  {
    MutexLock lock(out_mu_);
    flush_posted_ = false;
    writing_.clear();
    written_ = 0;
    compacted_ = false;
    if (closed_) {
      pending_.clear();
    } else {
      writing_.swap(pending_);
    }
    writing_bytes_ = writing_.size();
    done = response_done_;
    // pending_ now holds the old, drained writing_: give it back (and writing_ too when there is
    // nothing to write), so a stream waiting for its next event, or an idle keep-alive connection,
    // holds no output memory, and a held stream holds about its unsent bytes.
    std::string().swap(pending_);
    if (writing_.empty()) std::string().swap(writing_);
  }
  if (!writing_.empty()) {
    write_in_flight_ = true;
    WriteSome();
    return;
  }
  if (state_ == State::kHandling || state_ == State::kStreaming) deadline_ = Clock::time_point::max();
  if (done && exchange_open_) OnResponseDrained();
}

// One write of what is left of writing_; a slow reader takes a little at a time, and every bit of
// progress restarts the write deadline.
void Connection::WriteSome() {
  if (state_ != State::kReading) {
    SetDeadline(Clock::now() + std::chrono::milliseconds(core_.options.read_timeout_ms));
  }
  socket_.async_write_some(net::buffer(writing_.data() + written_, writing_.size() - written_),
                           [self = shared_from_this()](error_code ec, size_t n) { self->OnWrite(ec, n); });
}

void Connection::OnWrite(error_code ec, size_t n) {
  if (!ec) written_ += n;
  if (!ec && written_ < writing_.size()) {
    // The socket is full: the client reads slower than we write. Keep only the unsent bytes, in a
    // buffer of their size: at the first partial write of a batch, then whenever the written front
    // is half the buffer (amortised), so what a slow stream holds shrinks as it is read.
    if (!compacted_ || (written_ >= 4096 && 2 * written_ >= writing_.size())) {
      compacted_ = true;
      writing_.erase(0, written_);
      written_ = 0;
      writing_.shrink_to_fit();
    }
    {
      MutexLock lock(out_mu_);
      writing_bytes_ = writing_.size() - written_;
    }
    return WriteSome();
  }
  write_in_flight_ = false;
  {
    MutexLock lock(out_mu_);
    writing_bytes_ = 0;
  }
  if (ec) return Close("client_closed");
  Flush();
}

void Connection::OnResponseDrained() {
  bool keep_alive;
  {
    MutexLock lock(out_mu_);
    keep_alive = keep_alive_after_;
  }
  CompleteExchange();
  if (state_ == State::kClosed) return;
  if (keep_alive && !core_.stopping.load()) return StartReadingRequest();
  GracefulClose();
}

void Connection::CompleteExchange() {
  if (!exchange_open_) return;
  exchange_open_ = false;
  int status;
  bool was_stream;
  {
    MutexLock lock(out_mu_);
    status = status_;
    was_stream = streaming_;
    streaming_ = false;
    stream_ = nullptr;
    response_done_ = false;
    keep_alive_after_ = false;
    status_ = 0;
  }
  (was_stream ? core_.open_streams : core_.in_flight).fetch_sub(1);
  if (core_.options.on_complete && request_) {
    double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    try {
      core_.options.on_complete(*request_, route_, status, seconds);
    } catch (const std::exception& e) {
      spdlog::error("http: on_complete threw: {}", e.what());
    }
  }
  request_.reset();
  route_ = {};
}

void Connection::GracefulClose() {
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  if (!linger_ || core_.stopping.load() || ec) return Close("");
  // The client may still be sending (a body we refused): read and discard for a short while so the
  // kernel does not answer its data with a reset that would destroy our response in flight.
  state_ = State::kDraining;
  buffer_.clear();
  auto linger = std::min<Clock::duration>(std::chrono::milliseconds(core_.options.read_timeout_ms), kLingerMax);
  SetDeadline(Clock::now() + linger);
  DoRead();
}

void Connection::Close(const char* stream_reason) {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  peer_gone_.store(true);
  error_code ec;
  socket_.close(ec);
  timer_.cancel();
  bool done;
  {
    MutexLock lock(out_mu_);
    closed_ = true;
    pending_.clear();
    MarkStreamClosedLocked(*stream_reason ? stream_reason : "client_closed");
    done = response_done_;
  }
  if (exchange_open_ && done) CompleteExchange();
  parser_.reset();
  buffer_.clear();
  core_.Unregister(this);
}

void Connection::SetDeadline(Clock::time_point when) {
  deadline_ = when;
  if (timer_armed_) {
    if (when < timer_.expiry()) timer_.cancel();  // OnTimer re-arms for the earlier deadline
    return;
  }
  ArmTimer();
}

void Connection::ArmTimer() {
  if (timer_armed_ || deadline_ == Clock::time_point::max() || state_ == State::kClosed) return;
  timer_armed_ = true;
  timer_.expires_at(deadline_);
  timer_.async_wait([self = shared_from_this()](error_code) { self->OnTimer(); });
}

void Connection::OnTimer() {
  timer_armed_ = false;
  if (state_ == State::kClosed || deadline_ == Clock::time_point::max()) return;
  if (Clock::now() < deadline_) return ArmTimer();
  deadline_ = Clock::time_point::max();
  switch (state_) {
    case State::kReading:
      if (!exchange_open_ && (buffer_.size() > 0 || (parser_ && parser_->got_some()))) {
        const bool header = !parser_ || !parser_->is_header_done();
        const uint32_t ms = header ? std::min(core_.options.header_timeout_ms, core_.options.read_timeout_ms)
                                   : core_.options.read_timeout_ms;
        return TransportError(408, "timeout",
                              std::string(header ? "request header" : "request") + " not received within " +
                                  std::to_string(ms) + " ms",
                              false);
      }
      return Close("");
    case State::kHandling:
    case State::kStreaming:
      return Close("slow_client");  // a write made no progress within the timeout
    default:
      return Close("");
  }
}

}  // namespace attest::http
