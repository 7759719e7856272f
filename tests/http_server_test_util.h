// Shared by the HTTP transport tests (tests/http_server_test.cc, tests/http_server_hostile_test.cc):
// a raw client of a few lines of POSIX sockets, so the tests see exactly the bytes the server
// writes (it can connect from any loopback address), and a server under test on 127.0.0.1 with a
// port picked by the kernel.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/http_server.h"

namespace attest::http::test_util {

using Clock = std::chrono::steady_clock;

inline int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// ---- a raw client -------------------------------------------------------------------------------

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;                            // de-chunked
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class Client {
 public:
  // `source`: the local address to connect from (any 127.x.y.z is loopback), default 127.0.0.1.
  explicit Client(uint16_t port, int rcvbuf = 0, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (source != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &local.sin_addr);
      ::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { Close(); }
  bool connected() const { return connected_; }

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads more bytes into data_; false on EOF, error or timeout.
  bool ReadMore(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char buf[16384];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    data_.append(buf, static_cast<size_t>(n));
    return true;
  }

  // True once the de-chunked body text (for streams) or raw data contains `needle`.
  bool ReadUntil(std::string_view needle, int timeout_ms = 3000) {
    auto start = Clock::now();
    while (data_.find(needle) == std::string::npos) {
      int left = timeout_ms - static_cast<int>(MsSince(start));
      if (left <= 0 || !ReadMore(left)) return data_.find(needle) != std::string::npos;
    }
    return true;
  }

  // True when the server closes the connection within the timeout (data read meanwhile is kept).
  bool WaitEof(int timeout_ms = 3000) {
    auto start = Clock::now();
    while (!eof_) {
      int left = timeout_ms - static_cast<int>(MsSince(start));
      if (left <= 0) return false;
      if (!ReadMore(left) && !eof_) return false;
    }
    return true;
  }

  // Reads and consumes one response (Content-Length or chunked body).
  std::optional<RawResponse> ReadResponse(int timeout_ms = 3000) {
    auto start = Clock::now();
    auto more = [&] {
      int left = timeout_ms - static_cast<int>(MsSince(start));
      return left > 0 && ReadMore(left);
    };
    size_t head_end;
    while ((head_end = data_.find("\r\n\r\n")) == std::string::npos) {
      if (!more()) return std::nullopt;
    }
    RawResponse r;
    std::string head = data_.substr(0, head_end);
    size_t pos = head.find("\r\n");
    std::string status_line = head.substr(0, pos);
    if (status_line.size() < 12) return std::nullopt;
    r.status = std::stoi(status_line.substr(9, 3));
    while (pos != std::string::npos && pos < head.size()) {
      size_t next = head.find("\r\n", pos + 2);
      std::string line = head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      pos = next;
    }
    size_t body_start = head_end + 4;
    if (r.Header("transfer-encoding") == "chunked") {
      size_t p = body_start;
      while (true) {
        size_t line_end;
        while ((line_end = data_.find("\r\n", p)) == std::string::npos) {
          if (!more()) return std::nullopt;
        }
        size_t size = std::stoul(data_.substr(p, line_end - p), nullptr, 16);
        while (data_.size() < line_end + 2 + size + 2) {
          if (!more()) return std::nullopt;
        }
        r.body += data_.substr(line_end + 2, size);
        p = line_end + 2 + size + 2;
        if (size == 0) break;
      }
      data_.erase(0, p);
    } else {
      size_t length = r.headers.count("content-length") ? std::stoul(r.Header("content-length")) : 0;
      while (data_.size() < body_start + length) {
        if (!more()) return std::nullopt;
      }
      r.body = data_.substr(body_start, length);
      data_.erase(0, body_start + length);
    }
    return r;
  }

  std::string data_;
  bool eof_ = false;

 private:
  int fd_ = -1;
  bool connected_ = false;
};

inline std::string Get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: t\r\n" + extra + "\r\n";
}

// ---- a server under test ------------------------------------------------------------------------

inline Response JsonError(int status, std::string code, std::string message, std::string field) {
  Response r;
  r.status = status;
  r.body = R"({"error":{"code":")" + code + R"(","message":")" + message + R"(","field":")" + field + R"("}})";
  return r;
}

inline void Reply(const std::shared_ptr<Exchange>& ex, int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::move(body);
  ex->Respond(std::move(r));
}

// A one-shot gate handlers can wait on.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct Completed {
  std::string route;
  int status;
};

class TestServer {
 public:
  TestServer(Router router, ServerOptions options = {}) {
    options.on_complete = [this](const Request&, std::string_view route, int status, double) {
      std::lock_guard<std::mutex> lock(mu_);
      completed_.push_back({std::string(route), status});
    };
    auto created = Server::Create(std::move(options), std::move(router), JsonError);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    server_ = std::move(created.value());
    Status started = server_->Start();
    EXPECT_TRUE(started.ok()) << started.ToString();
    runner_ = std::thread([this] {
      server_->Run();
      run_returned_ = Clock::now();
      returned_.store(true);
    });
  }
  ~TestServer() {
    server_->Stop();
    runner_.join();
  }
  uint16_t port() const { return server_->port(); }
  Server& server() { return *server_; }
  bool returned() const { return returned_.load(); }
  // Stops and waits for Run() to return; the milliseconds it took.
  int64_t StopAndWait(int timeout_ms) {
    auto start = Clock::now();
    server_->Stop();
    while (!returned_.load() && MsSince(start) < timeout_ms) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return returned_.load() ? std::chrono::duration_cast<std::chrono::milliseconds>(run_returned_ - start).count()
                            : -1;
  }
  std::vector<Completed> completed() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_;
  }

 private:
  std::unique_ptr<Server> server_;
  std::thread runner_;
  std::atomic<bool> returned_{false};
  Clock::time_point run_returned_;
  std::mutex mu_;
  std::vector<Completed> completed_;
};

inline bool WaitFor(const std::function<bool()>& condition, int timeout_ms = 3000) {
  auto start = Clock::now();
  while (!condition()) {
    if (MsSince(start) > timeout_ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

inline Router BasicRouter() {
  Router router;
  router.Add("GET", "/hello", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) { Reply(ex, 200, "hi"); });
  router.Add("GET", "/items/{id}", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) {
    const Request& r = ex->request();
    std::string q = r.query.count("q") ? r.query.at("q") : "-";
    Reply(ex, 200, "id=" + r.params.at("id") + " q=" + q + " h=" + r.Header("x-thing"));
  });
  router.Add("PUT", "/items/{id}", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) { Reply(ex, 204, ""); });
  router.Add("GET", "/items/special", Pool::kInline, [](std::shared_ptr<Exchange> ex) { Reply(ex, 200, "special"); });
  router.Add("POST", "/echo", Pool::kInteractive,
             [](std::shared_ptr<Exchange> ex) { Reply(ex, 200, ex->request().body); });
  return router;
}

}  // namespace attest::http::test_util
