// Minimal SSE test server on Boost.Beast/Asio (Debian libboost-dev 1.74), for the HTTP stack benchmark
// (bench/http_stack/README.md). Not part of attest; built only with -DATTEST_BENCH_HTTP_STACK=ON.
//
// Same behaviour as httplib_server.cc:
//   GET /short   small JSON body.
//   GET /stream  Server-Sent Events (text/event-stream, X-Accel-Buffering: no, Cache-Control: no-cache),
//                chunked, one `data:` event every 50 ms for 10 s, then `event: end`.
// SIGTERM: the acceptor closes, every in-flight stream sends `event: shutdown` at its next tick and closes;
// io_context::run() returns when no work is left (hard bound 5 s, then io_context::stop()).
//
// One io_context run by THREADS threads; each connection is a chain of async operations (read -> write ->
// timer -> write ...), never more than one outstanding per connection, so a connection needs no strand.
// Open streams cost a socket, a timer and a few hundred bytes, not a thread.
//
// Usage: beast_server PORT [THREADS]   (default 2)
#include <utility>  // before Asio: Boost 1.74 awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr auto kTick = std::chrono::milliseconds(50);
constexpr int kEvents = 200;  // 10 s
std::atomic<bool> g_stopping{false};
std::atomic<int> g_sessions{0};
net::steady_timer* g_hard_stop = nullptr;  // set in main before run(); cancelled when the last session ends

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket s) : sock_(std::move(s)), timer_(sock_.get_executor()) { ++g_sessions; }
  ~Session() {
    if (--g_sessions == 0 && g_stopping.load()) {
      net::post(g_hard_stop->get_executor(), [] { g_hard_stop->cancel(); });
    }
  }

  void Start() { Read(); }

 private:
  void Read() {
    req_ = {};
    http::async_read(sock_, buf_, req_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->Route();
    });
  }

  void Route() {
    if (req_.method() == http::verb::get && req_.target() == "/stream") return StartStream();
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(req_.version());
    res->keep_alive(req_.keep_alive() && !g_stopping.load());
    if (req_.method() == http::verb::get && req_.target() == "/short") {
      res->result(http::status::ok);
      res->set(http::field::content_type, "application/json");
      res->body() = R"({"ok":true,"server":"beast"})";
    } else {
      res->result(http::status::not_found);
      res->set(http::field::content_type, "text/plain");
      res->body() = "not found\n";
    }
    res->prepare_payload();
    http::async_write(sock_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
      if (ec || !res->keep_alive()) return self->Close();
      self->Read();
    });
  }

  void StartStream() {
    hdr_ = std::make_unique<http::response<http::empty_body>>(http::status::ok, req_.version());
    hdr_->set(http::field::content_type, "text/event-stream");
    hdr_->set(http::field::cache_control, "no-cache");
    hdr_->set("X-Accel-Buffering", "no");
    hdr_->keep_alive(false);
    hdr_->chunked(true);
    sr_ = std::make_unique<http::response_serializer<http::empty_body>>(*hdr_);
    http::async_write_header(sock_, *sr_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->Close();
      self->Tick();
    });
  }

  void Tick() {
    if (g_stopping.load()) return Finish("event: shutdown\ndata: {}\n\n");
    if (seq_ == kEvents) return Finish("event: end\ndata: {}\n\n");
    out_ = "data: {\"seq\":" + std::to_string(seq_++) + "}\n\n";
    net::async_write(sock_, http::make_chunk(net::buffer(out_)),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->Close();
                       self->timer_.expires_after(kTick);
                       self->timer_.async_wait([self](beast::error_code) { self->Tick(); });
                     });
  }

  void Finish(const char* last) {
    out_ = last;
    net::async_write(sock_, http::make_chunk(net::buffer(out_)),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->Close();
                       net::async_write(self->sock_, http::make_chunk_last(),
                                        [self](beast::error_code, std::size_t) { self->Close(); });
                     });
  }

  void Close() {
    beast::error_code ec;
    sock_.shutdown(tcp::socket::shutdown_send, ec);
    sock_.close(ec);
  }

  tcp::socket sock_;
  net::steady_timer timer_;
  beast::flat_buffer buf_;
  http::request<http::empty_body> req_;
  std::unique_ptr<http::response<http::empty_body>> hdr_;
  std::unique_ptr<http::response_serializer<http::empty_body>> sr_;
  std::string out_;
  int seq_ = 0;
};

void Accept(tcp::acceptor& acc) {
  acc.async_accept(net::make_strand(acc.get_executor()), [&acc](beast::error_code ec, tcp::socket s) {
    if (!ec) std::make_shared<Session>(std::move(s))->Start();
    if (acc.is_open()) Accept(acc);
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PORT [THREADS]\n", argv[0]);
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 2;

  net::io_context io(threads);
  tcp::acceptor acc(net::make_strand(io));
  beast::error_code ec;
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (!ec) acc.listen(1024, ec);
  if (ec) {
    std::fprintf(stderr, "beast_server: cannot listen on 127.0.0.1:%d: %s\n", port, ec.message().c_str());
    return 1;
  }
  Accept(acc);

  // The hard-stop timer lives on its own strand: the signal handler arms it there and the last session's
  // destructor posts its cancel there, so the two never race.
  net::steady_timer hard_stop(net::make_strand(io));
  g_hard_stop = &hard_stop;
  net::signal_set signals(acc.get_executor(), SIGTERM, SIGINT);  // same strand as the acceptor
  signals.async_wait([&](beast::error_code, int) {
    g_stopping.store(true);
    beast::error_code ignored;
    acc.close(ignored);
    net::dispatch(hard_stop.get_executor(), [&] {
      hard_stop.expires_after(std::chrono::seconds(5));
      hard_stop.async_wait([&](beast::error_code e) {
        if (!e) io.stop();
      });
      if (g_sessions.load() == 0) hard_stop.cancel();  // nothing in flight: run() returns now
    });
  });

  std::fprintf(stderr, "beast_server: port %d, threads %d\n", port, threads);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&] { io.run(); });
  io.run();
  for (auto& t : pool) t.join();
  return 0;
}
