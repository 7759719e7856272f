// The OpenAI-compatible routes (docs/openai_api.md): POST /v1/chat/completions and GET /v1/models,
// adapters over Service::Answer with the same authentication, rate limit and audit as the v1 routes
// and errors in OpenAI's shape. The request parser and the formats are service/openai_chat.h.
#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "server/route_call.h"
#include "server/routes.h"
#include "service/openai_chat.h"
#include "service/service_internal.h"

namespace attest::server {
namespace {

using nlohmann::json;
using service::ApiError;
using service::ApiErrorCode;
using service::ChatIds;
using service::ChatMessage;
using service::Identity;

// A streamed answer as chat.completion.chunk objects. A chunk cannot be taken back, so the
// service's events are read, not forwarded: the stream opens with the first event (the role
// chunk: the client sees the answer has started), the sink tracks which sentences were released
// and not retracted, and the text is sent once the answer is final (its body before `done`).
// Only sentences that are both kept in the final answer and released by the access boundary at
// every check are sent. The cost is latency: no text before the answer is complete
// (docs/openai_api.md, "Streaming").
class ChatSink final : public service::EventSink {
 public:
  ChatSink(Call& call, ChatIds ids, bool include_usage)
      : call_(call), ids_(std::move(ids)), include_usage_(include_usage) {}

  bool Emit(std::string_view event, const std::string& data) override {
    if (!Open()) return false;
    if (event == "sentence_done" || event == "retract" || event == "notice") {
      const json d = json::parse(data, nullptr, false);
      const std::string id = d.is_object() ? d.value("sentence_id", "") : "";
      if (event == "sentence_done") shown_.insert(id);
      if (event == "retract") shown_.erase(id);
      if (event == "notice" && d.is_object()) notice_ = {d.value("code", ""), d.value("message", "")};
    } else if (event == "done") {
      done_ = true;
    }
    return !stream_->Closed();
  }
  bool Closed() const override { return stream_ ? stream_->Closed() : call_.ex->ClientGone(); }
  void Answered(const json& body) override { body_ = body; }

  bool started() const { return stream_ != nullptr; }

  // The answer's text, its sources, the finish chunk, the usage chunk when asked, then [DONE]; or,
  // when the service ended the stream before its answer (access revoked), an error object.
  void Finish() {
    if (!stream_) return;
    if (!done_ || !body_.is_object()) {
      const bool revoked = notice_.first == "access_revoked";
      Error(ApiError{revoked ? ApiErrorCode::kForbidden : ApiErrorCode::kInternal,
                     notice_.second.empty() ? "the answer stream ended before the answer was complete" : notice_.second,
                     ""});
      return;
    }
    const ChatMessage m = service::ChatMessageFromAnswer(body_, &shown_);
    const json citations = service::ChatCitationsJson(m);
    const json results = service::ChatSearchResultsJson(m);
    for (const std::string& piece : service::ChatContentPieces(m.content)) {
      json chunk = service::ChatChunkJson(ids_, {{"content", piece}}, nullptr);
      chunk["citations"] = citations;
      chunk["search_results"] = results;
      Send(std::move(chunk));
    }
    json last = service::ChatChunkJson(ids_, {{"annotations", service::ChatAnnotationsJson(m)}}, "stop");
    last["citations"] = citations;
    last["search_results"] = results;
    Send(std::move(last));
    if (include_usage_) stream_->Send("", service::ChatUsageChunkJson(ids_, m).dump());
    stream_->Send("", "[DONE]");
    stream_->Finish();
  }

  // An error after the stream started: OpenAI's error object as one data line, and the stream
  // ends without [DONE] (clients raise it; a client that ignores it sees an unfinished stream).
  void Error(const ApiError& e) {
    if (!stream_) return;
    stream_->Send("", service::ChatErrorJson(e, HttpStatusOf(e.code)).dump(-1, ' ', false,
                                                                           json::error_handler_t::replace));
    stream_->Finish();
  }

 private:
  bool Open() {
    if (stream_) return true;
    if (call_.ex->ClientGone()) return false;
    stream_ = call_.ex->StartStream(call_.Headers());
    Send(service::ChatChunkJson(ids_, {{"role", "assistant"}, {"content", ""}}, nullptr));
    return true;
  }
  void Send(json chunk) {
    if (include_usage_) chunk["usage"] = nullptr;  // every chunk but the usage chunk (OpenAI's rule)
    if (!stream_->Send("", chunk.dump(-1, ' ', false, json::error_handler_t::replace)) &&
        stream_->CloseReason() == "slow_client" && !counted_) {
      counted_ = true;
      call_.ctx->metrics->GetCounter("attest_slow_clients_dropped_total",
                                     "Streams dropped because the client read too slowly")->Add();
    }
  }

  Call& call_;
  ChatIds ids_;
  bool include_usage_;
  std::shared_ptr<http::Stream> stream_;
  std::set<std::string> shown_;
  std::pair<std::string, std::string> notice_;
  json body_;
  bool done_ = false;
  bool counted_ = false;
};

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

template <class Fn>
http::Handler OpenAiApi(RouteContext* ctx, const char* route, Fn fn) {
  return [ctx, route, fn](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), route, ErrorShape::kOpenAi);
    std::optional<Identity> who = Admit(c);
    if (!who) return;
    fn(c, *who);
  };
}

void ChatCompletions(Call& c, const Identity& who) {
  const std::vector<service::ChatProfile> profiles = service::ChatProfiles(c.ctx->chat_model);
  auto req = service::ParseChatRequest(c.ex->request().body, profiles);
  if (!req.ok()) return c.Fail(req.error());
  const ChatIds ids{service::internal::RandomId("chatcmpl-"), NowSeconds(), req.value().profile.id};
  if (!req.value().stream) {
    auto body = c.ctx->service->Answer(who, req.value().answer, c.rc, nullptr);
    if (!body.ok()) return c.Fail(body.error());
    const json answer = json::parse(body.value(), nullptr, false);
    if (!answer.is_object()) return c.Fail(ApiError{ApiErrorCode::kInternal, "the answer could not be read", ""});
    c.Reply(service::ChatCompletionJson(ids, service::ChatMessageFromAnswer(answer, nullptr)));
    return;
  }
  ChatSink sink(c, ids, req.value().include_usage);
  auto r = c.ctx->service->Answer(who, req.value().answer, c.rc, &sink);
  if (!r.ok()) {
    if (!sink.started()) return c.Fail(r.error());
    return sink.Error(r.error());
  }
  if (!sink.started()) {
    // Nothing was emitted (the client left before the first event): end the exchange.
    return c.Fail(ApiError{ApiErrorCode::kCancelled, "the client went away", ""});
  }
  sink.Finish();
}

}  // namespace

void AddOpenAiRoutes(RouteContext* ctx, http::Router* router) {
  using P = http::Pool;
  router->Add("POST", "/v1/chat/completions", P::kAnswer, OpenAiApi(ctx, "/v1/chat/completions", ChatCompletions));
  const int64_t created = NowSeconds();  // `created` of the profiles: they exist since the server started
  router->Add("GET", "/v1/models", P::kInteractive, OpenAiApi(ctx, "/v1/models", [created](Call& c, const Identity&) {
                if (!c.ex->request().query.empty()) {
                  const std::string name = c.ex->request().query.begin()->first;
                  return c.Fail(ApiError{ApiErrorCode::kInvalidRequest, "unknown query parameter '" + name + "'", name});
                }
                c.Reply(service::ChatModelsJson(service::ChatProfiles(c.ctx->chat_model), created));
              }));
}

}  // namespace attest::server
