// ChatClient: a client of the OpenAI-compatible chat completions endpoint
// (POST {base}/v1/chat/completions: llama.cpp server, Ollama, vLLM, OpenAI).
//
// Request:  {"model", "messages": [{"role", "content"}], "temperature", "max_tokens", "seed"?,
//            "response_format"? (verbatim from ChatRequest::response_format_json),
//            "stream"?, "stream_options": {"include_usage": true}? }
// Response: choices[0].message.{content, refusal}, choices[0].finish_reason, usage.{prompt_tokens,
//           completion_tokens}, model. Every field is type-checked; a 2xx answer that is not a
//           valid chat completion is kUpstreamError naming what was wrong.
//
// Streaming: Stream() sends "stream": true and parses server-sent events (see llm/sse_stream.h):
// each `data: {...}` chunk carries choices[0].delta.{content, refusal} and eventually a
// finish_reason; `data: [DONE]` ends the stream; a last chunk with "usage" (and empty "choices")
// fills the token counts. on_delta receives each non-empty content piece; returning false aborts
// (kCancelled). A stream that ends before [DONE] and before any finish_reason, or an
// `{"error": ...}` event mid-stream, is kUpstreamError with the server's message. A server that
// ignores "stream" and answers one JSON body is accepted (one delta with the content).
//
// Refusals: a "refusal" string (OpenAI structured outputs) or finish_reason "content_filter" is
// not an error: ChatResponse::refusal is set (non-empty) and refused() is true. Callers decide.
//
// Endpoint, key, retries and the status of failures are the model HTTP client's
// (src/models/model_http_client.h); a stream is never retried once a delta was handed to on_delta
// (the caller already showed it). kInvalidArgument only for bad options or a bad request.
// ChatCallInfo tells the HTTP status, for callers that react to a specific one (LlmWriter falls
// back to prose on 400/422).
//
// Thread-safety: Complete() and Stream() may be called concurrently; the object is immutable after
// Create() except for the model client's handle pool, jitter generator and counters (guarded).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_annotations.h"
#include "attest/status.h"
#include "llm/chat_model.h"
#include "models/model_http_client.h"

namespace attest {

// The chat client's endpoint defaults: answers take longer than embeddings, bodies are smaller.
inline ModelEndpoint DefaultChatEndpoint() {
  ModelEndpoint e;
  e.timeout_ms = 60000;
  e.max_retries = 2;
  e.backoff_initial_ms = 250;
  e.max_response_bytes = size_t{16} << 20;
  return e;
}

struct ChatClientOptions {
  ModelEndpoint endpoint = DefaultChatEndpoint();
  double temperature = 0;      // 0..2
  uint32_t max_tokens = 1024;  // 0 = not sent (server default)
  std::optional<int64_t> seed;
  bool stream_include_usage = true;  // send stream_options.include_usage with Stream()
};

struct ChatClientStats {
  uint64_t requests = 0;  // HTTP attempts including retries
  uint64_t retries = 0;
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
};

class ChatClient final : public ChatModel {
 public:
  static Result<std::unique_ptr<ChatClient>> Create(ChatClientOptions options);

  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo* info = nullptr) const override;
  Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                              ChatCallInfo* info = nullptr) const override;
  const std::string& model() const override { return options_.endpoint.model; }

  const std::string& endpoint() const { return client_->url(); }
  const ChatClientOptions& options() const { return options_; }
  ChatClientStats stats() const;

 private:
  ChatClient(ChatClientOptions options, std::unique_ptr<ModelHttpClient> client);
  Result<std::string> BuildBody(const ChatRequest& request, bool stream) const;
  Result<ChatResponse> Finish(Result<ChatResponse> parsed) const;

  const ChatClientOptions options_;
  const std::unique_ptr<ModelHttpClient> client_;

  mutable Mutex mu_;
  mutable uint64_t prompt_tokens_ GUARDED_BY(mu_) = 0;
  mutable uint64_t completion_tokens_ GUARDED_BY(mu_) = 0;
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
