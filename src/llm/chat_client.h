// ChatClient: a client of the OpenAI-compatible chat completions endpoint
// (POST {base}/v1/chat/completions: llama.cpp server, Ollama, vLLM, OpenAI).
//
// Request:  {"model", "messages": [{"role", "content"}], "temperature", "max_tokens", "seed"?,
//            "response_format"? (verbatim from ChatRequest::response_format_json),
//            "stream"?, "stream_options": {"include_usage": true}? }
//           with "Authorization: Bearer <key>" when the environment variable named by
//           options.api_key_env is set and non-empty (read once, in Create()).
// Response: choices[0].message.{content, refusal}, choices[0].finish_reason, usage.{prompt_tokens,
//           completion_tokens}, model. Every field is type-checked; a 2xx answer that is not a
//           valid chat completion is kCorruption naming what was wrong.
//
// Streaming: Stream() sends "stream": true and parses server-sent events (see llm/sse_stream.h):
// each `data: {...}` chunk carries choices[0].delta.{content, refusal} and eventually a
// finish_reason; `data: [DONE]` ends the stream; a last chunk with "usage" (and empty "choices")
// fills the token counts. on_delta receives each non-empty content piece; returning false aborts
// (kCancelled). A stream that ends before [DONE] and before any finish_reason is kIOError
// (truncated). An `{"error": ...}` event mid-stream is kIOError with the server's message. A
// server that ignores "stream" and answers one JSON body is accepted (one delta with the content).
//
// Refusals: a "refusal" string (OpenAI structured outputs) or finish_reason "content_filter" is
// not an error: ChatResponse::refusal is set (non-empty) and refused() is true. Callers decide.
//
// Retries: at most max_retries extra attempts, only for HTTP 429, HTTP 5xx and transient transport
// failures (connect, timeout, broken transfer); exponential backoff with jitter, replaced by a
// Retry-After / retry-after-ms header (capped at retry_after_max_ms). A stream is never retried
// once a delta was handed to on_delta (the caller already showed it).
//
// Error codes: kInvalidArgument (bad options or request; HTTP 400/401/403/422 and other 4xx),
// kNotFound (404), kResourceExhausted (429 after all retries, 413, body over the size cap),
// kIOError (5xx after all retries; transport failures including timeouts), kCorruption (malformed
// 2xx answer), kCancelled (on_delta returned false). ChatCallInfo tells the HTTP status, for
// callers that react to a specific one (LlmWriter falls back to prose on 400/422).
//
// Thread-safety: Complete() and Stream() may be called concurrently; the object is immutable after
// Create() except for the HTTP handle pool, the jitter generator and the stats (mutex-guarded).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"
#include "net/http_client.h"
#include "net/model_http_util.h"

namespace attest {

struct ChatClientOptions {
  std::string base_url;  // "http://host:port", with or without "/v1" or the full endpoint path
  std::string model;
  std::string api_key_env = "ATTEST_LLM_API_KEY";  // "" = never send a key
  int64_t timeout_ms = 60000;  // per attempt, whole transfer (a stream included)
  int64_t connect_timeout_ms = 10000;
  uint32_t max_retries = 2;    // 0..20 extra attempts
  int64_t backoff_initial_ms = 250;
  int64_t backoff_max_ms = 5000;
  int64_t retry_after_max_ms = 30000;
  double temperature = 0;      // 0..2
  uint32_t max_tokens = 1024;  // 0 = not sent (server default)
  std::optional<int64_t> seed;
  bool stream_include_usage = true;  // send stream_options.include_usage with Stream()
  size_t max_response_bytes = size_t{16} << 20;
  // Sleeps between attempts; null = std::this_thread::sleep_for. Tests substitute a recorder.
  std::function<void(std::chrono::milliseconds)> sleep;
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // The "response_format" object as JSON text, e.g. {"type":"json_schema","json_schema":{...}};
  // "" = not sent. Must parse as a JSON object (else kInvalidArgument).
  std::string response_format_json;
  std::optional<uint32_t> max_tokens;  // overrides the option for this call
};

struct ChatResponse {
  std::string content;
  std::string finish_reason;  // "stop", "length", "content_filter", ... ("" if the server sent none)
  std::string refusal;        // non-empty when the model refused
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
  std::string model;          // as reported by the server, else the requested one
  bool refused() const { return !refusal.empty(); }
};

// What happened on the wire during one Complete()/Stream() call (also filled on failure).
struct ChatCallInfo {
  int http_status = 0;       // status of the last attempt; 0 when no response was obtained
  uint32_t attempts = 0;
  HttpFailure failure = HttpFailure::kNone;  // transport failure of the last attempt
};

struct ChatClientStats {
  uint64_t requests = 0;  // HTTP attempts including retries
  uint64_t retries = 0;
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
};

// Receives one piece of streamed content; return false to stop the generation.
using ChatDeltaCallback = std::function<bool(std::string_view text)>;

class ChatClient {
 public:
  static Result<std::unique_ptr<ChatClient>> Create(ChatClientOptions options);

  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo* info = nullptr) const;
  Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                              ChatCallInfo* info = nullptr) const;

  const std::string& endpoint() const { return endpoint_; }
  const ChatClientOptions& options() const { return options_; }
  ChatClientStats stats() const;

 private:
  ChatClient(ChatClientOptions options, std::string endpoint, std::string api_key);
  Result<std::string> BuildBody(const ChatRequest& request, bool stream) const;
  Result<ChatResponse> Run(const ChatRequest& request, const ChatDeltaCallback* on_delta,
                           ChatCallInfo* info) const;

  const ChatClientOptions options_;
  const std::string endpoint_;
  const std::string api_key_;
  HttpClient http_;
  RetryBackoff backoff_;

  mutable Mutex mu_;
  mutable ChatClientStats stats_ GUARDED_BY(mu_);
};

// Parses a non-streamed chat completion body. Exposed for tests and fuzzing.
Result<ChatResponse> ParseChatCompletion(std::string_view body);

// Accumulates the chunks of a streamed chat completion (the `data:` payloads, "[DONE]" included).
// Exposed for tests and fuzzing.
class ChatStreamAccumulator {
 public:
  // Applies one event payload; `delta` receives the content piece (may be empty).
  Status Apply(std::string_view data, std::string* delta);
  // The final response, or an error when the stream was cut before [DONE] / a finish_reason.
  Result<ChatResponse> Finish() const;
  bool done() const { return done_; }

 private:
  ChatResponse response_;
  bool done_ = false;        // [DONE] seen
  bool finished_ = false;    // a finish_reason seen
  size_t chunks_ = 0;
};

// Resolves base_url to {base}/v1/chat/completions, or kInvalidArgument.
Result<std::string> ResolveChatEndpoint(std::string_view base_url);

}  // namespace attest
