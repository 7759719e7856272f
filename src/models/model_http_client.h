// ModelHttpClient: the one HTTP client of remote models (embeddings, chat completions, rerank).
// The model clients (embed/openai_embedder.h, llm/chat_client.h, rerank/http_reranker.h) build
// their request bodies and parse their answers; everything about talking to the server is here,
// written once (docs/models.md):
//
// - Endpoint: ModelEndpoint::base_url resolved against the client's ModelPath ("http://h:1",
//   "http://h:1/", "http://h:1/v1" and the full endpoint URL all name the same endpoint).
// - Validation of the endpoint options (ValidateModelEndpoint), with messages naming the client.
// - Credentials: ModelEndpoint::api_key is the key itself, sent as "Authorization: Bearer <key>"
//   when non-empty. The core never reads the environment: the adapters (cli/, server/) resolve a
//   key's variable into its value.
// - Retries: at most max_retries extra attempts, only when retrying may help (HTTP 429 and 5xx;
//   transport connect failures, timeouts and broken transfers), never once a streamed answer
//   reached the caller. The delay is backoff_initial_ms * 2^attempt capped at backoff_max_ms,
//   jittered to 50-100%; a server's retry-after-ms or Retry-After (seconds or an HTTP-date)
//   replaces it, capped at retry_after_max_ms. Sleeps go through the injected Clock.
// - Status mapping of failures (ModelFailureStatus): none blames Attest's caller.
//     HTTP 429, 503                  -> kUnavailable, retry_after_seconds from Retry-After
//     other 5xx                      -> kUpstreamError
//     4xx (400, 401, 403, 404, 422…) -> kUpstreamError: the server refused our request, a
//                                       configuration problem (endpoint, model, key); the message
//                                       names the endpoint and quotes the server's error message
//     transport timeout              -> kDeadlineExceeded
//     connection refused, DNS, reset -> kUnavailable
//     TLS, oversized or malformed answer (MalformedAnswer) -> kUpstreamError
//   Messages start with "POST <url> (<label>)" (credentials removed from the URL).
//
// Thread-safety: Post() and PostStreaming() may be called concurrently; the object is immutable
// after Create() except for the HTTP handle pool, the jitter generator and the counters (guarded).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "common/thread_annotations.h"
#include "attest/clock.h"
#include "attest/status.h"
#include "net/http_client.h"

namespace attest {

// Where and how to reach one model. Each client's options hold one, with that client's defaults.
struct ModelEndpoint {
  std::string base_url;  // "http://host:port", with or without a trailing "/", the API version or the endpoint path
  std::string model;     // required
  std::string api_key;   // the key itself ("" = no Authorization header); never read from the environment here
  int64_t timeout_ms = 30000;  // per attempt, whole transfer (a stream included)
  int64_t connect_timeout_ms = 10000;
  uint32_t max_retries = 3;    // 0..20 extra attempts
  int64_t backoff_initial_ms = 200;
  int64_t backoff_max_ms = 5000;
  int64_t retry_after_max_ms = 30000;  // cap on a server's Retry-After
  size_t max_response_bytes = size_t{64} << 20;
  const Clock* clock = nullptr;  // sleeps between attempts and HTTP-dates; null = RealClock()
};

// How a client's endpoint URL is formed from a base URL: a URL already ending in `full_suffix` is
// used verbatim; otherwise a trailing `version` is dropped and `version` + `route` appended.
// E.g. {"/v1", "/embeddings", "/v1/embeddings"}; TEI's rerank is {"", "/rerank", "/rerank"}.
struct ModelPath {
  std::string_view version;
  std::string_view route;
  std::string_view full_suffix;
};

// The endpoint URL of `base_url`, or kInvalidArgument "<client>: base_url "…" <why>".
Result<std::string> ResolveModelUrl(std::string_view client, std::string_view base_url, const ModelPath& path);

// kInvalidArgument "<client>: <what is wrong>" for bad endpoint options, else OK.
Status ValidateModelEndpoint(std::string_view client, const ModelEndpoint& endpoint);

// What happened on the wire during one call (also filled on failure).
struct ModelCallInfo {
  int http_status = 0;       // status of the last attempt; 0 when no response was obtained
  uint32_t attempts = 0;
  HttpFailure failure = HttpFailure::kNone;  // transport failure of the last attempt
};

struct ModelHttpStats {
  uint64_t requests = 0;  // HTTP attempts, including retries
  uint64_t retries = 0;
};

// Consumes the 2xx body of one streamed attempt as it arrives.
class ModelStreamConsumer {
 public:
  virtual ~ModelStreamConsumer() = default;
  // One piece of the body. A non-OK Status stops the transfer and is the call's result (never
  // retried; kCancelled is returned as is, anything else with the endpoint as context).
  virtual Status Consume(std::string_view chunk) = 0;
  // True once part of the answer reached the caller: from then on the call is not retried.
  virtual bool committed() const = 0;
};

class ModelHttpClient {
 public:
  // `client` names the user in messages ("chat client"); `label` follows the URL in messages
  // ("model gpt-4o", "tei:bge-reranker"). Validates the endpoint and resolves its URL.
  static Result<std::unique_ptr<ModelHttpClient>> Create(std::string_view client, ModelEndpoint endpoint,
                                                         const ModelPath& path, std::string label);

