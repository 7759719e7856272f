#include "llm/chat_client.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"
#include "llm/sse_stream.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr int kMaxJsonDepth = 64;
constexpr std::string_view kClient = "chat client";
constexpr ModelPath kChatPath{"/v1", "/chat/completions", "/v1/chat/completions"};



Result<json> ParseJsonObject(std::string_view text, const std::string& what) {
  if (JsonNestingExceeds(text, kMaxJsonDepth)) {
    return Status::Corruption(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    return Status::Corruption(what + ": malformed JSON: " + CleanJsonErrorMessage(e.what()));
  }
  if (!j.is_object()) return Status::Corruption(what + ": expected a JSON object, got " + j.type_name());
  return j;
}

// Reads an optional string-or-null member; wrong types are an error naming `where`.
Status OptionalString(const json& obj, const char* key, const std::string& where, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) {
    return Status::Corruption(where + "." + key + " must be a string or null, not " + it->type_name());
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

Status ReadUsage(const json& j, const std::string& what, ChatResponse* r) {
  auto it = j.find("usage");
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_object()) return Status::Corruption(what + ": \"usage\" must be an object, not " + it->type_name());
  for (const char* key : {"prompt_tokens", "completion_tokens"}) {
    auto v = it->find(key);
    if (v == it->end() || v->is_null()) continue;
    if (!v->is_number_integer() || v->get<int64_t>() < 0) {
      return Status::Corruption(what + ": usage." + key + " must be a non-negative integer");
    }
    (std::string_view(key) == "prompt_tokens" ? r->prompt_tokens : r->completion_tokens) = v->get<uint64_t>();
  }
  return Status::Ok();
}

Status ReadModel(const json& j, const std::string& what, ChatResponse* r) {
  return OptionalString(j, "model", what, &r->model);
}

// choices[0] of a completion or chunk; nullptr (and OK) when "choices" is an empty array and
// `allow_empty`.
Result<const json*> FirstChoice(const json& j, const std::string& what, bool allow_empty) {
  auto it = j.find("choices");
  if (it == j.end()) {
    if (allow_empty) return static_cast<const json*>(nullptr);
    return Status::Corruption(what + ": missing \"choices\"");
  }
  if (!it->is_array()) return Status::Corruption(what + ": \"choices\" must be an array, not " + it->type_name());
  if (it->empty()) {
    if (allow_empty) return static_cast<const json*>(nullptr);
    return Status::Corruption(what + ": \"choices\" is empty");
  }
  const json& c = (*it)[0];
  if (!c.is_object()) return Status::Corruption(what + ": choices[0] must be an object, not " + c.type_name());
  return &c;
}

Status ValidateOptions(const ChatClientOptions& o) {
  if (!std::isfinite(o.temperature) || o.temperature < 0 || o.temperature > 2) {
    return Status::InvalidArgument(std::string(kClient) + ": temperature must be in [0, 2]");
  }
  return Status::Ok();
}

bool IsBlankByte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Result<std::string> ResolveChatEndpoint(std::string_view base_url) {
  return ResolveModelUrl(kClient, base_url, kChatPath);
}

Result<ChatResponse> ParseChatCompletion(std::string_view body) {
  const std::string what = "chat completion";
  ATTEST_ASSIGN_OR_RETURN(json j, ParseJsonObject(body, what));
  ChatResponse r;
  ATTEST_RETURN_IF_ERROR(ReadModel(j, what, &r));
  ATTEST_RETURN_IF_ERROR(ReadUsage(j, what, &r));
  ATTEST_ASSIGN_OR_RETURN(const json* choice, FirstChoice(j, what, /*allow_empty=*/false));
  ATTEST_RETURN_IF_ERROR(OptionalString(*choice, "finish_reason", what + ": choices[0]", &r.finish_reason));
  auto msg = choice->find("message");
  if (msg == choice->end()) return Status::Corruption(what + ": choices[0] has no \"message\"");
  if (!msg->is_object()) {
    return Status::Corruption(what + ": choices[0].message must be an object, not " + msg->type_name());
  }
  ATTEST_RETURN_IF_ERROR(OptionalString(*msg, "content", what + ": choices[0].message", &r.content));
  ATTEST_RETURN_IF_ERROR(OptionalString(*msg, "refusal", what + ": choices[0].message", &r.refusal));
  if (r.refusal.empty() && r.finish_reason == "content_filter") r.refusal = "finish_reason content_filter";
  return r;
}

Status ChatStreamAccumulator::Apply(std::string_view data, std::string* delta) {
  delta->clear();
  while (!data.empty() && IsBlankByte(data.front())) data.remove_prefix(1);
  while (!data.empty() && IsBlankByte(data.back())) data.remove_suffix(1);
  if (done_) return Status::Ok();  // anything after [DONE] is ignored
  if (data == "[DONE]") {
    done_ = true;
    return Status::Ok();
  }
  const std::string what = "chat stream chunk " + std::to_string(++chunks_);
  ATTEST_ASSIGN_OR_RETURN(json j, ParseJsonObject(data, what));
  if (auto err = j.find("error"); err != j.end() && !err->is_null()) {
    return Status::UpstreamError("chat stream: the server reported an error mid-stream: " +
                                 ExtractHttpErrorMessage(data));
  }
  ATTEST_RETURN_IF_ERROR(ReadModel(j, what, &response_));
  ATTEST_RETURN_IF_ERROR(ReadUsage(j, what, &response_));
  ATTEST_ASSIGN_OR_RETURN(const json* choice, FirstChoice(j, what, /*allow_empty=*/true));
  if (choice == nullptr) return Status::Ok();  // usage-only chunk
  std::string finish;
  ATTEST_RETURN_IF_ERROR(OptionalString(*choice, "finish_reason", what + ": choices[0]", &finish));
  if (!finish.empty()) {
    response_.finish_reason = finish;
    finished_ = true;
  }
  auto d = choice->find("delta");
  if (d == choice->end() || d->is_null()) return Status::Ok();
  if (!d->is_object()) return Status::Corruption(what + ": choices[0].delta must be an object, not " + d->type_name());
  ATTEST_RETURN_IF_ERROR(OptionalString(*d, "content", what + ": choices[0].delta", delta));
  std::string refusal;
  ATTEST_RETURN_IF_ERROR(OptionalString(*d, "refusal", what + ": choices[0].delta", &refusal));
  response_.refusal += refusal;
  response_.content += *delta;
  return Status::Ok();
}

Result<ChatResponse> ChatStreamAccumulator::Finish() const {
  if (!done_ && !finished_) {
    return Status::UpstreamError("chat stream: the stream ended after " + std::to_string(chunks_) +
                                 " chunks without a finish_reason or [DONE] (truncated)");
  }
  ChatResponse r = response_;
  if (r.refusal.empty() && r.finish_reason == "content_filter") r.refusal = "finish_reason content_filter";
  return r;
}

Result<std::unique_ptr<ChatClient>> ChatClient::Create(ChatClientOptions options) {
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  const std::string label = "model " + options.endpoint.model;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ModelHttpClient> client,
                          ModelHttpClient::Create(kClient, options.endpoint, kChatPath, label));
  return std::unique_ptr<ChatClient>(new ChatClient(std::move(options), std::move(client)));
}

