// HttpReranker: a Reranker that calls a cross-encoder rerank endpoint over HTTP. Four wire shapes
// (docs/rerank.md has the same text with examples):
//
//   kTei       Text Embeddings Inference.
//              POST {base}/rerank
//              {"query": q, "texts": [p0, p1, ...], "raw_scores": false, "truncate": true}
//              -> [{"index": i, "score": s}, ...]                       (any order)
//              ("truncate": true lets TEI cut passages longer than the model's window instead of
//              answering 413; the model name is only a label: a TEI server serves one model.)
//   kJina      Jina AI, llama.cpp server (--reranking), vLLM, Infinity.
//              POST {base}/v1/rerank
//              {"model": m, "query": q, "documents": [p0, ...], "top_n": n}
//              -> {"results": [{"index": i, "relevance_score": s}, ...], ...}   (any order)
//   kCohere    Cohere v1: same request and response as kJina at POST {base}/v1/rerank.
//   kCohereV2  Cohere v2: same request and response at POST {base}/v2/rerank.
//
// Extra fields in a response ("document", "text", "usage", "meta"...) are ignored. `n` is the
// batch size, so every passage must come back scored. base_url may be given with or without a
// trailing "/", "/v1" (kJina, kCohere) or "/v2" (kCohereV2); a URL already ending in "/rerank" is
// used verbatim (e.g. "https://api.jina.ai/v1/rerank").
//
// Passages are sent in batches of max_batch (one request each, sequentially) and the scores are
// put back in input order; cross-encoder scores are per (query, passage) pair, so scores of
// different batches are comparable. A passage longer than max_passage_chars Unicode code points
// is cut to that length (at a code point boundary) before it is sent; invalid UTF-8 is replaced by
// U+FFFD. Passages that are empty or only whitespace are not sent (servers reject them) and get
// the lowest score of the call (0 when nothing was sent). An empty passage list returns an empty
// vector without a request; an empty or blank query with passages is kInvalidArgument.
//
// Validation of every answer: the right JSON shape, every index an integer in range and unique,
// every sent passage scored (missing ones are named), every score a finite number.
//
// Endpoint, key, retries and the status of failures are the model HTTP client's
// (src/models/model_http_client.h): kInvalidArgument only for bad options or an empty query; a 2xx
// answer that is not a valid rerank answer is kUpstreamError. Messages name the method, the URL
// (credentials removed), the model and the passage range of the failing batch.
//
// Thread-safety: Score() may be called concurrently; the object is immutable after Create() except
// for the model client's handle pool, jitter generator and counters, and the passage counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_annotations.h"
#include "models/model_http_client.h"
#include "rerank/reranker.h"

namespace attest {

enum class RerankApi { kTei, kJina, kCohere, kCohereV2 };

// "tei", "jina", "cohere", "cohere-v2".
std::string_view RerankApiName(RerankApi api);
// Inverse of RerankApiName (also accepts "cohere_v2" and "cohere2"); kInvalidArgument otherwise.
Result<RerankApi> ParseRerankApi(std::string_view name);

// The reranker's endpoint defaults: reranking sits on the answer path, so it gives up sooner.
inline ModelEndpoint DefaultRerankEndpoint() {
  ModelEndpoint e;
  e.timeout_ms = 10000;
  e.connect_timeout_ms = 3000;
  e.max_retries = 2;
  e.backoff_max_ms = 2000;
  e.retry_after_max_ms = 10000;
  e.max_response_bytes = size_t{16} << 20;
  return e;
}

struct HttpRerankerOptions {
  // base URL (see the header comment for accepted forms), model (required; sent for kJina/kCohere*,
  // a label only for kTei), key, timeouts and retries.
  ModelEndpoint endpoint = DefaultRerankEndpoint();
  RerankApi api = RerankApi::kJina;
  size_t max_batch = 64;               // 1..1024 passages per request
  size_t max_passage_chars = 4000;     // code points per passage (longer ones are cut); 0 = no cut
};

// Counters for observability and tests.
struct HttpRerankerStats {
  uint64_t requests = 0;   // HTTP attempts, including retries
  uint64_t retries = 0;
  uint64_t passages = 0;   // passages scored by the server
  uint64_t truncated = 0;  // passages cut to max_passage_chars
};

class HttpReranker final : public Reranker {
 public:
  static Result<std::unique_ptr<HttpReranker>> Create(HttpRerankerOptions options);

  Result<std::vector<double>> Score(std::string_view query, const std::vector<std::string>& passages) const override;
  std::string name() const override;  // "<api>:<model>", e.g. "tei:BAAI/bge-reranker-base"

  // The resolved endpoint, e.g. "http://127.0.0.1:8080/v1/rerank".
  const std::string& endpoint() const { return client_->url(); }
  HttpRerankerStats stats() const;

 private:
  HttpReranker(HttpRerankerOptions options, std::unique_ptr<ModelHttpClient> client);

  // Scores one batch (already truncated, non-blank) with retries; `out` gets one score per input.
  Status ScoreBatch(std::string_view query, const std::vector<std::string>& inputs, std::vector<double>* out) const;

  const HttpRerankerOptions options_;
  const std::unique_ptr<ModelHttpClient> client_;

  mutable Mutex mu_;
  mutable uint64_t passages_ GUARDED_BY(mu_) = 0;
  mutable uint64_t truncated_ GUARDED_BY(mu_) = 0;
};

// Resolves base_url to the endpoint of `api`, or kInvalidArgument naming what is wrong.
Result<std::string> ResolveRerankEndpoint(std::string_view base_url, RerankApi api);

// The JSON request body for one batch.
std::string BuildRerankRequestBody(RerankApi api, std::string_view model, std::string_view query,
                                   const std::vector<std::string>& passages);

// Parses a 2xx answer for `count` passages into one score per passage, in input order.
// kCorruption naming the first problem. Exposed for tests and fuzzing.
Result<std::vector<double>> ParseRerankResponse(RerankApi api, std::string_view body, size_t count);

// `text` cut to at most `max_chars` UTF-8 code points (never inside a sequence); 0 = unchanged.
std::string_view TruncateUtf8(std::string_view text, size_t max_chars);

}  // namespace attest
