// LoopbackTestServer: a minimal HTTP/1.1 server on a chosen loopback address (127.0.0.1,
// 127.0.0.2, ...: Linux routes all of 127/8 to lo) for fetcher tests. Unlike the httplib-based test
// servers it writes raw bytes, so a handler can drip a body, stream an endless chunked body, send a
// compressed body or lie about lengths, and it counts every TCP connection it accepts, even one
// that never sends a request (the SSRF tests assert that a server of ours was never connected to).
//
// One request per connection (responses should say "Connection: close"). Handlers run on a thread
// per connection; a handler that streams forever must stop when Write() returns false (the client
// went away) or when the server stops.
//
// Thread-safety: Route() before the first request; the counters may be read from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace attest::testing_support {

struct LoopbackRequest {
  std::string method;
  std::string target;  // path and query as sent
  std::string path;    // without the query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string Header(std::string_view name) const;  // "" when absent
};

class LoopbackConnection {
 public:
  explicit LoopbackConnection(int fd, const std::atomic<bool>* stopping) : fd_(fd), stopping_(stopping) {}
  bool Write(std::string_view bytes);  // false when the peer is gone or the server stops
  bool stopping() const { return stopping_->load(); }

 private:
  int fd_;
  const std::atomic<bool>* stopping_;
};

using LoopbackHandler = std::function<void(const LoopbackRequest&, LoopbackConnection&)>;

class LoopbackTestServer {
 public:
  // Binds `address`:`port` (0 = an ephemeral port) and starts accepting. Aborts the test process
  // when the address cannot be bound.
  explicit LoopbackTestServer(std::string address = "127.0.0.1", int port = 0);
  ~LoopbackTestServer();
  LoopbackTestServer(const LoopbackTestServer&) = delete;
  LoopbackTestServer& operator=(const LoopbackTestServer&) = delete;

  // Exact path match; unknown paths get 404.
  void Route(const std::string& path, LoopbackHandler handler);

  int port() const { return port_; }
  const std::string& address() const { return address_; }
  std::string base_url() const { return "http://" + address_ + ":" + std::to_string(port_); }
  int accepted() const { return accepted_.load(); }
  int requests() const { return requests_.load(); }
  std::vector<LoopbackRequest> recorded() const;

  // A complete response with Content-Length and Connection: close.
  static std::string Response(int status, const std::vector<std::pair<std::string, std::string>>& headers,
                              std::string_view body);

 private:
  void AcceptLoop();
  void Serve(int fd);

  std::string address_;
  int port_ = 0;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> requests_{0};
  std::map<std::string, LoopbackHandler> routes_;
  mutable std::mutex mu_;
  std::vector<LoopbackRequest> recorded_;
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

}  // namespace attest::testing_support
