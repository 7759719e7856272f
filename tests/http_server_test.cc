// The HTTP transport (server/http_server.h) over real sockets on 127.0.0.1: routing and the
// transport's own errors, keep-alive and pipelining, worker pools and overload, SSE streams, slow
// and vanished clients, and graceful shutdown. The client is a few lines of POSIX sockets so the
// tests see exactly the bytes the server writes.
#include "server/http_server.h"

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

namespace attest::http {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t) {
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

std::string Get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: t\r\n" + extra + "\r\n";
}

// ---- a server under test ------------------------------------------------------------------------

Response JsonError(int status, std::string code, std::string message, std::string field) {
  Response r;
  r.status = status;
  r.body = R"({"error":{"code":")" + code + R"(","message":")" + message + R"(","field":")" + field + R"("}})";
  return r;
}

void Reply(const std::shared_ptr<Exchange>& ex, int status, std::string body) {
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

bool WaitFor(const std::function<bool()>& condition, int timeout_ms = 3000) {
  auto start = Clock::now();
  while (!condition()) {
    if (MsSince(start) > timeout_ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

Router BasicRouter() {
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

// ---- tests --------------------------------------------------------------------------------------

TEST(HttpServerTest, RoutesParamsQueryAndTransportErrors) {
  TestServer server(BasicRouter());
  Client c(server.port());
  ASSERT_TRUE(c.connected());

  ASSERT_TRUE(c.Send(Get("/hello")));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hi");
  EXPECT_EQ(r->Header("content-type"), "text/plain");

  ASSERT_TRUE(c.Send(Get("/items/a%20b?q=x+y%21&z", "X-Thing: 1\r\nX-THING: 2\r\n")));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "id=a b q=x y! h=1, 2");

  ASSERT_TRUE(c.Send(Get("/items/special")));  // the literal route beats {id}
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "special");

  ASSERT_TRUE(c.Send(Get("/nope")));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_THAT(r->body, HasSubstr(R"("code":"not_found")"));

  ASSERT_TRUE(c.Send("DELETE /items/7 HTTP/1.1\r\nHost: t\r\n\r\n"));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->Header("allow"), "GET, PUT");
  EXPECT_THAT(r->body, HasSubstr(R"("code":"method_not_allowed")"));

  ASSERT_TRUE(c.Send(Get("/items/%zz")));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr(R"("code":"bad_http")"));

  ASSERT_TRUE(WaitFor([&] { return server.completed().size() == 6; }));
  auto done = server.completed();
  EXPECT_EQ(done[0].route, "/hello");
  EXPECT_EQ(done[1].route, "/items/{id}");
  EXPECT_EQ(done[2].route, "/items/special");
  EXPECT_EQ(done[3].route, "");
  EXPECT_EQ(done[3].status, 404);
  EXPECT_EQ(done[4].status, 405);
}

TEST(HttpServerTest, OversizedBodiesGet413WithoutBeingRead) {
  ServerOptions options;
  options.max_body_bytes = 1000;
  TestServer server(BasicRouter(), options);
  {
    Client c(server.port());
    ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n"));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    EXPECT_THAT(r->body, HasSubstr(R"("code":"payload_too_large")"));
    EXPECT_EQ(r->Header("connection"), "close");
    EXPECT_TRUE(c.WaitEof());
  }
  {
    Client c(server.port());  // chunked: the limit applies as the chunks arrive
    std::string chunk(600, 'x');
    ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n" + chunk +
                       "\r\n258\r\n" + chunk + "\r\n"));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
  }
  {
    Client c(server.port());  // within the limit, chunked, echoed back
    ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "hello");
  }
}

