// Minimal SSE test server on cpp-httplib (Debian libcpp-httplib-dev 0.11), for the HTTP stack benchmark
// (bench/http_stack/README.md). Not part of attest; built only with -DATTEST_BENCH_HTTP_STACK=ON.
//
// Routes:
//   GET /short   small JSON body.
//   GET /stream  Server-Sent Events (text/event-stream, X-Accel-Buffering: no, Cache-Control: no-cache),
//                one `data:` event every 50 ms for 10 s, then `event: end`.
// SIGTERM: every in-flight stream gets `event: shutdown` at its next tick and ends; the listener is closed and
// the process exits once the worker threads have drained.
//
// cpp-httplib serves each connection on one worker thread of its task queue for the connection's whole life,
// so holding N concurrent streams needs at least N workers (plus some for short requests). The pool size is
// the first argument (the library default is max(8, cores-1)).
//
// Usage: httplib_server PORT [WORKERS]     (WORKERS=0 keeps the library default)
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

constexpr auto kTick = std::chrono::milliseconds(50);
constexpr int kEvents = 200;  // 10 s
std::atomic<bool> g_stopping{false};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PORT [WORKERS]\n", argv[0]);
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int workers = argc > 2 ? std::atoi(argv[2]) : 0;

  // Block SIGTERM/SIGINT in every thread; one watcher thread takes them with sigwait.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  httplib::Server svr;
  if (workers > 0) {
    svr.new_task_queue = [workers] { return new httplib::ThreadPool(static_cast<size_t>(workers)); };
  }
  svr.Get("/short", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"ok":true,"server":"httplib"})", "application/json");
  });
  svr.Get("/stream", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream", [](size_t, httplib::DataSink& sink) {
          for (int i = 0; i < kEvents; ++i) {
            if (g_stopping.load()) {
              static constexpr char kBye[] = "event: shutdown\ndata: {}\n\n";
              sink.write(kBye, sizeof(kBye) - 1);
              sink.done();
              return true;
            }
            std::string ev = "data: {\"seq\":" + std::to_string(i) + "}\n\n";
            if (!sink.write(ev.data(), ev.size())) return false;  // client went away
            std::this_thread::sleep_for(kTick);
          }
          static constexpr char kEnd[] = "event: end\ndata: {}\n\n";
          sink.write(kEnd, sizeof(kEnd) - 1);
          sink.done();
          return true;
        });
  });

  if (!svr.bind_to_port("127.0.0.1", port)) {
    std::fprintf(stderr, "httplib_server: cannot bind 127.0.0.1:%d\n", port);
    return 1;
  }
  std::thread watcher([&] {
    int sig = 0;
    sigwait(&set, &sig);
    g_stopping.store(true);
    svr.stop();  // closes the listener; listen() returns after the task queue drains in-flight streams
  });

  std::fprintf(stderr, "httplib_server: port %d, workers %d\n", port, workers);
  const bool ok = svr.listen_after_bind();
  watcher.join();
  return ok ? 0 : 1;
}
