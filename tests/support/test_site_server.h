// TestSiteServer: a loopback HTTP/1.1 web site for crawler tests, benches and the kill test.
//
// - Serves a directory tree (e.g. /usr/share/doc/postgresql-doc-15/html) under a base path ("/" or
//   "/docs/15/"): Content-Type by extension, a strong ETag (the first 128 bits of the content's
//   SHA-256, recomputed when the file's size or mtime changes), Last-Modified (the file's mtime,
//   or TestSiteOptions::last_modified), 304 for a matching If-None-Match (weak comparison, "*"),
//   or, without If-None-Match, an If-Modified-Since not before Last-Modified (RFC 9110 §13.1).
//   A directory (and the base itself) is its index.html; "/docs/15" redirects (301) to "/docs/15/".
//   Paths are percent-decoded; ".." segments and NUL bytes get 400.
// - /robots.txt comes from SetRobots (status and body; 404 until set).
// - In-memory routes override the tree (exact target with its query first, then the path):
//   fixed responses (sitemaps, gzip sitemaps, feeds, pages with given headers; ETag and 304s as
//   for files unless `validators` is off), redirects, handlers computing a response per request,
//   slow responses (a delay before the headers, a body dripped in pieces). Replacing a route's
//   body changes its ETag.
// - Faults: the next N requests to a path (or to any path) answer a status (429, 503...) with a
//   Retry-After, before routes and files are looked at.
// - HTTP/1.1 keep-alive (a connection serves requests until the client closes it, sends
//   "Connection: close", or is idle for 30 s), HTTP/1.0 closes; GET and HEAD (others get 405);
//   one thread per connection.
// - Every request is logged: steady-clock times of arrival (request head read) and of completion
//   (last byte written), method, target, status, the validators the client sent, User-Agent, the
//   connection's id (1, 2, ... in accept order) and the peer address. The entry is in the log
//   before the response is sent (a client holding a response finds its request logged); its
//   completion time and `complete` are set after the last byte.
//
// Thread-safety: every public method may be called from any thread while the server runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "attest/status.h"

namespace attest::testing_support {

using Headers = std::vector<std::pair<std::string, std::string>>;
using SteadyTime = std::chrono::steady_clock::time_point;

struct SiteRequest {
  std::string method;
  std::string target;  // path and query as sent
  std::string path;    // without the query, not decoded
  Headers headers;
  uint64_t connection_id = 0;
  std::string Header(std::string_view name) const;  // "" when absent (names without case)
};

struct SiteResponse {
  int status = 200;
  Headers headers;  // Content-Type etc.; Content-Length, Connection and Date are added
  std::string body;
  // Add ETag (of the body) and answer 304 to a matching If-None-Match / If-Modified-Since (the
  // latter when `last_modified` is set, which is then also sent).
  bool validators = true;
  std::optional<std::chrono::system_clock::time_point> last_modified;
  std::chrono::milliseconds delay{0};  // before the status line
  size_t drip_bytes = 0;                // > 0: the body is written in pieces of this size...
  std::chrono::milliseconds drip_interval{0};  // ...with this pause between them
  bool close = false;                   // close the connection after this response
};

using SiteHandler = std::function<SiteResponse(const SiteRequest&)>;

struct LoggedRequest {
  SteadyTime arrived;    // the request head was read
  SteadyTime completed;  // the last byte was written (equal to `arrived` until then)
  bool complete = false; // the whole response was written
  std::string method;
  std::string target;
  int status = 0;
  std::string if_none_match;
  std::string if_modified_since;
  std::string user_agent;
  size_t body_bytes = 0;
  uint64_t connection_id = 0;
  std::string peer;  // "127.0.0.1:54321"
};

struct TestSiteOptions {
  std::string address = "127.0.0.1";
  int port = 0;                    // 0: an ephemeral port
  std::string base_path = "/";     // the tree's URL prefix; normalized to start and end with "/"
  std::filesystem::path root;      // empty: no tree, routes only
  std::optional<std::chrono::system_clock::time_point> last_modified;  // of every file; else its mtime
  std::chrono::milliseconds latency{0};  // added before every response
};

class TestSiteServer {
 public:
  explicit TestSiteServer(TestSiteOptions options = {});
  ~TestSiteServer();  // stops
  TestSiteServer(const TestSiteServer&) = delete;
  TestSiteServer& operator=(const TestSiteServer&) = delete;

  // Binds and starts accepting (once per instance); an error names the address when it cannot be bound.
  Status Start();
  // Stops accepting, closes every connection (in-flight responses are cut), joins the threads.
  void Stop();

  int port() const { return port_; }
  std::string origin() const;    // "http://127.0.0.1:PORT"
  std::string base_url() const;  // origin() + base path: "http://127.0.0.1:PORT/docs/15/"
  std::string Url(std::string_view path) const { return origin() + std::string(path); }  // path from "/"

  void SetRobots(int status, std::string body);
  void SetRoute(const std::string& target, SiteResponse response);
  void SetHandler(const std::string& target, SiteHandler handler);
  void SetRedirect(const std::string& target, int status, std::string location);
  void RemoveRoute(const std::string& target);
  // The next `count` requests to `path` ("" = any path) answer `status` with Retry-After:
  // `retry_after` (omitted when empty). Faults queue in the order they were added.
  void FailNext(const std::string& path, int count, int status, std::string retry_after);

  // The request log.
  std::vector<LoggedRequest> Log() const;
  void ClearLog();
  size_t RequestCount() const;
  // Requests whose target starts with `prefix`.
  size_t CountWithPrefix(std::string_view prefix) const;
  // The most requests (whose target starts with `prefix`) that arrived within any window of
  // length `window`.
  size_t MaxRequestsInWindow(std::chrono::nanoseconds window, std::string_view prefix = "") const;
  uint64_t ConnectionsAccepted() const { return connections_.load(); }

  // Content-Type for a file name's extension ("text/html; charset=utf-8" for .html).
  static std::string ContentTypeFor(const std::filesystem::path& file);
  // The strong ETag of a body: "\"<32 hex digits>\"".
  static std::string ETagFor(std::string_view body);

 private:
  struct Fault {
    std::string path;
    int remaining = 0;
    int status = 0;
    std::string retry_after;
  };
  struct CachedFile {
    int64_t mtime_ns = 0;
    uint64_t size = 0;
    std::string body;
  };
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void AcceptLoop();
  void Serve(int fd, uint64_t connection_id, std::string peer);
  SiteResponse Respond(const SiteRequest& request);
  SiteResponse ServeFile(const SiteRequest& request, std::string_view decoded_path);
  void ReapWorkers(bool all);

  TestSiteOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> connections_{0};
  std::thread acceptor_;

  mutable std::mutex mu_;  // guards everything below
  std::map<std::string, SiteHandler> routes_;
  std::list<Fault> faults_;
  std::vector<LoggedRequest> log_;
  size_t log_base_ = 0;  // requests dropped by ClearLog (log indexes stay valid across it)
  std::map<std::string, CachedFile> files_;
  std::list<Worker> workers_;
  std::vector<int> open_fds_;
};

}  // namespace attest::testing_support