TEST(HttpServerTest, MalformedHeaderLimitAndReadTimeout) {
  ServerOptions options;
  options.max_header_bytes = 1024;
  options.read_timeout_ms = 300;
  TestServer server(BasicRouter(), options);
  {
    Client c(server.port());
    ASSERT_TRUE(c.Send("THIS IS NOT HTTP\r\n\r\n"));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_THAT(r->body, HasSubstr(R"("code":"bad_http")"));
    EXPECT_TRUE(c.WaitEof());
  }
  {
    Client c(server.port());
    ASSERT_TRUE(c.Send(Get("/hello", "X-Big: " + std::string(2000, 'a') + "\r\n")));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 431);
  }
  {
    Client c(server.port());  // half a request, then silence
    auto start = Clock::now();
    ASSERT_TRUE(c.Send("GET /hello HTTP/1.1\r\nHost: t\r\n"));
    auto r = c.ReadResponse(2000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 408);
    EXPECT_GE(MsSince(start), 250);
  }
  {
    Client c(server.port());  // an idle keep-alive connection is closed silently
    EXPECT_TRUE(c.WaitEof(2000));
    EXPECT_TRUE(c.data_.empty());
  }
}

TEST(HttpServerTest, KeepAliveServesManyRequestsOnOneConnectionAndPipelines) {
  TestServer server(BasicRouter());
  Client c(server.port());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(c.Send(Get("/items/" + std::to_string(i))));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, "id=" + std::to_string(i) + " q=- h=");
    EXPECT_EQ(r->Header("connection"), "");
  }
  // Two requests in one packet: answered in order.
  ASSERT_TRUE(c.Send(Get("/items/a") + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"));
  auto a = c.ReadResponse();
  auto b = c.ReadResponse();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->body, "id=a q=- h=");
  EXPECT_EQ(b->body, "abc");
  // The client asks to close: the response says so and the server closes.
  ASSERT_TRUE(c.Send(Get("/hello", "Connection: close\r\n")));
  auto last = c.ReadResponse();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->Header("connection"), "close");
  EXPECT_TRUE(c.WaitEof());
  // HTTP/1.0 without keep-alive: closed after one response.
  Client d(server.port());
  ASSERT_TRUE(d.Send("GET /hello HTTP/1.0\r\n\r\n"));
  auto r10 = d.ReadResponse();
  ASSERT_TRUE(r10);
  EXPECT_EQ(r10->body, "hi");
  EXPECT_TRUE(d.WaitEof());
}

TEST(HttpServerTest, FullBulkQueueGets503AndNeverDelaysInteractive) {
  Gate gate;
  std::atomic<int> bulk_started{0};
  Router router = BasicRouter();
  router.Add("POST", "/bulk", Pool::kBulk, [&](std::shared_ptr<Exchange> ex) {
    ++bulk_started;
    gate.Wait();
    Reply(ex, 200, "bulk done");
  });
  ServerOptions options;
  options.bulk_workers = 1;
  options.bulk_queue = 1;
  options.interactive_workers = 1;
  options.interactive_queue = 0;
  TestServer server(std::move(router), options);

  std::string bulk = "POST /bulk HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";
  Client b1(server.port()), b2(server.port()), b3(server.port());
  ASSERT_TRUE(b1.Send(bulk));
  ASSERT_TRUE(WaitFor([&] { return bulk_started.load() == 1; }));
  ASSERT_TRUE(b2.Send(bulk));  // waits in the bulk queue
  ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == 2; }));
  auto start = Clock::now();
  ASSERT_TRUE(b3.Send(bulk));
  auto r3 = b3.ReadResponse();
  ASSERT_TRUE(r3);
  EXPECT_EQ(r3->status, 503);
  EXPECT_THAT(r3->body, HasSubstr(R"("code":"overloaded")"));
  EXPECT_LT(MsSince(start), 500);

  // Interactive requests are answered while bulk work is stuck.
  for (int i = 0; i < 3; ++i) {
    Client c(server.port());
    auto t0 = Clock::now();
    ASSERT_TRUE(c.Send(Get("/hello")));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_LT(MsSince(t0), 500);
  }
  gate.Open();
  auto r1 = b1.ReadResponse(), r2 = b2.ReadResponse();
  ASSERT_TRUE(r1 && r2);
  EXPECT_EQ(r1->body, "bulk done");
  EXPECT_EQ(r2->body, "bulk done");
  EXPECT_EQ(bulk_started.load(), 2);
}

