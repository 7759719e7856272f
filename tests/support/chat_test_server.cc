#include "support/chat_test_server.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

namespace attest::testing_support {
namespace {

using nlohmann::json;

json Chunk(const std::string& model, json choices) {
  return {{"id", "chatcmpl-test"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
          {"model", model}, {"choices", std::move(choices)}};
}

}  // namespace

ChatTestServer::ChatTestServer(OpenAiTestServerOptions options) : server_(std::move(options)) {
  server_.AddRoute("POST", "/v1/chat/completions",
                   [this](const httplib::Request& req, const OpenAiFault&, httplib::Response& res) { Handle(req, res); });
}

void ChatTestServer::PushReply(const ChatReply& reply, int times) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < times; ++i) replies_.push_back(reply);
}

void ChatTestServer::set_reject_response_format(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  reject_response_format_ = on;
}

std::vector<json> ChatTestServer::chat_requests() const {
  std::vector<json> out;
  for (const RecordedRequest& r : server_.requests()) {
    if (r.path == "/v1/chat/completions") out.push_back(r.json);
  }
  return out;
}

std::string ChatTestServer::CompletionBody(const ChatReply& reply, const std::string& model) {
  json message = {{"role", "assistant"}, {"content", reply.refusal.empty() ? json(reply.content) : json(nullptr)}};
  if (!reply.refusal.empty()) message["refusal"] = reply.refusal;
  json body = {{"id", "chatcmpl-test"},
               {"object", "chat.completion"},
               {"created", 1700000000},
               {"model", model},
               {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", reply.finish_reason}}}},
               {"usage",
                {{"prompt_tokens", reply.prompt_tokens},
                 {"completion_tokens", reply.completion_tokens},
                 {"total_tokens", reply.prompt_tokens + reply.completion_tokens}}}};
  return body.dump();
}

std::string ChatTestServer::SseBody(const ChatReply& reply, const std::string& model, bool include_usage) {
  const std::string nl = reply.crlf ? "\r\n" : "\n";
  std::string out;
  auto event = [&](const json& j) { out += "data: " + j.dump() + nl + nl; };
  if (reply.keepalive_comments) out += ": keep-alive" + nl + nl;
  event(Chunk(model, {{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"finish_reason", nullptr}}}));
  const std::string& text = reply.refusal.empty() ? reply.content : reply.refusal;
  const char* field = reply.refusal.empty() ? "content" : "refusal";
  const size_t step = reply.piece_bytes == 0 ? 1 : reply.piece_bytes;
  for (size_t i = 0, n = 0; i < text.size(); i += n) {
    // Pieces end on UTF-8 code point boundaries, like a real server's tokens.
    n = std::min(step, text.size() - i);
    while (i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;
    event(Chunk(model, {{{"index", 0}, {"delta", {{field, text.substr(i, n)}}}, {"finish_reason", nullptr}}}));
    if (reply.keepalive_comments && i == 0) out += ": still thinking" + nl;
    if (!reply.error_event.empty()) {
      event({{"error", {{"message", reply.error_event}, {"type", "server_error"}}}});
      return out;
    }
  }
  if (reply.truncate) return out;
  event(Chunk(model, {{{"index", 0}, {"delta", json::object()}, {"finish_reason", reply.finish_reason}}}));
  if (include_usage) {
    json usage = Chunk(model, json::array());
    usage["usage"] = {{"prompt_tokens", reply.prompt_tokens},
                      {"completion_tokens", reply.completion_tokens},
                      {"total_tokens", reply.prompt_tokens + reply.completion_tokens}};
    event(usage);
  }
  out += "data: [DONE]" + nl + nl;
  return out;
}

void ChatTestServer::Handle(const httplib::Request& req, httplib::Response& res) {
  const json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    OpenAiTestServer::SetError(res, 400, "We could not parse the JSON body of your request.");
    return;
  }
  if (!body.contains("model") || !body["model"].is_string() || body["model"].get<std::string>().empty()) {
    OpenAiTestServer::SetError(res, 400, "you must provide a model parameter");
    return;
  }
  const json& messages = body.contains("messages") ? body["messages"] : json();
  if (!messages.is_array() || messages.empty()) {
    OpenAiTestServer::SetError(res, 400, "'messages' must be a non-empty array");
    return;
  }
  for (const json& m : messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
        !m["content"].is_string()) {
      OpenAiTestServer::SetError(res, 400, "each message needs a string role and string content");
      return;
    }
  }
  ChatReply reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (reject_response_format_ && body.contains("response_format")) {
      OpenAiTestServer::SetError(res, 400, "response_format is not supported by this server");
      return;
    }
    if (!replies_.empty()) {
      reply = replies_.front();
      replies_.pop_front();
    }
  }
  const std::string model = body["model"].get<std::string>();
  if (!reply.raw_body.empty()) {
    res.status = 200;
    res.set_content(reply.raw_body, "application/json");
    return;
  }
  const bool stream = body.contains("stream") && body["stream"] == true;
  if (!stream) {
    res.status = 200;
    res.set_content(CompletionBody(reply, model), "application/json");
    return;
  }
  const bool include_usage = body.contains("stream_options") && body["stream_options"].is_object() &&
                             body["stream_options"].value("include_usage", false);
  const auto sse = std::make_shared<std::string>(SseBody(reply, model, include_usage));
  const size_t every = reply.split_every == 0 ? sse->size() : reply.split_every;
  const int delay_ms = reply.piece_delay_ms;
  res.status = 200;
  res.set_chunked_content_provider("text/event-stream", [sse, every, delay_ms](size_t, httplib::DataSink& sink) {
    for (size_t i = 0; i < sse->size(); i += every) {
      if (i > 0 && delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      const size_t n = std::min(every, sse->size() - i);
      if (!sink.write(sse->data() + i, n)) return false;
    }
    sink.done();
    return true;
  });
}

}  // namespace attest::testing_support
