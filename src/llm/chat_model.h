// ChatModel: the interface of a chat model as the answer path uses it (the LLM writer, the LLM
// judge). ChatClient (llm/chat_client.h) is the OpenAI-compatible implementation; tests and
// embedders of the library may inject their own through EngineOptions::models.
//
// Thread-safety: Complete() and Stream() may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "models/model_http_client.h"  // ModelCallInfo

namespace attest {

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

// What a caller spent on a chat model (docs/cost.md): calls made (failed ones included) and the
// tokens the replies reported (0 when a server reports no usage).
struct ModelUsage {
  uint32_t calls = 0;
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
  ModelUsage& operator+=(const ModelUsage& o) {
    calls += o.calls;
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    return *this;
  }
};

// What happened on the wire during one Complete()/Stream() call (also filled on failure).
using ChatCallInfo = ModelCallInfo;

// Receives one piece of streamed content; return false to stop the generation.
using ChatDeltaCallback = std::function<bool(std::string_view text)>;

class ChatModel {
 public:
  virtual ~ChatModel() = default;
  // One completion. `info` (optional) tells what happened on the wire (the HTTP status of a refusal).
  virtual Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo* info = nullptr) const = 0;
  // A streamed completion: on_delta receives each non-empty content piece; returning false stops
  // the generation (kCancelled).
  virtual Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                                      ChatCallInfo* info = nullptr) const = 0;
  // The model name requests are sent with.
  virtual const std::string& model() const = 0;
};

}  // namespace attest