TEST(HttpServerTest, InteractivePoolOverloadAnswers503) {
  Gate gate;
  std::atomic<int> started{0};
  Router router;
  router.Add("GET", "/slow", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    ++started;
    gate.Wait();
    Reply(ex, 200, "ok");
  });
  ServerOptions options;
  options.interactive_workers = 2;
  options.interactive_queue = 1;
  TestServer server(std::move(router), options);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->Send(Get("/slow")));
    ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == static_cast<size_t>(i + 1); }));
  }
  EXPECT_EQ(started.load(), 2);
  Client extra(server.port());
  ASSERT_TRUE(extra.Send(Get("/slow")));
  auto r = extra.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  gate.Open();
  for (auto& c : clients) {
    auto ok = c->ReadResponse();
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200);
  }
}

TEST(HttpServerTest, StreamSendsHeadersAndEventsInOrder) {
  Router router;
  router.Add("GET", "/stream", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({{"X-Request-Id", "r1"}});
    for (int i = 0; i < 50; ++i) EXPECT_TRUE(s->Send("delta", R"({"i":)" + std::to_string(i) + "}"));
    EXPECT_TRUE(s->Send("multi", "a\nb"));
    s->Finish();
    EXPECT_TRUE(s->Closed());
    EXPECT_EQ(s->CloseReason(), "finished");
    EXPECT_FALSE(s->Send("late", "{}"));
  });
  router.Add("GET", "/hello", Pool::kInline, [](std::shared_ptr<Exchange> ex) { Reply(ex, 200, "hi"); });
  TestServer server(std::move(router));
  Client c(server.port());
  ASSERT_TRUE(c.Send(Get("/stream")));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->Header("content-type"), "text/event-stream");
  EXPECT_EQ(r->Header("cache-control"), "no-cache");
  EXPECT_EQ(r->Header("x-accel-buffering"), "no");
  EXPECT_EQ(r->Header("x-request-id"), "r1");
  EXPECT_EQ(r->Header("transfer-encoding"), "chunked");
  std::string expected;
  for (int i = 0; i < 50; ++i) expected += "event: delta\ndata: {\"i\":" + std::to_string(i) + "}\n\n";
  expected += "event: multi\ndata: a\ndata: b\n\n";
  EXPECT_EQ(r->body, expected);
  // The connection stays usable after the stream ended.
  ASSERT_TRUE(c.Send(Get("/hello")));
  auto after = c.ReadResponse();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, "hi");
  ASSERT_TRUE(WaitFor([&] { return server.completed().size() == 2; }));
  EXPECT_EQ(server.completed()[0].route, "/stream");
  EXPECT_EQ(server.completed()[0].status, 200);
  EXPECT_EQ(server.server().open_streams(), 0u);
  EXPECT_EQ(server.server().in_flight(), 0u);
}

TEST(HttpServerTest, SlowClientIsDroppedWhileOthersContinue) {
  std::promise<std::string> slow_reason;
  std::atomic<int> slow_sent{0};
  Router router;
  router.Add("GET", "/flood", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({});
    std::string data(1000, 'x');
    auto start = Clock::now();
    while (s->Send("delta", data) && MsSince(start) < 5000) ++slow_sent;
    slow_reason.set_value(s->CloseReason());
  });
  router.Add("GET", "/ticks", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({});
    for (int i = 0; i < 20; ++i) {
      s->Send("tick", std::to_string(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    s->Finish();
  });
  router.Add("GET", "/hello", Pool::kInteractive, [](std::shared_ptr<Exchange> ex) { Reply(ex, 200, "hi"); });
  ServerOptions options;
  options.stream_buffer_bytes = 64 << 10;
  TestServer server(std::move(router), options);

  Client slow(server.port(), 4096);  // never reads
  ASSERT_TRUE(slow.Send(Get("/flood")));
  Client ticks(server.port());
  ASSERT_TRUE(ticks.Send(Get("/ticks")));

  auto reason = slow_reason.get_future();
  ASSERT_EQ(reason.wait_for(std::chrono::seconds(6)), std::future_status::ready);
  EXPECT_EQ(reason.get(), "slow_client");
  EXPECT_GT(slow_sent.load(), 0);

  for (int i = 0; i < 3; ++i) {
    Client c(server.port());
    ASSERT_TRUE(c.Send(Get("/hello")));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "hi");
  }
  auto t = ticks.ReadResponse(5000);
  ASSERT_TRUE(t);
  EXPECT_THAT(t->body, HasSubstr("event: tick\ndata: 19\n\n"));
  ASSERT_TRUE(WaitFor([&] { return server.server().open_streams() == 0; }));
}

