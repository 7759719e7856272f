// The HTTP transport (server/http_server.h) over real sockets on 127.0.0.1: routing and the
// transport's own errors, keep-alive and pipelining, worker pools and overload, SSE streams, slow
// and vanished clients, and graceful shutdown. Hostile clients (framing, exhaustion, fairness)
// are in tests/http_server_hostile_test.cc.
#include "http_server_test_util.h"

namespace attest::http {
namespace {

using namespace test_util;  // NOLINT(build/namespaces)
using ::testing::HasSubstr;

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
  // One waiting place: a worker counts as busy until its handler returns, which is just after the
  // client has its reply, so the next request may arrive before the worker is free.
  options.interactive_queue = 1;
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
  // Two requests taken by the two workers (each waits until its worker has it: a request still in
  // the queue when the next arrives would take the next one's place), then one that waits in the
  // queue.
  for (int i = 0; i < 3; ++i) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->Send(Get("/slow")));
    ASSERT_TRUE(WaitFor([&] { return server.server().in_flight() == static_cast<size_t>(i + 1); }));
    if (i < 2) ASSERT_TRUE(WaitFor([&] { return started.load() == i + 1; }));
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
