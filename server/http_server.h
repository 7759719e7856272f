// The HTTP transport of `attest serve`: a Boost.Beast/Asio server (chosen by measurement,
// bench/http_stack/README.md) that reads requests, hands them to a route table and writes plain
// or Server-Sent-Event responses. It knows nothing about Attest's routes: those live in
// server/routes.cc, and every error body is made by server/error_response.h.
//
// Threads: `io_threads` run the sockets (accept, read, write); handlers never run there. Each route
// names a pool: kInteractive (search, answers, reads) or kBulk (ingestion, evaluation), so bulk work
// cannot starve interactive requests. A pool has a bounded number of workers and a bounded queue;
// a request that finds its queue full gets 503 `overloaded` at once. Queued work carries a fairness
// key (Exchange::Defer; the bulk routes use the tenant) and keys are served in turn, each with a
// bounded share of the queue (server/worker_pool.h).
//
// Framing and connections: a Transfer-Encoding other than exactly "chunked", chunked not final,
// Transfer-Encoding in HTTP/1.0, and trailer fields are refused (501 / 400) and the connection is
// closed (RFC 9112 §6; docs/http_server.md). Connections are bounded in total and per client IP
// (429 beyond the latter), and a header must arrive within header_timeout_ms.
//
// Streams: a handler may turn its exchange into an SSE stream. Events are queued into a per-stream
// buffer of at most `stream_buffer_bytes`; the IO thread drains it to the socket. A client whose
// buffer overflows (it reads too slowly) is dropped: its stream closes, Send() returns false, and
// no other stream waits for it. A client that disconnects closes its stream as well, and the
// handler sees Closed() (it cancels retrieval and generation).
//
// Shutdown: Stop() (also on SIGINT/SIGTERM in Run()) stops accepting, lets requests in flight
// finish for up to `grace_ms`, sends every open stream a final `notice` event
// {"code":"shutting_down"} and closes it, then returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attest/status.h"

namespace attest::http {

struct Request {
  std::string method;                         // "GET", "POST", ...
  std::string target;                         // as sent: path and query
  std::string path;                           // percent-decoded path, no query
  std::map<std::string, std::string> query;   // decoded query parameters
  std::map<std::string, std::string> headers; // names lower-cased; repeated headers joined by ", "
  std::map<std::string, std::string> params;  // path parameters of the matched route ({id})
  std::string body;
  std::string remote;                         // peer address "ip:port"
  std::chrono::steady_clock::time_point received;  // when the request was fully read
  std::string Header(std::string_view lower_name) const;  // "" when absent
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// An open SSE response. Thread-safe: handlers call it from worker threads.
class Stream {
 public:
  virtual ~Stream() = default;
  // Queues `event: <event>\ndata: <data>\n\n` (data must not contain newlines; JSON is one line).
  // Returns false when the stream is closed: client gone, dropped as too slow, or server stopping.
  virtual bool Send(std::string_view event, std::string_view data) = 0;
  // True once the client disconnected, was dropped, or the stream ended.
  virtual bool Closed() const = 0;
  // Why it closed: "", "client_closed", "slow_client", "shutting_down", "finished".
  virtual std::string CloseReason() const = 0;
  // Ends the response after the queued events are written.
  virtual void Finish() = 0;
};

class Exchange;

// kInteractive: short requests (search, reads); kAnswer: answers, which cost ~10-100x a search, in
// their own lane so a burst of them never queues short requests behind it; kBulk: ingestion and
// evaluation; kInline: cheap handlers run on the IO thread.
enum class Pool { kInteractive, kAnswer, kBulk, kInline };

using Handler = std::function<void(std::shared_ptr<Exchange>)>;

// What a pool said to a request: queued, or why not (every worker busy and the queue full; the
// request's fairness key already has its share of the queue waiting; the server is stopping).
enum class Admission { kQueued, kPoolFull, kKeyFull, kStopped };

// One request being answered. Exactly one of Respond() or StartStream() must be called, once.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const Request& request() const = 0;
  virtual void Respond(Response response) = 0;
  // Sends 200 with Content-Type text/event-stream, Cache-Control: no-cache,
  // X-Accel-Buffering: no (proxy buffering off) and `headers`; then events may be sent.
  virtual std::shared_ptr<Stream> StartStream(std::vector<std::pair<std::string, std::string>> headers) = 0;
  // True once the client disconnected (checked by long handlers before streaming starts).
  virtual bool ClientGone() const = 0;
  // Hands the rest of the work to `pool`, queued under the fairness key `key` (the pool serves its
  // keys round robin; see server/worker_pool.h), where `next` will run with this exchange. Used by
  // a handler that must learn the key first (the bulk routes authenticate, then queue under the
  // caller's tenant). Anything but kQueued means `next` was dropped unrun and this handler still
  // owes the answer. kInline runs `next` at once on the calling thread.
  virtual Admission Defer(Pool pool, const std::string& key, Handler next) = 0;
};

// The route table: METHOD + pattern, where a pattern segment "{name}" matches one non-empty path
// segment and lands in Request::params. Unknown path: 404; known path, other method: 405 with Allow.
class Router {
 public:
  void Add(std::string method, std::string pattern, Pool pool, Handler handler);
  struct Match {
    const Handler* handler = nullptr;
    Pool pool = Pool::kInteractive;
    std::map<std::string, std::string> params;
    std::string allow;  // when the path matched but the method did not: "GET, POST"
    std::string_view pattern;  // the matched route's pattern (points into the Router); "" when none
  };
  // `path` is the raw path of the target (still %-encoded; see wire::RawPath).
  Match Find(std::string_view method, std::string_view path) const;
  // (method, pattern) of every route, in the order added: the OpenAPI document is checked against it.
  std::vector<std::pair<std::string, std::string>> Routes() const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;
    Pool pool;
    Handler handler;
  };
  std::vector<Route> routes_;
};