TEST(HttpServerTest, DisconnectIsSeenWithin200ms) {
  std::atomic<bool> handler_started{false}, stream_started{false};
  std::promise<int64_t> gone_after, closed_after;
  std::promise<std::string> close_reason;
  std::atomic<int64_t> closed_at_ns{0};
  auto ns_now = [] { return Clock::now().time_since_epoch().count(); };
  Router router;
  router.Add("POST", "/work", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    handler_started = true;
    auto start = Clock::now();
    while (!ex->ClientGone() && MsSince(start) < 3000) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    gone_after.set_value((ns_now() - closed_at_ns.load()) / 1000000);
    Reply(ex, 200, "too late");
  });
  router.Add("GET", "/stream", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({});
    s->Send("hello", "{}");
    stream_started = true;
    auto start = Clock::now();
    while (!s->Closed() && MsSince(start) < 3000) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    closed_after.set_value((ns_now() - closed_at_ns.load()) / 1000000);
    close_reason.set_value(s->CloseReason());
  });
  TestServer server(std::move(router));
  {
    Client c(server.port());
    ASSERT_TRUE(c.Send("POST /work HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
    ASSERT_TRUE(WaitFor([&] { return handler_started.load(); }));
    closed_at_ns = ns_now();
    c.Close();
    auto f = gone_after.get_future();
    ASSERT_EQ(f.wait_for(std::chrono::seconds(4)), std::future_status::ready);
    EXPECT_LE(f.get(), 200);
  }
  {
    Client c(server.port());
    ASSERT_TRUE(c.Send(Get("/stream")));
    ASSERT_TRUE(c.ReadUntil("event: hello"));
    ASSERT_TRUE(WaitFor([&] { return stream_started.load(); }));
    closed_at_ns = ns_now();
    c.Close();
    auto f = closed_after.get_future();
    ASSERT_EQ(f.wait_for(std::chrono::seconds(4)), std::future_status::ready);
    EXPECT_LE(f.get(), 200);
    EXPECT_EQ(close_reason.get_future().get(), "client_closed");
  }
  ASSERT_TRUE(WaitFor([&] { return server.server().open_streams() == 0 && server.server().in_flight() == 0; }));
}

TEST(HttpServerTest, StopNotifiesStreamsFinishesInFlightAndReturnsWithinGrace) {
  std::mutex reasons_mu;
  std::vector<std::string> reasons;
  std::atomic<bool> slow_started{false};
  Router router;
  router.Add("GET", "/stream", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({});
    s->Send("hello", "{}");
    while (!s->Closed()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_FALSE(s->Send("after", "{}"));
    std::lock_guard<std::mutex> lock(reasons_mu);
    reasons.push_back(s->CloseReason());
  });
  router.Add("GET", "/slow", Pool::kBulk, [&](std::shared_ptr<Exchange> ex) {
    slow_started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    Reply(ex, 200, "finished in grace");
  });
  ServerOptions options;
  options.grace_ms = 2000;
  TestServer server(std::move(router), options);

  Client s1(server.port()), s2(server.port()), slow(server.port()), idle(server.port());
  ASSERT_TRUE(s1.Send(Get("/stream")));
  ASSERT_TRUE(s1.ReadUntil("event: hello"));
  ASSERT_TRUE(s2.Send(Get("/stream")));
  ASSERT_TRUE(s2.ReadUntil("event: hello"));
  ASSERT_TRUE(slow.Send(Get("/slow")));
  ASSERT_TRUE(WaitFor([&] { return slow_started.load(); }));
  EXPECT_EQ(server.server().open_streams(), 2u);

  int64_t took = server.StopAndWait(4000);
  EXPECT_TRUE(server.server().Stopping());
  ASSERT_GE(took, 0) << "Run() did not return";
  EXPECT_LT(took, 2000);
  const std::string notice =
      "event: notice\ndata: {\"code\":\"shutting_down\",\"message\":\"server is shutting down\"}\n\n";
  for (Client* c : {&s1, &s2}) {
    EXPECT_TRUE(c->ReadUntil(notice));
    EXPECT_TRUE(c->WaitEof());
  }
  auto r = slow.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "finished in grace");
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(idle.WaitEof());
  {
    std::lock_guard<std::mutex> lock(reasons_mu);  // Run() joined the workers: both handlers ended
    EXPECT_THAT(reasons, ::testing::ElementsAre("shutting_down", "shutting_down"));
  }
  Client late(server.port());
  EXPECT_FALSE(late.connected() && late.Send(Get("/slow")) && late.ReadResponse(300));
}

