// Helpers shared by the HTTP clients of remote models (embeddings, chat, rerank) and the model
// writers and judge: which HTTP statuses are worth
// retrying, the domain code for a final HTTP status, the server's requested retry delay, a guard
// against deeply nested JSON (nlohmann's parser recurses) and the error message of an error body
// in the shapes the common servers use.
//
// Thread-safety: all functions are pure.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <optional>
#include <string>
#include <string_view>

#include "attest/status.h"
#include "common/json_guard.h"  // JsonNestingExceeds, CleanJsonErrorMessage
#include "common/thread_annotations.h"
#include "net/http_client.h"

namespace attest {

// Exponential backoff between attempts of a model call: initial_ms * 2^attempt, capped at max_ms,
// jittered to 50-100% so that many clients do not retry in step. `sleep` replaces the real sleep
// (tests record the delays instead); null = std::this_thread::sleep_for.
// Thread-safety: Delay() and Sleep() may be called concurrently.
class RetryBackoff {
 public:
  RetryBackoff(int64_t initial_ms, int64_t max_ms, std::function<void(std::chrono::milliseconds)> sleep);
  std::chrono::milliseconds Delay(uint32_t attempt) const;
  void Sleep(std::chrono::milliseconds delay) const;

 private:
  const int64_t initial_ms_, max_ms_;
  const std::function<void(std::chrono::milliseconds)> sleep_;
  mutable Mutex mu_;
  mutable std::mt19937_64 rng_ GUARDED_BY(mu_);
};

// True for HTTP 429 and 5xx: the same request may succeed later.
bool IsRetryableHttpStatus(int status);

// Domain code for a final non-2xx status: 404 -> kNotFound; 413, 429 -> kResourceExhausted;
// 5xx -> kIOError; any other -> kInvalidArgument.
StatusCode StatusCodeForHttpStatus(int status);

// Delay requested by the server, if any: "retry-after-ms" (OpenAI) or "Retry-After" in seconds.
// HTTP-date forms of Retry-After are ignored (the caller's backoff is used instead).
std::optional<int64_t> ServerRetryDelayMs(const HttpResponse& response);


// JSON text safe inside a delimited data block of a prompt: every '<' becomes "\u003c", so passage
// text cannot close the block (`</evidence>`); decoding gives back the exact text.
std::string EscapeForDataBlock(std::string_view json_text);


// The message of an error body: {"error": {"message", "type"}} (OpenAI), {"error": "..."} (TEI,
// llama.cpp, Ollama), {"message": "..."} (Cohere, vLLM), {"detail": "..."} or
// {"detail": [{"msg": ...}]} (Jina, FastAPI); else the first 200 bytes of the body, control
// characters replaced by spaces. Never fails.
std::string ExtractHttpErrorMessage(std::string_view body);

}  // namespace attest