// Makes the body of an error the transport itself raises (404, 405, 413, 400 malformed HTTP,
// 503 overloaded, 408 timeout): given status, code, message, field; returns the Response.
using ErrorResponder = std::function<Response(int status, std::string code, std::string message, std::string field)>;

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;                    // 0 = pick a free port (see Server::port())
  unsigned io_threads = 2;
  unsigned interactive_workers = 4;
  unsigned answer_workers = 2;
  unsigned bulk_workers = 1;
  size_t interactive_queue = 1024;      // waiting requests beyond the workers; more gets 503
  size_t answer_queue = 1024;
  size_t bulk_queue = 64;
  // Waiting bulk requests per fairness key (the caller's tenant, see Exchange::Defer); more gets
  // kKeyFull. 0 = no per-key bound. Keeps one tenant from filling the whole bulk queue.
  size_t bulk_queue_per_key = 16;
  size_t max_body_bytes = 8u << 20;     // larger bodies get 413 before they are read
  size_t max_header_bytes = 16u << 10;
  size_t max_connections = 4096;
  // Open connections per client IP address; a connection beyond it gets 429 and is closed at once,
  // so one address cannot hold the global slots (slowloris). 0 = no per-address bound.
  size_t max_connections_per_address = 256;
  size_t stream_buffer_bytes = 256u << 10;  // per stream; overflow drops the client
  // SO_SNDBUF of a connection once it streams: fixes the kernel's share of a slow stream's unsent
  // bytes (the kernel may double it for bookkeeping). 0 = the kernel's autotuning (up to
  // net.ipv4.tcp_wmem's maximum per socket).
  size_t stream_send_buffer_bytes = 0;
  // TCP_NOTSENT_LOWAT of a connection once it streams: the kernel holds at most about this many of
  // a stream's unsent bytes (the rest wait in the stream's buffer), and wakes the connection when
  // fewer than half are left. 0 = the kernel's default (no limit; a wake-up at every read).
  size_t stream_kernel_unsent_bytes = 16u << 10;
  // The request header must arrive within this long from accept, or from the end of the previous
  // response on a keep-alive connection (an idle keep-alive connection is closed after it).
  uint32_t header_timeout_ms = 10000;
  // A whole request (header and body) must arrive within this long, and a write must make progress.
  uint32_t read_timeout_ms = 30000;
  uint32_t grace_ms = 5000;             // shutdown: time for requests in flight
  // Called for every finished exchange (metrics, logs): route pattern ("" = none), status, seconds.
  std::function<void(const Request&, std::string_view route, int status, double seconds)> on_complete;
  // Called for every connection refused at accept: "per_address" (429) or "server_full" (503).
  // Runs on the accepting thread; must be cheap and thread-safe.
  std::function<void(std::string_view reason)> on_refused;
};

class Server {
 public:
  static Result<std::unique_ptr<Server>> Create(ServerOptions options, Router router, ErrorResponder errors);
  virtual ~Server() = default;
  // Binds and listens; after it returns OK, port() is the bound port.
  virtual Status Start() = 0;
  virtual uint16_t port() const = 0;
  // Blocks until Stop() or SIGINT/SIGTERM, then shuts down gracefully.
  virtual void Run() = 0;
  // Thread-safe; may be called from a handler or a signal watcher.
  virtual void Stop() = 0;
  virtual bool Stopping() const = 0;
  // Open streams and requests in flight (gauges for /metrics).
  virtual size_t open_streams() const = 0;
  virtual size_t in_flight() const = 0;
};

}  // namespace attest::http