TEST(HttpServerTest, GraceBoundsAHandlerThatNeverAnswers) {
  std::atomic<bool> started{false};
  Router router;
  router.Add("GET", "/stuck", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    started = true;
    while (!ex->ClientGone()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  ServerOptions options;
  options.grace_ms = 200;
  TestServer server(std::move(router), options);
  Client c(server.port());
  ASSERT_TRUE(c.Send(Get("/stuck")));
  ASSERT_TRUE(WaitFor([&] { return started.load(); }));
  int64_t took = server.StopAndWait(3000);
  ASSERT_GE(took, 0);
  EXPECT_GE(took, 150);
  EXPECT_LT(took, 1500);
}

// ---- hostile framing (RFC 9112 §6) and connection exhaustion ------------------------------------

// A router that counts every request a handler saw, so a smuggled request would show.
struct CountingRouter {
  std::shared_ptr<std::atomic<int>> seen = std::make_shared<std::atomic<int>>(0);
  Router Build() const {
    Router router = BasicRouter();
    auto n = seen;
    router.Add("POST", "/count", Pool::kInteractive, [n](std::shared_ptr<Exchange> ex) {
      ++*n;
      Reply(ex, 200, "body=" + ex->request().body + " x-cred=" + ex->request().Header("x-cred"));
    });
    router.Add("GET", "/count", Pool::kInteractive, [n](std::shared_ptr<Exchange> ex) {
      ++*n;
      Reply(ex, 200, "smuggled");
    });
    return router;
  }
};

// Status lines ("HTTP/1.x NNN ") in `data`.
size_t CountResponses(const std::string& data) {
  size_t n = 0;
  for (size_t at = data.find("HTTP/1."); at != std::string::npos; at = data.find("HTTP/1.", at + 1)) {
    n += at + 13 <= data.size() && data[at + 8] == ' ' && std::isdigit(static_cast<unsigned char>(data[at + 9])) &&
         std::isdigit(static_cast<unsigned char>(data[at + 10])) &&
         std::isdigit(static_cast<unsigned char>(data[at + 11])) && data[at + 12] == ' ';
  }
  return n;
}

// Sends `head` + "\r\n" + `rest` (a would-be body that is itself a request) and expects exactly one
// response with `status`, the connection closed, and no handler run.
void ExpectRefusedAndClosed(uint16_t port, const std::shared_ptr<std::atomic<int>>& seen, const std::string& head,
                            const std::string& rest, int status) {
  SCOPED_TRACE(head);
  const int before = seen->load();
  Client c(port);
  ASSERT_TRUE(c.Send(head + "\r\n" + rest));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->Header("connection"), "close");
  EXPECT_TRUE(c.WaitEof());
  EXPECT_EQ(CountResponses(c.data_), 0u) << c.data_;  // nothing after the refusal
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(seen->load(), before) << "a handler ran";
}

const char kSmuggled[] = "GET /count HTTP/1.1\r\nHost: t\r\n\r\n";

TEST(HttpServerTest, Regression_XchunkedTransferEncodingIsRefusedAndClosed) {
  CountingRouter counting;
  TestServer server(counting.Build());
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\n", kSmuggled, 501);
  // With a Content-Length beside it the unknown coding still wins (RFC 9112 §6.3: TE overrides CL).
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\nContent-Length: 3\r\n",
                         std::string("abc") + kSmuggled, 501);
}

