// Server: the listening socket, the IO threads, signals and graceful shutdown
// (server/http_server.h). Connections are in server/connection.cc.
//
// Shutdown sequence (all on the control strand): Stop() sets `stopping` and posts BeginStop, which
// closes the acceptor, cancels the signal wait, asks every connection to shut down (idle ones close,
// streams get the final notice, requests in flight finish with `Connection: close`) and arms the
// grace timer. When the last connection closes, or the grace timer fires and force-closes the rest,
// the work guard is released and the IO threads' run() returns. Run() then joins the worker pools.
#include <pthread.h>

#include <csignal>

#include <spdlog/spdlog.h>

#include "server/connection.h"
#include "server/http_wire.h"

namespace attest::http {
namespace {

using boost::system::error_code;

class ServerImpl final : public Server {
 public:
  ServerImpl(ServerOptions options, Router router, ErrorResponder errors)
      : core_(std::move(options), std::move(router), std::move(errors)),
        control_(net::make_strand(core_.io)),
        acceptor_(control_),
        grace_timer_(control_),
        accept_retry_(control_) {
    core_.SetOnDrained([this] { net::post(control_, [this] { Finish(); }); });
  }

  ~ServerImpl() override {
    // Run() has returned (or never ran): nothing executes on the io_context any more.
    core_.SetOnDrained(nullptr);
    core_.stopping.store(true);
    core_.interactive.Shutdown();
    core_.answers.Shutdown();
    core_.bulk.Shutdown();
  }

  Status Start() override {
    if (started_) return Status::InvalidArgument("http server: Start() called twice");
    error_code ec;
    tcp::endpoint endpoint;
    auto address = net::ip::make_address(core_.options.host, ec);
    if (!ec) {
      endpoint = tcp::endpoint(address, core_.options.port);
    } else {
      tcp::resolver resolver(core_.io);
      auto results = resolver.resolve(core_.options.host, std::to_string(core_.options.port), ec);
      if (ec || results.empty()) {
        return Status::InvalidArgument("http server: cannot resolve host '" + core_.options.host +
                                       "': " + ec.message());
      }
      endpoint = results.begin()->endpoint();
    }
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return Status::IOError("http server: cannot listen on " + core_.options.host + ":" +
                             std::to_string(core_.options.port) + ": " + ec.message());
    }
    port_ = acceptor_.local_endpoint(ec).port();
    core_.interactive.Start();
    core_.answers.Start();
    core_.bulk.Start();
    work_.emplace(core_.io.get_executor());
    started_ = true;
    Accept();
    return Status::Ok();
  }

  uint16_t port() const override { return port_; }

  void Run() override {
    if (!started_ || ran_) return;
    ran_ = true;
    signals_.emplace(control_, SIGINT, SIGTERM);
    signals_->async_wait([this](error_code ec, int signal) {
      if (ec) return;
      spdlog::info("http: signal {} received, shutting down", signal);
      Stop();
    });
    std::vector<std::thread> threads;
    const unsigned n = std::max(1u, core_.options.io_threads);
    for (unsigned i = 1; i < n; ++i) {
      threads.emplace_back([this] { core_.io.run(); });
      pthread_setname_np(threads.back().native_handle(), ("http-io-" + std::to_string(i)).c_str());
    }
    core_.io.run();
    for (auto& t : threads) t.join();
    // Handlers still running after the grace period see ClientGone(); wait for them, then run what
    // they posted (their answers go to closed connections and only update the bookkeeping).
    core_.interactive.Shutdown();
    core_.answers.Shutdown();
    core_.bulk.Shutdown();
    core_.io.restart();
    core_.io.poll();
    signals_.reset();
  }

  void Stop() override {
    if (core_.stopping.exchange(true)) return;
    net::post(control_, [this] { BeginStop(); });
  }

  bool Stopping() const override { return core_.stopping.load(); }
  size_t open_streams() const override { return core_.open_streams.load(); }
  size_t in_flight() const override { return core_.in_flight.load(); }

