// One accepted TCP connection of the HTTP transport (server/http_server.h) and the state it shares
// with the server (ServerCore).
//
// Life of a connection: a single read loop runs for the whole connection. While a request is being
// read, bytes go to a Beast request parser (header, body and timeout limits). The parser stops once
// after the header, where the framing is checked (Transfer-Encoding, RFC 9112 §6) before a byte of
// body is read, and the header fields are counted so that trailer fields can be told apart (a
// request with trailers is refused: they are never read as header fields). Once complete the
// request is dispatched to its route's pool and the loop keeps reading, which is how a client that
// disconnects while its handler runs or its stream is open is noticed at once (ClientGone(),
// Stream::Closed()). Bytes that arrive meanwhile (a pipelined request) are kept for the next parse.
//
// Output: every byte to send (a response, a stream head, events) is appended under `out_mu_` to
// `pending_`, from whichever thread produces it; a flush posted to the connection's strand swaps
// `pending_` into `writing_` and writes it, so a worker never waits on the socket and consecutive
// events coalesce into one write. Writes are partial (async_write_some): when the socket is full,
// writing_ is trimmed to its unsent bytes (and again as the client reads), and both buffers are
// given back once drained, so a waiting connection holds no output memory. Reading waits for
// readability without a buffer. For a stream, pending + unsent writing bytes are bounded by
// stream_buffer_bytes: an event that would exceed it drops the client ("slow_client", logged).
// StreamImpl and ExchangeImpl are in server/exchange_impl.h.
//
// Thread-safety: members marked (strand) are touched only on the connection's strand; members
// marked GUARDED_BY(out_mu_) under that mutex; the public methods may be called from any thread.
#pragma once

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"
#include "server/http_server.h"
#include "server/server_core.h"

namespace attest::http {

namespace net = boost::asio;
using tcp = net::ip::tcp;

class ExchangeImpl;
class StreamImpl;

// The peer's IP address (an IPv4-mapped IPv6 address as IPv4) and "ip:port" ("[ip]:port" for v6);
// both "" when the socket has no peer any more.
std::pair<std::string, std::string> PeerOf(const tcp::socket& socket);

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(ServerCore& core, tcp::socket socket);
  ~Connection();

  // Begins reading; a connection that was not admitted is answered at once (503 when the server
  // is full, 429 when its address is) and closed.
  void Start(ServerCore::Admit admit);
  const std::string& address() const { return address_; }
  // Server stopping: idle connections close, open streams get the shutting_down notice.
  void BeginShutdown();
  // Grace expired: close now; handlers still running see ClientGone().
  void ForceClose();

 private:
  friend class ExchangeImpl;
  friend class StreamImpl;
  enum class State { kReading, kHandling, kStreaming, kDraining, kClosed };
  using Clock = std::chrono::steady_clock;

  // Strand-only.
  void StartReadingRequest();
  void DoRead();
  void OnReadable(boost::system::error_code ec);
  void ParseBuffered();
  bool CheckHeader();  // false when it refused the request
  void Dispatch();
  void TransportError(int status, const char* code, std::string message, bool linger);
  void Flush();
  void WriteSome();
  void OnWrite(boost::system::error_code ec, size_t n);
  void OnResponseDrained();
  void CompleteExchange();
  void GracefulClose();
  void Close(const char* stream_reason);
  void SetDeadline(Clock::time_point when);
  void ArmTimer();
  void OnTimer();

  // Any thread (ExchangeImpl / StreamImpl).
  void SubmitResponse(const Response& response, unsigned version, bool keep_alive);
  void SchedulePostLocked() REQUIRES(out_mu_);
  void MarkStreamClosedLocked(const char* reason) REQUIRES(out_mu_);

  ServerCore& core_;
  tcp::socket socket_;
  net::steady_timer timer_;
  std::string address_;  // client IP
  std::string remote_;   // "ip:port"
  std::atomic<bool> peer_gone_{false};

  // (strand)
  State state_ = State::kReading;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  bool reading_ = false;
  bool write_in_flight_ = false;
  bool sent_continue_ = false;
  bool header_checked_ = false;
  size_t header_fields_ = 0;                          // fields in the header (more at the end = trailers)
  Clock::time_point request_deadline_;                // read_timeout_ms from the start of the request
  bool linger_ = false;
  bool timer_armed_ = false;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::string writing_;
  size_t written_ = 0;  // bytes of writing_ already written
  bool compacted_ = false;  // writing_ was trimmed to its unsent bytes since it was filled
  bool exchange_open_ = false;
  std::shared_ptr<const Request> request_;
  std::string_view route_;
  Clock::time_point started_;

  Mutex out_mu_;
  std::string pending_ GUARDED_BY(out_mu_);
  size_t writing_bytes_ GUARDED_BY(out_mu_) = 0;
  bool flush_posted_ GUARDED_BY(out_mu_) = false;
  bool closed_ GUARDED_BY(out_mu_) = false;  // socket closed, output is discarded
  bool response_done_ GUARDED_BY(out_mu_) = false;  // the whole response is in pending_/written
  bool keep_alive_after_ GUARDED_BY(out_mu_) = false;
  int status_ GUARDED_BY(out_mu_) = 0;
  bool streaming_ GUARDED_BY(out_mu_) = false;  // the current exchange is a stream
  StreamImpl* stream_ GUARDED_BY(out_mu_) = nullptr;  // its Stream while the handler holds it
};

}  // namespace attest::http