TEST(HttpServerTest, Regression_NonFinalOrUnknownTransferCodingIsRefusedAndClosed) {
  CountingRouter counting;
  TestServer server(counting.Build());
  const std::string post = "POST /count HTTP/1.1\r\nHost: t\r\n";
  const std::string chunked_body = std::string("5\r\nhello\r\n0\r\n\r\n") + kSmuggled;
  ExpectRefusedAndClosed(server.port(), counting.seen, post + "Transfer-Encoding: chunked, identity\r\n", kSmuggled,
                         400);
  ExpectRefusedAndClosed(server.port(), counting.seen, post + "Transfer-Encoding: chunked, chunked\r\n", chunked_body,
                         400);
  ExpectRefusedAndClosed(server.port(), counting.seen, post + "Transfer-Encoding:\r\n", kSmuggled, 400);
  ExpectRefusedAndClosed(server.port(), counting.seen, post + "Transfer-Encoding: gzip, chunked\r\n", chunked_body,
                         501);
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         post + "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", chunked_body, 501);
  ExpectRefusedAndClosed(server.port(), counting.seen, post + "Transfer-Encoding: chunked;x=1\r\n", chunked_body,
                         501);
  // Still accepted: exactly "chunked" (any case, optional whitespace), and the same on keep-alive.
  Client c(server.port());
  ASSERT_TRUE(c.Send(post + "Transfer-Encoding:  Chunked \r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "body=hello x-cred=");
}

TEST(HttpServerTest, Regression_TransferEncodingInHttp10IsRefusedAndClosed) {
  CountingRouter counting;
  TestServer server(counting.Build());
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n",
                         std::string("5\r\nhello\r\n0\r\n\r\n") + kSmuggled, 400);
}

TEST(HttpServerTest, Regression_TrailerFieldsAreNeverReadAsHeaders) {
  CountingRouter counting;
  TestServer server(counting.Build());
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n",
                         "5\r\nhello\r\n0\r\nX-Cred: from-the-trailer\r\n\r\n", 400);
  // A chunked body without trailers is fine.
  Client c(server.port());
  ASSERT_TRUE(c.Send("POST /count HTTP/1.1\r\nHost: t\r\nX-Cred: header\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5\r\nhello\r\n0\r\n\r\n"));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "body=hello x-cred=header");
}

TEST(HttpServerTest, Regression_EndlessTrailerSectionIsCutAtTheHeaderLimit) {
  ServerOptions options;
  options.max_header_bytes = 1024;
  CountingRouter counting;
  TestServer server(counting.Build(), options);
  Client c(server.port());
  ASSERT_TRUE(c.Send("POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"));
  std::string line = "X-Pad: " + std::string(100, 'a') + "\r\n";
  for (int i = 0; i < 100 && !c.eof_ && c.Send(line); ++i) {
  }
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr("trailer"));
  EXPECT_EQ(counting.seen->load(), 0);
}

