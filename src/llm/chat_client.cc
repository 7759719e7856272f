#include "llm/chat_client.h"
#include "net/model_http_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "embed/openai_embedder.h"  // ExtractApiErrorMessage
#include "llm/sse_stream.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxRetries = 20;
constexpr int kMaxJsonDepth = 64;



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

StatusCode CodeForHttpStatus(int status) {
  if (status == 404) return StatusCode::kNotFound;
  if (status == 413 || status == 429) return StatusCode::kResourceExhausted;
  if (status >= 500) return StatusCode::kIOError;
  return StatusCode::kInvalidArgument;
}



Status ValidateOptions(const ChatClientOptions& o) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("chat client: " + m); };
  if (o.model.empty()) return bad("model must not be empty");
  for (char c : o.model) {
    if (static_cast<unsigned char>(c) < 0x20) return bad("model name contains a control character");
  }
  if (o.timeout_ms <= 0) return bad("timeout_ms must be positive, got " + std::to_string(o.timeout_ms));
  if (o.connect_timeout_ms < 0) return bad("connect_timeout_ms must not be negative");
  if (o.max_retries > kMaxRetries) {
    return bad("max_retries must be at most " + std::to_string(kMaxRetries) + ", got " + std::to_string(o.max_retries));
  }
  if (o.backoff_initial_ms < 0 || o.backoff_max_ms < o.backoff_initial_ms) {
    return bad("backoff must satisfy 0 <= backoff_initial_ms <= backoff_max_ms");
  }
  if (o.retry_after_max_ms < 0) return bad("retry_after_max_ms must not be negative");
  if (!std::isfinite(o.temperature) || o.temperature < 0 || o.temperature > 2) {
    return bad("temperature must be in [0, 2]");
  }
  if (o.max_response_bytes < 1024) return bad("max_response_bytes must be at least 1024");
  return Status::Ok();
}

bool IsBlankByte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Result<std::string> ResolveChatEndpoint(std::string_view base_url) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("chat client: base_url \"" + RedactUrl(base_url) + "\" " + why);
  };
  const size_t sep = base_url.find("://");
  if (sep == std::string_view::npos) return bad("must start with http:// or https://");
  std::string scheme(base_url.substr(0, sep));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "http" && scheme != "https") return bad("must start with http:// or https://");
  for (char c : base_url) {
    if (static_cast<unsigned char>(c) <= 0x20) return bad("contains whitespace or a control character");
  }
  if (base_url.find_first_of("?#") != std::string_view::npos) return bad("must not contain a query or fragment");
  std::string_view rest = base_url.substr(sep + 3);
  if (rest.empty() || rest.front() == '/') return bad("has no host");
  std::string_view url = base_url;
  while (url.ends_with('/')) url.remove_suffix(1);
  if (url.ends_with("/v1/chat/completions")) return std::string(url);
  if (url.ends_with("/v1")) url.remove_suffix(3);
  return std::string(url) + "/v1/chat/completions";
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
    return Status::IOError("chat stream: the server reported an error mid-stream: " +
                           ExtractApiErrorMessage(data));
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
    return Status::IOError("chat stream: the stream ended after " + std::to_string(chunks_) +
                           " chunks without a finish_reason or [DONE] (truncated)");
  }
  ChatResponse r = response_;
  if (r.refusal.empty() && r.finish_reason == "content_filter") r.refusal = "finish_reason content_filter";
  return r;
}

Result<std::unique_ptr<ChatClient>> ChatClient::Create(ChatClientOptions options) {
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  ATTEST_ASSIGN_OR_RETURN(std::string endpoint, ResolveChatEndpoint(options.base_url));
  std::string api_key;
  if (!options.api_key_env.empty()) {
    if (const char* v = std::getenv(options.api_key_env.c_str()); v != nullptr) api_key = v;
    if (api_key.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("chat client: environment variable " + options.api_key_env +
                                     " contains a line break");
    }
  }
  return std::unique_ptr<ChatClient>(new ChatClient(std::move(options), std::move(endpoint), std::move(api_key)));
}

ChatClient::ChatClient(ChatClientOptions options, std::string endpoint, std::string api_key)
    : options_(std::move(options)),
      endpoint_(std::move(endpoint)),
      api_key_(std::move(api_key)),
      http_(HttpClientOptions{.max_response_bytes = options_.max_response_bytes}),
      backoff_(options_.backoff_initial_ms, options_.backoff_max_ms, options_.sleep) {}

ChatClientStats ChatClient::stats() const {
  MutexLock lock(mu_);
  return stats_;
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
  json body = {{"model", options_.model}, {"messages", std::move(messages)}, {"temperature", options_.temperature}};
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

Result<ChatResponse> ChatClient::Complete(const ChatRequest& request, ChatCallInfo* info) const {
  return Run(request, nullptr, info);
}

Result<ChatResponse> ChatClient::Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                                        ChatCallInfo* info) const {
  return Run(request, &on_delta, info);
}