ChatClient::ChatClient(ChatClientOptions options, std::unique_ptr<ModelHttpClient> client)
    : options_(std::move(options)), client_(std::move(client)) {}

ChatClientStats ChatClient::stats() const {
  const ModelHttpStats http = client_->stats();
  MutexLock lock(mu_);
  return ChatClientStats{.requests = http.requests, .retries = http.retries, .prompt_tokens = prompt_tokens_,
                         .completion_tokens = completion_tokens_};
}

Result<std::string> ChatClient::BuildBody(const ChatRequest& request, bool stream) const {
  if (request.messages.empty()) return Status::InvalidArgument("chat client: a request needs at least one message");
  json messages = json::array();
  for (size_t i = 0; i < request.messages.size(); ++i) {
    const ChatMessage& m = request.messages[i];
    if (m.role != "system" && m.role != "user" && m.role != "assistant") {
      return Status::InvalidArgument("chat client: messages[" + std::to_string(i) + "] has unknown role \"" +
                                     m.role + "\"");
    }
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  json body = {{"model", options_.endpoint.model}, {"messages", std::move(messages)}, {"temperature", options_.temperature}};
  const uint32_t max_tokens = request.max_tokens.value_or(options_.max_tokens);
  if (max_tokens > 0) body["max_tokens"] = max_tokens;
  if (options_.seed) body["seed"] = *options_.seed;
  if (!request.response_format_json.empty()) {
    Result<json> rf = ParseJsonObject(request.response_format_json, "response_format");
    if (!rf.ok()) return Status::InvalidArgument("chat client: " + rf.status().message());
    body["response_format"] = std::move(rf).value();
  }
  if (stream) {
    body["stream"] = true;
    if (options_.stream_include_usage) body["stream_options"] = {{"include_usage", true}};
  }
  // Invalid UTF-8 (e.g. from a passage) is replaced by U+FFFD rather than failing the call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// One streamed attempt: detects a server that ignored "stream" (one JSON body), else feeds the
// server-sent events to the accumulator and the content pieces to on_delta.
class ChatStreamAttempt final : public ModelStreamConsumer {
 public:
  ChatStreamAttempt(const ChatDeltaCallback& on_delta, size_t max_line_bytes)
      : on_delta_(on_delta), sse_(max_line_bytes) {}

  Status Consume(std::string_view chunk) override {
    if (!decided_) {
      size_t k = 0;
      while (k < chunk.size() && IsBlankByte(chunk[k])) ++k;
      if (k < chunk.size()) {
        decided_ = true;
        json_body_ = chunk[k] == '{';
      }
    }
    if (json_body_ || !decided_) {
      raw_.append(chunk);
      return Status::Ok();
    }
    if (!raw_.empty()) {  // blank bytes seen before deciding
      ATTEST_RETURN_IF_ERROR(Upstream(sse_.Feed(raw_, &events_)));
      raw_.clear();
    }
    ATTEST_RETURN_IF_ERROR(Upstream(sse_.Feed(chunk, &events_)));
    return HandleEvents();
  }
  bool committed() const override { return delivered_; }

  // The response after the whole 2xx body arrived.
  Result<ChatResponse> Finish() {
    if (json_body_) {
      Result<ChatResponse> parsed = ParseChatCompletion(raw_);
      if (parsed.ok() && !parsed->content.empty() && !on_delta_(parsed->content)) {
        return Status::Cancelled("chat stream: stopped by the caller");
      }
      return parsed;
    }
    sse_.Finish(&events_);
    ATTEST_RETURN_IF_ERROR(HandleEvents());
    return acc_.Finish();
  }

 private:
  static Status Upstream(const Status& st) {
    return st.ok() || st.code() == StatusCode::kCancelled ? st : Status::UpstreamError(st.message());
  }

  Status HandleEvents() {
    for (SseEvent& e : events_) {
      if (e.type == "error") {
        return Status::UpstreamError("chat stream: the server sent an error event: " + ExtractHttpErrorMessage(e.data));
      }
      ATTEST_RETURN_IF_ERROR(Upstream(acc_.Apply(e.data, &delta_)));
      if (!delta_.empty()) {
        delivered_ = true;
        if (!on_delta_(delta_)) {
          return Status::Cancelled("chat stream: stopped by the caller after the model began answering");
        }
      }
    }
    events_.clear();
    return Status::Ok();
  }

  const ChatDeltaCallback& on_delta_;
  SseStream sse_;
  ChatStreamAccumulator acc_;
  std::vector<SseEvent> events_;
  std::string delta_;
  bool delivered_ = false;   // a delta reached on_delta: no retry from here on
  bool json_body_ = false;   // the server ignored "stream" and sent one JSON document
  bool decided_ = false;     // json_body_ is known (first non-blank byte seen)
  std::string raw_;          // the body when json_body_
};

Result<ChatResponse> ChatClient::Complete(const ChatRequest& request, ChatCallInfo* info) const {
  if (info != nullptr) *info = ChatCallInfo{};
  ATTEST_ASSIGN_OR_RETURN(std::string body, BuildBody(request, /*stream=*/false));
  ATTEST_ASSIGN_OR_RETURN(HttpResponse response, client_->Post(body, info));
  return Finish(ParseChatCompletion(response.body));
}

Result<ChatResponse> ChatClient::Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                                        ChatCallInfo* info) const {
  if (info != nullptr) *info = ChatCallInfo{};
  ATTEST_ASSIGN_OR_RETURN(std::string body, BuildBody(request, /*stream=*/true));
  std::unique_ptr<ChatStreamAttempt> attempt;
  const std::function<ModelStreamConsumer&()> next_attempt = [&]() -> ModelStreamConsumer& {
    attempt = std::make_unique<ChatStreamAttempt>(on_delta, options_.endpoint.max_response_bytes);
    return *attempt;
  };
  ATTEST_RETURN_IF_ERROR(client_->PostStreaming(body, next_attempt, info).status());
  return Finish(attempt->Finish());
}

Result<ChatResponse> ChatClient::Finish(Result<ChatResponse> parsed) const {
  if (!parsed.ok()) {
    if (parsed.status().code() == StatusCode::kCancelled) return parsed.status();
    return client_->MalformedAnswer(parsed.status());
  }
  if (parsed->model.empty()) parsed->model = options_.endpoint.model;
  MutexLock lock(mu_);
  prompt_tokens_ += parsed->prompt_tokens;
  completion_tokens_ += parsed->completion_tokens;
  return parsed;
}

}  // namespace attest