TEST(HttpServerTest, Regression_RepeatedQueryParameterIsRefusedNamingIt) {
  TestServer server(BasicRouter());
  Client c(server.port());
  ASSERT_TRUE(c.Send(Get("/items/x?tenant=a&tenant=b")));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr(R"("field":"tenant")"));
  EXPECT_THAT(r->body, HasSubstr("'tenant'"));
  // Also when the repetition hides behind an escape; other keys on the same line are fine.
  ASSERT_TRUE(c.Send(Get("/items/x?q=1&%71=2")));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr(R"("field":"q")"));
  ASSERT_TRUE(c.Send(Get("/items/x?q=1&z=2")));
  r = c.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "id=x q=1 h=");
}

// 300 half-open connections from 127.0.0.1 (half send part of a header, half nothing) against a
// server of 300 slots: another address must still be served.
TEST(HttpServerTest, Regression_HalfOpenConnectionsFromOneAddressLockOutEveryoneElse) {
  ServerOptions options;
  options.max_connections = 300;
  TestServer server(BasicRouter(), options);
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 300; ++i) {
    held.push_back(std::make_unique<Client>(server.port(), 0, "127.0.0.1"));
    ASSERT_TRUE(held.back()->connected());
    if (i % 2 == 0) {
      ASSERT_TRUE(held.back()->Send("GET /hello HTTP/1.1\r\nHost: t\r\n"));
    }
  }
  Client other(server.port(), 0, "127.0.0.2");
  ASSERT_TRUE(other.connected());
  auto t0 = Clock::now();
  ASSERT_TRUE(other.Send(Get("/hello")));
  auto r = other.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_LT(MsSince(t0), 1000);
  // The flooding address was refused beyond its own cap rather than holding every slot.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  size_t refused = 0;
  for (auto& c : held) {
    auto rr = c->ReadResponse(5);
    if (rr && rr->status == 429) ++refused;
  }
  EXPECT_GE(refused, 300u - ServerOptions().max_connections_per_address);
}

TEST(HttpServerTest, HeaderTimeoutIsShorterThanTheReadTimeout) {
  ServerOptions options;
  options.header_timeout_ms = 200;
  options.read_timeout_ms = 900;
  TestServer server(BasicRouter(), options);
  {
    Client c(server.port());  // part of a header, then silence: 408 after the header timeout
    auto start = Clock::now();
    ASSERT_TRUE(c.Send("GET /hello HTTP/1.1\r\nHost: t\r\n"));
    auto r = c.ReadResponse(3000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 408);
    EXPECT_THAT(r->body, HasSubstr("header"));
    EXPECT_GE(MsSince(start), 150);
    EXPECT_LT(MsSince(start), 800);
    EXPECT_TRUE(c.WaitEof());
  }
  {
    Client c(server.port());  // a whole header and part of the body: the read timeout applies
    auto start = Clock::now();
    ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"));
    auto r = c.ReadResponse(3000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 408);
    EXPECT_GE(MsSince(start), 800);
  }
  {
    Client c(server.port());  // keep-alive: idle after a response for the header timeout, then closed
    ASSERT_TRUE(c.Send(Get("/hello")));
    ASSERT_TRUE(c.ReadResponse());
    auto start = Clock::now();
    EXPECT_TRUE(c.WaitEof(3000));
    EXPECT_TRUE(c.data_.empty());
    EXPECT_GE(MsSince(start), 150);
    EXPECT_LT(MsSince(start), 800);
  }
}

// A router whose "/bulk" requests say their fairness key in X-Key: the handler (interactive pool)
// defers the work to the bulk lane under that key, as the bulk routes of `attest serve` do with the
// caller's tenant. The bulk work records its order; the first one waits for `first` to open.
struct KeyedBulk {
  std::mutex mu;
  std::vector<std::string> order;
  Gate first;
  std::atomic<int> started{0};
  Router Build() {
    Router router = BasicRouter();
    router.Add("POST", "/bulk", Pool::kInteractive, [this](std::shared_ptr<Exchange> ex) {
      const std::string key = ex->request().Header("x-key");
      const std::string id = ex->request().Header("x-id");
      Admission a = ex->Defer(Pool::kBulk, key, [this, id](std::shared_ptr<Exchange> work) {
        if (started.fetch_add(1) == 0) first.Wait();
        {
          std::lock_guard<std::mutex> lock(mu);
          order.push_back(id);
        }
        Reply(work, 200, "done " + id);
      });
      if (a == Admission::kKeyFull) Reply(ex, 429, "key full");
      if (a == Admission::kPoolFull) Reply(ex, 503, "pool full");
    });
    return router;
  }
};