Result<ChatResponse> ChatClient::Run(const ChatRequest& request, const ChatDeltaCallback* on_delta,
                                     ChatCallInfo* info) const {
  ChatCallInfo local_info;
  ChatCallInfo& ci = info != nullptr ? *info : local_info;
  ci = ChatCallInfo{};
  const bool streaming = on_delta != nullptr;
  ATTEST_ASSIGN_OR_RETURN(std::string body, BuildBody(request, streaming));
  HttpRequest http_request;
  http_request.method = "POST";
  http_request.url = endpoint_;
  http_request.headers.push_back({"Content-Type", "application/json"});
  http_request.headers.push_back({"Accept", streaming ? "text/event-stream" : "application/json"});
  if (!api_key_.empty()) http_request.headers.push_back({"Authorization", "Bearer " + api_key_});
  http_request.body = std::move(body);
  http_request.timeout_ms = options_.timeout_ms;
  http_request.connect_timeout_ms = options_.connect_timeout_ms;

  const uint32_t attempts = options_.max_retries + 1;
  const std::string where = "POST " + RedactUrl(endpoint_) + " (model " + options_.model + ")";
  for (uint32_t attempt = 0;; ++attempt) {
    {
      MutexLock lock(mu_);
      ++stats_.requests;
      if (attempt > 0) ++stats_.retries;
    }
    ci.attempts = attempt + 1;
    ci.http_status = 0;
    const bool last = attempt + 1 >= attempts;
    const std::string tries = attempts == 1 ? "" : " after " + std::to_string(attempt + 1) + " attempts";

    // Streaming state for this attempt.
    SseStream sse(options_.max_response_bytes);
    ChatStreamAccumulator acc;
    std::vector<SseEvent> events;
    std::string delta;
    Status stream_error;
    bool delivered = false;   // a delta reached on_delta: no retry from here on
    bool json_body = false;   // the server ignored "stream" and sent one JSON document
    bool decided = false;     // json_body is known (first non-blank byte seen)
    std::string raw;          // the body when json_body
    bool user_stop = false;
    auto handle_events = [&]() -> bool {
      for (SseEvent& e : events) {
        if (e.type == "error") {
          stream_error = Status::IOError("chat stream: the server sent an error event: " +
                                         ExtractApiErrorMessage(e.data));
          return false;
        }
        stream_error = acc.Apply(e.data, &delta);
        if (!stream_error.ok()) return false;
        if (!delta.empty()) {
          delivered = true;
          if (!(*on_delta)(delta)) {
            user_stop = true;
            return false;
          }
        }
      }
      events.clear();
      return true;
    };
    HttpChunkCallback on_chunk = [&](std::string_view chunk) -> bool {
      if (!decided) {
        size_t k = 0;
        while (k < chunk.size() && IsBlankByte(chunk[k])) ++k;
        if (k < chunk.size()) {
          decided = true;
          json_body = chunk[k] == '{';
        }
      }
      if (json_body || !decided) {
        raw.append(chunk);
        return true;
      }
      if (!raw.empty()) {  // blank bytes seen before deciding
        stream_error = sse.Feed(raw, &events);
        raw.clear();
        if (!stream_error.ok()) return false;
      }
      stream_error = sse.Feed(chunk, &events);
      if (!stream_error.ok()) return false;
      return handle_events();
    };

    HttpFailure failure = HttpFailure::kNone;
    Result<HttpResponse> response =
        streaming ? http_.SendStreaming(http_request, on_chunk, &failure) : http_.Send(http_request, &failure);
    ci.failure = failure;
    if (streaming && (user_stop || !stream_error.ok())) {
      if (user_stop) return Status::Cancelled("chat stream: stopped by the caller after the model began answering");
      return stream_error.WithContext(where);
    }
    if (!response.ok()) {
      const bool transient = IsTransientHttpFailure(failure) && !delivered;
      if (!transient || last) {
        const Status& st = response.status();
        std::string msg = st.message() + (transient ? tries : "");
        if (delivered) msg += " (the stream was cut after the answer began)";
        return Status(st.code(), msg);
      }
      backoff_.Sleep(backoff_.Delay(attempt));
      continue;
    }
    const int status = response->status;
    ci.http_status = status;
    if (status >= 200 && status < 300) {
      Result<ChatResponse> parsed = Status::Internal("unset");
      if (!streaming) {
        parsed = ParseChatCompletion(response->body);
      } else if (json_body) {
        parsed = ParseChatCompletion(raw);
        if (parsed.ok() && !parsed->content.empty() && !(*on_delta)(parsed->content)) {
          return Status::Cancelled("chat stream: stopped by the caller");
        }
      } else {
        sse.Finish(&events);
        if (!handle_events()) {
          if (user_stop) return Status::Cancelled("chat stream: stopped by the caller");
          return stream_error.WithContext(where);
        }
        parsed = acc.Finish();
      }
      if (!parsed.ok()) return parsed.status().WithContext(where);
      if (parsed->model.empty()) parsed->model = options_.model;
      MutexLock lock(mu_);
      stats_.prompt_tokens += parsed->prompt_tokens;
      stats_.completion_tokens += parsed->completion_tokens;
      return parsed;
    }
    if (!IsRetryableHttpStatus(status) || last) {
      return Status(CodeForHttpStatus(status), where + ": HTTP " + std::to_string(status) +
                                                   (IsRetryableHttpStatus(status) ? tries : "") + ": " +
                                                   ExtractApiErrorMessage(response->body));
    }
    std::chrono::milliseconds delay = backoff_.Delay(attempt);
    if (auto server_ms = ServerRetryDelayMs(*response)) {
      delay = std::chrono::milliseconds(std::min(*server_ms, options_.retry_after_max_ms));
    }
    backoff_.Sleep(delay);
  }
}

}  // namespace attest
