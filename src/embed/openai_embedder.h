// OpenAiEmbedder: an Embedder that calls an OpenAI-compatible embeddings endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server, text-embeddings-inference...).
//
// Request:  POST {base}/v1/embeddings  {"model": M, "input": [...], "encoding_format": "float"}
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
// Endpoint, key, retries and the status of failures are the model HTTP client's
// (src/models/model_http_client.h): kInvalidArgument only for bad options; an answer that is not a
// valid embeddings answer (a wrong dimension included) is kUpstreamError.
//
// Identity: name "openai:" + model, dim, version (free text from the options).
//
// Thread-safety: Embed() may be called concurrently; the object is immutable after Create() except
// for the model client's handle pool, jitter generator and counters, and the text counter (guarded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_annotations.h"
#include "embed/embedder.h"
#include "models/model_http_client.h"

namespace attest {

struct OpenAiEmbedderOptions {
  ModelEndpoint endpoint;    // base URL, model, key, timeouts, retries (ModelEndpoint's defaults)
  uint32_t dimension = 0;    // 0 = learn it from a probe request in Create(), then enforce it
  uint32_t batch_size = 64;  // 1..2048 inputs per request
  std::string query_prefix;     // e.g. "query: " for E5-style models
  std::string document_prefix;  // e.g. "passage: "
  std::string version;          // free text, part of the identity (e.g. "2024-05")
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
  const std::string& endpoint() const { return client_->url(); }
  OpenAiEmbedderStats stats() const;

 private:
  OpenAiEmbedder(OpenAiEmbedderOptions options, std::unique_ptr<ModelHttpClient> client);

  // Embeds one batch of already-prefixed, non-empty inputs into `out` (inputs.size() * dim floats),
  // retrying as configured. `expected_dim` 0 accepts any dimension (the probe).
  Status EmbedBatch(const std::vector<std::string>& inputs, uint32_t expected_dim,
                    std::vector<float>* out, uint32_t* got_dim) const;

  const OpenAiEmbedderOptions options_;
  const std::unique_ptr<ModelHttpClient> client_;
  EmbedderIdentity identity_;  // set in Create(), immutable afterwards

  mutable Mutex mu_;
  mutable uint64_t texts_ GUARDED_BY(mu_) = 0;
};

// Parses an embeddings response body for `count` inputs into `out` (count * dim floats, ordered by
// "index"). `expected_dim` 0 accepts the dimension of the first row. Exposed for tests and fuzzing.
Status ParseEmbeddingsResponse(std::string_view body, size_t count, uint32_t expected_dim,
                               std::vector<float>* out, uint32_t* dim);

// Resolves base_url to the embeddings endpoint ({base}/v1/embeddings), or kInvalidArgument.
Result<std::string> ResolveEmbeddingsEndpoint(std::string_view base_url);

}  // namespace attest
