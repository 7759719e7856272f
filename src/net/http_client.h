// HttpClient: a small blocking HTTP/1.1 client over libcurl, under the one client of remote models
// (src/models/model_http_client.h: embeddings, chat completions, rerank), which maps its failures
// (HttpFailure) and the HTTP statuses to the model codes of attest/status.h.
//
// - Send() performs one request and returns the whole response (any status: a 404 or 500 is a
//   response, not an error). Transport failures (bad URL, DNS, connection refused, timeout, TLS,
//   oversized body) are errors naming the method, the URL (credentials removed) and the cause.
// - SendStreaming() hands the body of a 2xx response to a callback chunk by chunk as it arrives
//   (for server-sent events); the callback returns false to abort the transfer (kCancelled). The
//   body of a non-2xx response is collected into HttpResponse::body instead, so callers can report
//   the server's error message.
// - Response bodies (and streamed bytes) are capped by HttpClientOptions::max_response_bytes;
//   exceeding it fails with kResourceExhausted rather than growing without bound.
// - Only http:// and https:// are allowed; redirects are not followed; "Expect: 100-continue" is
//   disabled; gzip/deflate responses are accepted and decoded (the cap applies to decoded bytes).
// - A connect guard (HttpClientOptions::connect_guard), when set, sees every address the client
//   is about to open a socket to (libcurl's open-socket callback, after name resolution) and may
//   refuse it; a request whose every address was refused fails with kBlocked and the guard's
//   reason. Environment proxies can be ignored (use_environment_proxy = false) so that the
//   address checked is the address of the server itself.
//
// Failures carry a domain code (kInvalidArgument: malformed request or URL; kIOError: DNS,
// connect, timeout, TLS, send/receive; kResourceExhausted: body cap; kCancelled: callback abort).
// Callers that need to decide about retrying can ask for the finer HttpFailure kind.
//
// Thread-safety: an HttpClient may be used from any number of threads at once. Each call borrows
// a libcurl easy handle from a small internal pool (so keep-alive connections are reused between
// calls) and returns it afterwards; libcurl is initialised once per process (std::call_once).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"

namespace attest {

struct HttpHeader {
  std::string name;
  std::string value;
};

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, DELETE, HEAD, PATCH...
  std::string url;             // http:// or https:// only
  std::vector<HttpHeader> headers;
  std::string body;            // sent as-is when non-empty (and always for POST)
  int64_t timeout_ms = 30000;  // whole transfer; 0 = no limit
  int64_t connect_timeout_ms = 10000;  // 0 = libcurl's default (300 s)
  // Abort when fewer than low_speed_bytes_per_s bytes per second arrive for low_speed_seconds
  // (both > 0 to take effect).
  int64_t low_speed_bytes_per_s = 0;
  int64_t low_speed_seconds = 0;
  // Name-resolution overrides in libcurl's "HOST:PORT:ADDRESS[,ADDRESS]" form; they replace any
  // cached answer for that host and port. Addresses given here still pass the connect guard.
  std::vector<std::string> resolve = {};
};

struct HttpResponse {
  int status = 0;
  std::vector<HttpHeader> headers;  // as received, final response only
  std::string body;
  std::string remote_address;  // numeric address of the peer the response came from
  // Value of the first header named `name` (case-insensitive), or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const;
};

// Why a request failed at the transport level (no HTTP status was obtained, or the body was cut).
enum class HttpFailure {
  kNone,
  kInvalidRequest,  // malformed URL, unsupported scheme or method
  kDns,             // host name did not resolve
  kConnect,         // connection refused or unreachable
  kTimeout,         // connect or transfer timeout
  kTls,             // TLS handshake or certificate failure
  kTransfer,        // connection reset, send or receive failure mid-transfer
  kBodyTooLarge,    // max_response_bytes exceeded
  kAborted,         // the streaming callback returned false
  kBlocked,         // the connect guard refused every address of the host
  kOther,
};

// True for failures where sending the same request again may succeed (connect, timeout, transfer).
bool IsTransientHttpFailure(HttpFailure failure);

// The address a socket is about to be connected to (network byte order; IPv4 in bytes[0..3]).
struct HttpPeer {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};
  uint16_t port = 0;
};

struct HttpClientOptions {
  size_t max_response_bytes = size_t{64} << 20;  // 64 MiB
  std::string user_agent = "attest/" ATTEST_VERSION;
  size_t max_idle_handles = 8;  // easy handles (and their connections) kept for reuse
  // Consulted before every socket the client opens; empty = connect anywhere.
  std::function<std::string(const HttpPeer&)> connect_guard = nullptr;
  // false: ignore http_proxy/https_proxy/all_proxy from the environment (CURLOPT_PROXY "" and
  // CURLOPT_NOPROXY "*"), so every connection goes straight to the server's own address.
  bool use_environment_proxy = true;
};

// Receives one chunk of a streamed 2xx body; return false to abort the transfer.
using HttpChunkCallback = std::function<bool(std::string_view chunk)>;

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // When `failure` is non-null it is set to the failure kind (kNone on success); when
  // `blocked_reason` is non-null it receives the connect guard's first refusal (empty if none).
  Result<HttpResponse> Send(const HttpRequest& request, HttpFailure* failure = nullptr,
                            std::string* blocked_reason = nullptr) const;
  Result<HttpResponse> SendStreaming(const HttpRequest& request, const HttpChunkCallback& on_chunk,
                                     HttpFailure* failure = nullptr) const;

  const HttpClientOptions& options() const { return options_; }

 private:
  Result<HttpResponse> Perform(const HttpRequest& request, const HttpChunkCallback* on_chunk,
                               HttpFailure* failure, std::string* blocked_reason) const;
  void* AcquireHandle() const;
  void ReleaseHandle(void* handle) const;

  HttpClientOptions options_;
  mutable Mutex mu_;
  mutable std::vector<void*> idle_handles_ GUARDED_BY(mu_);  // CURL*
};

// `url` with any "user:password@" part removed, for error messages and logs.
std::string RedactUrl(std::string_view url);

}  // namespace attest
