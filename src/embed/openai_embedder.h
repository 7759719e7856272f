// OpenAiEmbedder: an Embedder that calls an OpenAI-compatible embeddings endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server, text-embeddings-inference...).
//
// Request:  POST {base}/v1/embeddings  {"model": M, "input": [...], "encoding_format": "float"}
//           with "Authorization: Bearer <key>" when the environment variable named by
//           options.api_key_env is set and non-empty (read once, in Create()).
// Response: {"data": [{"index": i, "embedding": [f, ...]}, ...], ...}; rows are placed by "index".
//           Everything is validated: item count, index range and uniqueness, numeric finite
//           components, and the dimension. Rows are L2-normalized before they are returned.
//
// Texts are sent in batches of options.batch_size, each prefixed with query_prefix or
// document_prefix according to the purpose. A text that is empty or only whitespace (with an empty
// prefix) is not sent and gets an all-zero row, per the Embedder contract (servers reject "").
//
// Dimension: a configured dimension (> 0) is enforced on every response. With dimension == 0,
// Create() sends one probe request and adopts the dimension of the answer, so that identity() is
// complete and immutable from construction on (the store keys vector files by identity).
//
// Retries: a request is retried at most max_retries times, only when retrying may help: HTTP 429,
// HTTP 5xx, and transport connect failures, timeouts and broken transfers. The delay is
// exponential (backoff_initial_ms * 2^attempt, capped at backoff_max_ms) with jitter (a uniform
// draw between half and all of it); a Retry-After (seconds) or retry-after-ms header replaces it,
// capped at retry_after_max_ms. Any other 4xx fails at once with the server's message, taken from
// an OpenAI error body {"error": {"message", "type"}} when present, else the first 200 bytes.
//
// Error codes: kInvalidArgument (bad options; 4xx such as 400/401/403/422; dimension mismatch),
// kNotFound (404: wrong URL or unknown model), kResourceExhausted (429 after all retries, 413,
// response over the size cap), kIOError (5xx after all retries; transport failures),
// kCorruption (a 2xx response that is not a valid embeddings answer).
//
// Identity: name "openai:" + model, dim, version (free text from the options).
//
// Thread-safety: Embed() may be called concurrently; the object is immutable after Create() except
// for the internal HTTP handle pool and the jitter generator, both guarded by mutexes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_annotations.h"
#include "embed/embedder.h"
#include "net/http_client.h"
#include "net/model_http_util.h"

namespace attest {

struct OpenAiEmbedderOptions {
  std::string base_url;  // "http://host:port", with or without a trailing "/" or "/v1"
  std::string model;
  std::string api_key_env = "ATTEST_EMBED_API_KEY";  // "" = never send a key
  uint32_t dimension = 0;   // 0 = learn it from a probe request in Create(), then enforce it
  uint32_t batch_size = 64;  // 1..2048 inputs per request
  int64_t timeout_ms = 30000;         // per request (whole transfer)
  int64_t connect_timeout_ms = 10000;
  uint32_t max_retries = 3;           // 0..20 extra attempts
  int64_t backoff_initial_ms = 200;
  int64_t backoff_max_ms = 5000;
  int64_t retry_after_max_ms = 30000;  // cap on a server's Retry-After
  std::string query_prefix;     // e.g. "query: " for E5-style models
  std::string document_prefix;  // e.g. "passage: "
  std::string version;          // free text, part of the identity (e.g. "2024-05")
  size_t max_response_bytes = size_t{64} << 20;
  // Sleeps between attempts; null = std::this_thread::sleep_for. Tests substitute a recorder.
  std::function<void(std::chrono::milliseconds)> sleep;
};

// Counters for observability and tests.
struct OpenAiEmbedderStats {
  uint64_t requests = 0;  // HTTP attempts, including retries and the dimension probe
  uint64_t retries = 0;
  uint64_t texts = 0;     // texts embedded successfully
};

class OpenAiEmbedder final : public Embedder {
 public:
  static Result<std::unique_ptr<OpenAiEmbedder>> Create(OpenAiEmbedderOptions options);

  const EmbedderIdentity& identity() const override { return identity_; }
  Result<std::vector<float>> Embed(std::span<const std::string_view> texts,
                                   EmbedPurpose purpose) const override;

  // The resolved endpoint, e.g. "http://127.0.0.1:8080/v1/embeddings".
  const std::string& endpoint() const { return endpoint_; }
  OpenAiEmbedderStats stats() const;

 private:
  OpenAiEmbedder(OpenAiEmbedderOptions options, std::string endpoint, std::string api_key);

  // Embeds one batch of already-prefixed, non-empty inputs into `out` (inputs.size() * dim floats),
  // retrying as configured. `expected_dim` 0 accepts any dimension (the probe).
  Status EmbedBatch(const std::vector<std::string>& inputs, uint32_t expected_dim,
                    std::vector<float>* out, uint32_t* got_dim) const;

  const OpenAiEmbedderOptions options_;
  const std::string endpoint_;
  const std::string api_key_;
  EmbedderIdentity identity_;  // set in Create(), immutable afterwards
  HttpClient http_;
  RetryBackoff backoff_;

  mutable Mutex mu_;
  mutable OpenAiEmbedderStats stats_ GUARDED_BY(mu_);
};

// Parses an embeddings response body for `count` inputs into `out` (count * dim floats, ordered by
// "index"). `expected_dim` 0 accepts the dimension of the first row. Exposed for tests and fuzzing.
Status ParseEmbeddingsResponse(std::string_view body, size_t count, uint32_t expected_dim,
                               std::vector<float>* out, uint32_t* dim);

// "<type>: <message>" from an OpenAI error body, else the first 200 bytes of `body`.
std::string ExtractApiErrorMessage(std::string_view body);

// Resolves base_url to the embeddings endpoint ({base}/v1/embeddings), or kInvalidArgument.
Result<std::string> ResolveEmbeddingsEndpoint(std::string_view base_url);

}  // namespace attest
