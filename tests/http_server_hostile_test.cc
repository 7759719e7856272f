// The HTTP transport (server/http_server.h) against hostile and careless clients: request framing
// (RFC 9112 §6: Transfer-Encoding that is unknown, not final, or in HTTP/1.0; trailer fields),
// repeated query parameters, half-open connections from one address, the header timeout, and the
// fairness of the bulk lane between keys (tenants). Black-box versions against `attest serve` are
// in tests/serve_transport_test.cc.
#include "http_server_test_util.h"

namespace attest::http {
namespace {

using namespace test_util;  // NOLINT(build/namespaces)
using ::testing::HasSubstr;

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

TEST(HttpServerHostileTest, Regression_XchunkedTransferEncodingIsRefusedAndClosed) {
  CountingRouter counting;
  TestServer server(counting.Build());
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\n", kSmuggled, 501);
  // With a Content-Length beside it the unknown coding still wins (RFC 9112 §6.3: TE overrides CL).
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\nContent-Length: 3\r\n",
                         std::string("abc") + kSmuggled, 501);
}

TEST(HttpServerHostileTest, Regression_NonFinalOrUnknownTransferCodingIsRefusedAndClosed) {
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
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         post + "Transfer-Encoding: identity\r\nX-Between: 1\r\nTransfer-Encoding: chunked\r\n",
                         chunked_body, 501);
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         post + "Transfer-Encoding: chunked\r\nX-Between: 1\r\nTransfer-Encoding: identity\r\n",
                         chunked_body, 400);
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

TEST(HttpServerHostileTest, Regression_TransferEncodingInHttp10IsRefusedAndClosed) {
  CountingRouter counting;
  TestServer server(counting.Build());
  ExpectRefusedAndClosed(server.port(), counting.seen,
                         "POST /count HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n",
                         std::string("5\r\nhello\r\n0\r\n\r\n") + kSmuggled, 400);
}

TEST(HttpServerHostileTest, Regression_TrailerFieldsAreNeverReadAsHeaders) {
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

TEST(HttpServerHostileTest, Regression_EndlessTrailerSectionIsCutAtTheHeaderLimit) {
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

TEST(HttpServerHostileTest, Regression_RepeatedQueryParameterIsRefusedNamingIt) {
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
TEST(HttpServerHostileTest, Regression_HalfOpenConnectionsFromOneAddressLockOutEveryoneElse) {
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

TEST(HttpServerHostileTest, HeaderTimeoutIsShorterThanTheReadTimeout) {
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
  std::atomic<size_t> deferred{0};  // requests the bulk lane has taken (queued or running)
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
      if (a == Admission::kQueued) deferred.fetch_add(1);
      if (a == Admission::kKeyFull) Reply(ex, 429, "key full");
      if (a == Admission::kPoolFull) Reply(ex, 503, "pool full");
    });
    return router;
  }
};

std::string BulkRequest(const std::string& key, const std::string& id) {
  return "POST /bulk HTTP/1.1\r\nHost: t\r\nX-Key: " + key + "\r\nX-Id: " + id + "\r\nContent-Length: 0\r\n\r\n";
}

TEST(HttpServerHostileTest, BulkLaneServesFairnessKeysRoundRobin) {
  KeyedBulk bulk;
  ServerOptions options;
  options.bulk_workers = 1;
  TestServer server(bulk.Build(), options);
  std::vector<std::unique_ptr<Client>> clients;
  auto send = [&](const std::string& key, const std::string& id) {
    clients.push_back(std::make_unique<Client>(server.port()));
    ASSERT_TRUE(clients.back()->Send(BulkRequest(key, id)));
    // In the bulk lane before the next is sent (in_flight counts a request before its handler has
    // deferred it, and several interactive workers may defer out of order).
    ASSERT_TRUE(WaitFor([&] { return bulk.deferred.load() == clients.size(); }));
  };
  send("a", "a1");
  ASSERT_TRUE(WaitFor([&] { return bulk.started.load() == 1; }));  // a1 runs, held
  for (int i = 2; i <= 5; ++i) send("a", "a" + std::to_string(i));  // a2..a5 wait
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

TEST(HttpServerHostileTest, BulkLaneBoundsWhatOneKeyMayQueue) {
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
  // Each accepted request is in the bulk lane before the next is sent, so the order is known.
  auto queued = [&](size_t n) { return WaitFor([&] { return bulk.deferred.load() == n; }); };
  send("a", "a1");
  ASSERT_TRUE(WaitFor([&] { return bulk.started.load() == 1; }));  // a1 runs, held
  send("a", "a2");
  ASSERT_TRUE(queued(2));
  send("a", "a3");
  ASSERT_TRUE(queued(3));
  auto r = send("a", "a4")->ReadResponse();  // a's two waiting places are taken
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  send("b", "b1");
  ASSERT_TRUE(queued(4));
  send("b", "b2");
  ASSERT_TRUE(queued(5));
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

}  // namespace
}  // namespace attest::http
