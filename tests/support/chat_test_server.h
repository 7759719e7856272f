// ChatTestServer: adds a scripted POST /v1/chat/completions route to an OpenAiTestServer (whose
// embeddings route, fault queue and request recording stay as they are).
//
// - Replies are scripted with PushReply() (FIFO); with none queued the answer is "OK." The same
//   ChatReply serves a plain request (one chat.completion JSON body) or a streaming one
//   ("stream": true: server-sent events generated from the content: a role chunk, content pieces of
//   `piece_bytes`, a finish chunk, a usage chunk when stream_options.include_usage, "[DONE]").
// - The SSE body can be cut into network writes of `split_every` bytes (awkward places: inside
//   "data:", inside a JSON string, between "\r" and "\n") with `piece_delay_ms` between writes.
// - raw_body answers a verbatim 200 body (malformed JSON, a non-draft...), in either mode.
// - set_reject_response_format(true): every request carrying "response_format" gets HTTP 400 (an
//   OpenAI error body) without consuming a reply, like servers without structured outputs.
// - Generic faults (status, delay, Retry-After, malformed JSON) come from OpenAiTestServer::PushFault.
// - The request is validated (JSON object, model, non-empty messages with role and string content);
//   a bad request gets 400.
//
// Thread-safety: all public methods may be called from any thread while the server runs.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "support/openai_test_server.h"

namespace attest::testing_support {

struct ChatReply {
  std::string content = "OK.";
  std::string refusal{};              // non-empty: message.refusal / delta.refusal
  std::string finish_reason = "stop";
  uint64_t prompt_tokens = 11;
  uint64_t completion_tokens = 7;
  std::string raw_body{};             // non-empty: answer this body verbatim (status 200)
  // Streaming only:
  size_t piece_bytes = 3;             // content bytes per delta chunk
  size_t split_every = 0;             // > 0: write the SSE body in pieces of this many bytes
  int piece_delay_ms = 0;             // sleep between written pieces
  bool crlf = false;                  // "\r\n" line endings
  bool keepalive_comments = true;     // ": keep-alive" comment lines between events
  bool truncate = false;              // stop before the finish chunk and [DONE]
  std::string error_event{};          // non-empty: send `data: {"error": {"message": ...}}` after one piece
};

class ChatTestServer {
 public:
  explicit ChatTestServer(OpenAiTestServerOptions options = {});

  OpenAiTestServer& server() { return server_; }
  std::string base_url() const { return server_.base_url(); }

  void PushReply(const ChatReply& reply, int times = 1);
  void set_reject_response_format(bool on);
  // Recorded chat requests only (parsed JSON bodies), oldest first.
  std::vector<nlohmann::json> chat_requests() const;

  // The SSE body generated for `reply` (exposed so tests can split it themselves).
  static std::string SseBody(const ChatReply& reply, const std::string& model, bool include_usage);
  static std::string CompletionBody(const ChatReply& reply, const std::string& model);

 private:
  void Handle(const httplib::Request& req, httplib::Response& res);

  OpenAiTestServer server_;
  mutable std::mutex mu_;
  std::deque<ChatReply> replies_;  // guarded by mu_
  bool reject_response_format_ = false;  // guarded by mu_
};

}  // namespace attest::testing_support