  // POSTs `json_body` with retries. The response of a 2xx answer, else the mapped failure.
  Result<HttpResponse> Post(const std::string& json_body, ModelCallInfo* info = nullptr) const;
  // As Post, asking for server-sent events: a 2xx body goes to the consumer `next_attempt()`
  // returns, a fresh one per attempt (the body of the returned response is empty then).
  Result<HttpResponse> PostStreaming(const std::string& json_body,
                                     const std::function<ModelStreamConsumer&()>& next_attempt,
                                     ModelCallInfo* info = nullptr) const;

  // kUpstreamError for a 2xx answer that the client could not use (`error` says why).
  Status MalformedAnswer(const Status& error) const;

  const std::string& url() const { return url_; }
  const ModelEndpoint& endpoint() const { return endpoint_; }
  // "POST <url> (<label>)", the prefix of every failure message.
  const std::string& where() const { return where_; }
  ModelHttpStats stats() const;

 private:
  ModelHttpClient(ModelEndpoint endpoint, std::string url, std::string label);
  Result<HttpResponse> Run(const std::string& json_body, const std::function<ModelStreamConsumer&()>* next_attempt,
                           ModelCallInfo* info) const;
  std::chrono::milliseconds BackoffDelay(uint32_t attempt) const;

  const ModelEndpoint endpoint_;
  const std::string url_;
  const std::string where_;
  const Clock* const clock_;
  HttpClient http_;

  mutable Mutex mu_;
  mutable std::mt19937_64 rng_ GUARDED_BY(mu_);  // jitter
  mutable ModelHttpStats stats_ GUARDED_BY(mu_);
};

// The Status of a final answer that is not 2xx (see the table above). `tries` is appended to the
// HTTP status (" after 3 attempts" or ""); `now` dates an HTTP-date Retry-After.
Status ModelHttpStatus(std::string_view where, const HttpResponse& response, std::string_view tries,
                       std::chrono::system_clock::time_point now);
// The Status of a transport failure `failure` whose HttpClient error was `error`.
Status ModelTransportStatus(HttpFailure failure, const Status& error, std::string_view tries);

// The delay a server asked for before a retry: "retry-after-ms" (OpenAI), else "Retry-After" as
// delay-seconds or an HTTP-date (IMF-fixdate, e.g. "Wed, 21 Oct 2015 07:28:00 GMT") relative to `now`.
std::optional<int64_t> ServerRetryDelayMs(const HttpResponse& response, std::chrono::system_clock::time_point now);

// The message of an error body: {"error": {"message", "type"}} (OpenAI), {"error": "..."} (TEI,
// llama.cpp, Ollama), {"message": "..."} (Cohere, vLLM), {"detail": "..."} or
// {"detail": [{"msg": ...}]} (Jina, FastAPI); else the first 200 bytes of the body, control
// characters replaced by spaces. Never fails.
std::string ExtractHttpErrorMessage(std::string_view body);

}  // namespace attest