std::string BulkRequest(const std::string& key, const std::string& id) {
  return "POST /bulk HTTP/1.1\r\nHost: t\r\nX-Key: " + key + "\r\nX-Id: " + id + "\r\nContent-Length: 0\r\n\r\n";
}

TEST(HttpServerTest, BulkLaneServesFairnessKeysRoundRobin) {
  KeyedBulk bulk;
  ServerOptions options;
  options.bulk_workers = 1;
  TestServer server(bulk.Build(), options);
  std::vector<std::unique_ptr<Client>> clients;
  auto send = [&](const std::string& key, const std::string& id) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->Send(BulkRequest(key, id)));
    ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == clients.size(); }));
  };
  for (int i = 1; i <= 5; ++i) send("a", "a" + std::to_string(i));  // a1 runs (held), a2..a5 wait
  send("b", "b1");
  send("c", "c1");
  send("b", "b2");
  bulk.first.Open();
  for (auto& c : clients) {
    auto r = c->ReadResponse(5000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  std::lock_guard<std::mutex> lock(bulk.mu);
  // a was served last (a1) when b and c arrived, so their first requests go before a2.
  EXPECT_THAT(bulk.order, ::testing::ElementsAre("a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"));
}

TEST(HttpServerTest, BulkLaneBoundsWhatOneKeyMayQueue) {
  KeyedBulk bulk;
  ServerOptions options;
  options.bulk_workers = 1;
  options.bulk_queue = 4;
  options.bulk_queue_per_key = 2;
  TestServer server(bulk.Build(), options);
  std::vector<std::unique_ptr<Client>> clients;
  auto send = [&](const std::string& key, const std::string& id) {
    clients.push_back(std::make_unique<Client>(server.port()));
    EXPECT_TRUE(clients.back()->Send(BulkRequest(key, id)));
    return clients.back().get();
  };
  send("a", "a1");
  ASSERT_TRUE(WaitFor([&] { return bulk.started.load() == 1; }));  // a1 runs, held
  send("a", "a2");
  send("a", "a3");
  ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == 3; }));
  auto r = send("a", "a4")->ReadResponse();  // a's two waiting places are taken
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  send("b", "b1");
  send("b", "b2");
  ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == 5; }));
  r = send("c", "c1")->ReadResponse();  // the whole queue (4) is taken
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  bulk.first.Open();
  for (size_t i : {0u, 1u, 2u, 4u, 5u}) {
    auto ok = clients[i]->ReadResponse(5000);
    ASSERT_TRUE(ok) << i;
    EXPECT_EQ(ok->status, 200) << i;
  }
  std::lock_guard<std::mutex> lock(bulk.mu);
  EXPECT_THAT(bulk.order, ::testing::ElementsAre("a1", "b1", "a2", "b2", "a3"));
}

TEST(HttpServerTest, CreateRejectsBadOptions) {
  ServerOptions options;
  options.io_threads = 0;
  EXPECT_FALSE(Server::Create(options, Router(), JsonError).ok());
  EXPECT_FALSE(Server::Create(ServerOptions(), Router(), nullptr).ok());
  options = ServerOptions();
  options.header_timeout_ms = 0;
  EXPECT_FALSE(Server::Create(options, Router(), JsonError).ok());
  options = ServerOptions();
  options.max_connections = 0;
  EXPECT_FALSE(Server::Create(options, Router(), JsonError).ok());
}

}  // namespace
}  // namespace attest::http
