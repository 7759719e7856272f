// What the HTTP server (server/http_server.cc) and its connections (server/connection.cc) share:
// options, the route table, the worker pools, counters, the io_context, and the registry of open
// connections with the global and per-address connection bounds.
#pragma once

#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without including it

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/thread_annotations.h"
#include "server/http_server.h"
#include "server/worker_pool.h"

namespace attest::http {

namespace net = boost::asio;

class Connection;

// What the server and its connections share. Options, router and error responder are immutable
// after construction; counters are atomics; the connection registry has its own mutex (touched on
// connect and close only, never per request).
struct ServerCore {
  ServerCore(ServerOptions options_in, Router router_in, ErrorResponder errors_in);

  const ServerOptions options;
  const Router router;
  const ErrorResponder errors;
  WorkerPool interactive;
  WorkerPool answers;
  WorkerPool bulk;
  std::atomic<bool> stopping{false};
  std::atomic<size_t> open_streams{0};
  std::atomic<size_t> in_flight{0};

  // The transport's own error response (ErrorResponder; a bare JSON error if it throws).
  Response Error(int status, const char* code, std::string message, std::string field = "") const;
  // Reports a connection refused at accept to options.on_refused.
  void Refused(std::string_view reason) const;

  enum class Admit { kAdmitted, kServerFull, kAddressFull };
  // True when `address` already holds max_connections_per_address admitted connections (a hint
  // for refusing at once; Register() decides).
  bool AddressFull(const std::string& address) const;
  // Registers a connection (always) from client IP `address`; kServerFull when max_connections
  // were already admitted, kAddressFull when max_connections_per_address from that address were
  // (the caller then answers 503 or 429 and closes it). Only admitted connections count toward
  // either bound; a refused one lives only for its answer (plus up to 1 s of draining after a 503).
  Admit Register(const std::shared_ptr<Connection>& connection, const std::string& address);
  // Idempotent. When the server is stopping and this was the last connection, calls on_drained.
  void Unregister(Connection* connection);
  // `callback` runs (on the closing connection's thread) once stopping and no connection is left.
  void SetOnDrained(std::function<void()> callback);
  std::vector<std::shared_ptr<Connection>> Connections() const;
  size_t connection_count() const;

 private:
  struct Entry {
    std::weak_ptr<Connection> connection;
    std::string address;  // client IP
    bool counted = false; // admitted: holds a global and a per-address slot
  };
  mutable Mutex mu_;
  std::unordered_map<Connection*, Entry> connections_ GUARDED_BY(mu_);
  std::unordered_map<std::string, size_t> per_address_ GUARDED_BY(mu_);  // admitted, by client IP
  size_t admitted_ GUARDED_BY(mu_) = 0;
  std::function<void()> on_drained GUARDED_BY(mu_);

 public:
  // Last member: destroyed first, so handlers it still holds (connections) may use the rest.
  net::io_context io;
};

}  // namespace attest::http
