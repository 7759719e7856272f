// A minimal HTTP/1.1 client over plain sockets for black-box tests of `attest serve`: one request
// per connection, Content-Length or chunked responses, and Server-Sent-Event streams read event by
// event (optionally slowly, or abandoned midway).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace attest::testing_support {

struct HttpReply {
  int status = 0;                              // 0 = no response (connection failed)
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;
  std::string error;                           // transport error, if any
  std::string Header(const std::string& lower) const {
    auto it = headers.find(lower);
    return it == headers.end() ? "" : it->second;
  }
};

struct SseEvent {
  std::string event;
  std::string data;
};

struct HttpCall {
  std::string method = "GET";
  std::string path = "/";
  std::map<std::string, std::string> headers;
  std::string body;
  std::chrono::milliseconds timeout{30000};
};

inline HttpCall MakeCall(std::string method, std::string path, std::map<std::string, std::string> headers = {},
                         std::string body = "") {
  HttpCall c;
  c.method = std::move(method);
  c.path = std::move(path);
  c.headers = std::move(headers);
  c.body = std::move(body);
  return c;
}

HttpReply HttpRequest(uint16_t port, const HttpCall& call);

// One request with `credential` (an API key or JWT; "" = none) as a bearer token.
inline HttpReply BearerRequest(uint16_t port, const std::string& method, const std::string& path,
                               const std::string& credential, const std::string& body = "") {
  std::map<std::string, std::string> headers;
  if (!credential.empty()) headers["Authorization"] = "Bearer " + credential;
  return HttpRequest(port, MakeCall(method, path, std::move(headers), body));
}

// Sends `call` and reads an SSE response. `on_event` returns false to hang up (disconnect).
// Returns the status line/headers in the reply (body empty) and every event read.
HttpReply SseRequest(uint16_t port, const HttpCall& call, std::vector<SseEvent>* events,
                     const std::function<bool(const SseEvent&)>& on_event = nullptr);

// Sends raw bytes and returns the raw response (until close or timeout).
std::string RawExchange(uint16_t port, const std::string& bytes, std::chrono::milliseconds timeout);

}  // namespace attest::testing_support

#include <memory>

#include "support/process.h"

namespace attest::testing_support {

// `attest --data DATA [global...] serve --port 0 [extra...]` as a child process; the port is read
// from its "listening on" line (0 when it did not start within 30 s). Killed at destruction. Its
// log (stderr) is discarded, or appended to `log_file` when one is given.
class ServeProcess {
 public:
  ServeProcess(const std::string& data, const std::vector<std::string>& global, const std::vector<std::string>& extra,
               const std::string& log_file = "");
  uint16_t port() const { return port_; }
  ChildProcess& child() { return *child_; }

 private:
  std::unique_ptr<ChildProcess> child_;
  uint16_t port_ = 0;
};

}  // namespace attest::testing_support