 private:
  // Control strand from here on.
  void Accept() {
    acceptor_.async_accept(net::make_strand(core_.io), net::bind_executor(control_, [this](error_code ec,
                                                                                          tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor_.is_open() || core_.stopping.load()) return;
      if (ec) {
        // Out of descriptors or a transient error: back off briefly instead of spinning.
        spdlog::warn("http: accept failed: {}", ec.message());
        accept_retry_.expires_after(std::chrono::milliseconds(50));
        accept_retry_.async_wait([this](error_code e) {
          if (!e && acceptor_.is_open()) Accept();
        });
        return;
      }
      const std::string address = PeerOf(socket).first;
      if (core_.AddressFull(address)) {
        RefuseAtOnce(std::move(socket), address);
      } else {
        auto connection = std::make_shared<Connection>(core_, std::move(socket));
        connection->Start(core_.Register(connection, address));
      }
      Accept();
    }));
  }

  // An address over its connection bound: the 429 is written here, without a Connection, a strand
  // or a timer, so that a client reconnecting in a loop costs little more than the accept. Bytes it
  // already sent are read and dropped first, so the close is a FIN, not a reset that could destroy
  // the answer before the client reads it.
  void RefuseAtOnce(tcp::socket socket, const std::string& address) {
    core_.Refused("per_address");
    std::string out;
    wire::AppendResponse(core_.Error(429, "rate_limited",
                                     "too many open connections from " + address + " (limit " +
                                         std::to_string(core_.options.max_connections_per_address) + ")"),
                         11, false, out);
    error_code ec;
    socket.non_blocking(true, ec);
    char sink[4096];
    for (int i = 0; i < 16 && !ec; ++i) socket.read_some(net::buffer(sink), ec);
    ec = {};
    socket.write_some(net::buffer(out), ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  void BeginStop() {
    error_code ec;
    acceptor_.close(ec);
    accept_retry_.cancel();
    if (signals_) signals_->cancel(ec);
    for (auto& c : core_.Connections()) c->BeginShutdown();
    if (finished_) return;
    grace_timer_.expires_after(std::chrono::milliseconds(core_.options.grace_ms));
    grace_timer_.async_wait([this](error_code e) {
      if (e || finished_) return;
      auto left = core_.Connections();
      spdlog::warn("http: grace period over, closing {} connection(s)", left.size());
      for (auto& c : left) c->ForceClose();
      if (left.empty()) Finish();
    });
    if (core_.connection_count() == 0) Finish();
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    grace_timer_.cancel();
    work_.reset();
  }

  ServerCore core_;
  net::strand<net::io_context::executor_type> control_;
  tcp::acceptor acceptor_;
  net::steady_timer grace_timer_;
  net::steady_timer accept_retry_;
  std::optional<net::signal_set> signals_;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool ran_ = false;
  bool finished_ = false;  // control strand
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Create(ServerOptions options, Router router, ErrorResponder errors) {
  if (!errors) return Status::InvalidArgument("http server: an ErrorResponder is required");
  if (options.io_threads == 0) return Status::InvalidArgument("http server: io_threads must be at least 1");
  if (options.interactive_workers == 0 || options.answer_workers == 0 || options.bulk_workers == 0) {
    return Status::InvalidArgument("http server: each worker pool needs at least one worker");
  }
  if (options.stream_buffer_bytes == 0) {
    return Status::InvalidArgument("http server: stream_buffer_bytes must be positive");
  }
  if (options.stream_send_buffer_bytes > (1u << 30) || options.stream_kernel_unsent_bytes > (1u << 30)) {
    return Status::InvalidArgument(
        "http server: stream_send_buffer_bytes and stream_kernel_unsent_bytes must be at most 1 GiB");
  }
  if (options.max_header_bytes < 64) return Status::InvalidArgument("http server: max_header_bytes is too small");
  if (options.max_connections == 0) return Status::InvalidArgument("http server: max_connections must be positive");
  if (options.header_timeout_ms == 0 || options.read_timeout_ms == 0) {
    return Status::InvalidArgument("http server: header_timeout_ms and read_timeout_ms must be positive");
  }
  return std::unique_ptr<Server>(new ServerImpl(std::move(options), std::move(router), std::move(errors)));
}

}  // namespace attest::http
