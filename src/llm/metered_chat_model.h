// MeteredChatModel: a ChatModel that passes every call to another one and counts what it cost
// (ModelUsage: calls, failed ones included, and the tokens the replies reported). One answer wraps
// a shared model in its own meter to learn what that answer spent (docs/cost.md).
//
// Thread-safety: as the wrapped model; the counts are atomic.
#pragma once

#include <atomic>

#include "llm/chat_model.h"

namespace attest {

class MeteredChatModel final : public ChatModel {
 public:
  explicit MeteredChatModel(const ChatModel& model) : model_(model) {}

  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo* info = nullptr) const override {
    return Count(model_.Complete(request, info));
  }
  Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                              ChatCallInfo* info = nullptr) const override {
    return Count(model_.Stream(request, on_delta, info));
  }
  const std::string& model() const override { return model_.model(); }

  ModelUsage usage() const {
    return ModelUsage{calls_.load(), prompt_tokens_.load(), completion_tokens_.load()};
  }

 private:
  Result<ChatResponse> Count(Result<ChatResponse> r) const {
    ++calls_;
    if (r.ok()) {
      prompt_tokens_ += r->prompt_tokens;
      completion_tokens_ += r->completion_tokens;
    }
    return r;
  }

  const ChatModel& model_;
  mutable std::atomic<uint32_t> calls_{0};
  mutable std::atomic<uint64_t> prompt_tokens_{0};
  mutable std::atomic<uint64_t> completion_tokens_{0};
};

}  // namespace attest
