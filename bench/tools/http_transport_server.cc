// A stand-alone server on the `attest serve` HTTP transport (server/http_server.h) with synthetic
// handlers, to measure the transport alone with wrk (docs/http_server.md has the figures).
//
//   http_transport_server PORT [WORK_US] [IO_THREADS] [INTERACTIVE_WORKERS]
//
// Routes: GET|POST /v1/search  -> burns WORK_US microseconds of CPU on an interactive worker
//                                 (default 1000, the cost of a real search), answers ~1 KB of JSON;
//         GET /healthz          -> inline, tiny JSON;
//         GET /stream           -> SSE: 200 events 50 ms apart, then done. The handler only opens the
//                                 stream and hands it to one ticker thread, so streams do not hold
//                                 workers (the pattern for long streams).
// SIGINT/SIGTERM stop it gracefully.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>
#include <cstdlib>
#include <string>
#include <thread>

#include "server/http_server.h"

namespace {

using attest::http::Exchange;
using attest::http::Pool;
using attest::http::Response;

void BurnCpu(int micros) {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  volatile unsigned x = 1;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 64; ++i) x = x * 1664525u + 1013904223u;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PORT [WORK_US] [IO_THREADS] [INTERACTIVE_WORKERS]\n", argv[0]);
    return 2;
  }
  const int work_us = argc > 2 ? std::atoi(argv[2]) : 1000;
  attest::http::ServerOptions options;
  options.port = static_cast<uint16_t>(std::atoi(argv[1]));
  if (argc > 3) options.io_threads = static_cast<unsigned>(std::atoi(argv[3]));
  if (argc > 4) options.interactive_workers = static_cast<unsigned>(std::atoi(argv[4]));

  std::string payload = R"({"hits":[)";
  for (int i = 0; i < 10; ++i) {
    if (i) payload += ',';
    payload += R"({"chunk_id":)" + std::to_string(1000 + i) + R"(,"score":0.5,"text":"lorem ipsum dolor sit amet consectetur adipiscing elit"})";
  }
  payload += "]}";

  attest::http::Router router;
  auto search = [&](std::shared_ptr<Exchange> ex) {
    BurnCpu(work_us);
    Response r;
    r.body = payload;
    ex->Respond(std::move(r));
  };
  router.Add("GET", "/v1/search", Pool::kInteractive, search);
  router.Add("POST", "/v1/search", Pool::kInteractive, search);
  router.Add("GET", "/healthz", Pool::kInline, [](std::shared_ptr<Exchange> ex) {
    Response r;
    r.body = R"({"status":"ok"})";
    ex->Respond(std::move(r));
  });
  struct Ticking {
    std::shared_ptr<attest::http::Stream> stream;
    int sent = 0;
  };
  std::mutex streams_mu;
  std::vector<Ticking> streams;
  std::atomic<bool> quit{false};
  router.Add("GET", "/stream", Pool::kInteractive, [&](std::shared_ptr<Exchange> ex) {
    auto s = ex->StartStream({});
    std::lock_guard<std::mutex> lock(streams_mu);
    streams.push_back({std::move(s), 0});
  });
  auto errors = [](int status, std::string code, std::string message, std::string) {
    Response r;
    r.status = status;
    r.body = R"({"error":{"code":")" + code + R"(","message":")" + message + R"("}})";
    return r;
  };
  auto server = attest::http::Server::Create(options, std::move(router), errors);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  if (auto st = (*server)->Start(); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  std::thread ticker([&] {
    while (!quit.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::lock_guard<std::mutex> lock(streams_mu);
      std::erase_if(streams, [](Ticking& t) {
        if (t.sent == 200) {
          t.stream->Send("done", "{}");
          t.stream->Finish();
          return true;
        }
        return !t.stream->Send("delta", R"({"i":)" + std::to_string(t.sent++) + "}");
      });
    }
  });
  std::fprintf(stderr, "http_transport_server: port %u, work %d us, io %u, workers %u\n", (*server)->port(), work_us,
               options.io_threads, options.interactive_workers);
  (*server)->Run();
  quit.store(true);
  ticker.join();
  std::fprintf(stderr, "http_transport_server: stopped\n");
  return 0;
}
