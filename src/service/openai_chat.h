// The OpenAI chat-completions face of the answer path (docs/openai_api.md): the request parser and
// the response formats of POST /v1/chat/completions and GET /v1/models. No HTTP here; the adapter
// (server/openai_routes.cc) calls Service::Answer with the AnswerRequest a chat request becomes and
// formats the answer body with these functions.
//
// - A model id names a profile (writer and judge): `attest-extractive` always, `attest-llm` when the
//   server has a chat model.
// - The last message must be the user's: its text is the question. Earlier user messages are the
//   conversation the follow-up is planned from. System, developer and assistant messages are read
//   for their shape only: they never become evidence or instructions.
// - The content is the verified sentences with [n] markers, then a "Sources" list; the same
//   sources are in `citations` (URLs), `search_results` ({title, url, date}) and the message's
//   `annotations` (url_citation spans over each marker, in Unicode code points, end exclusive).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/api_error.h"
#include "service/contracts.h"

namespace attest::service {

// A model id and what it runs.
struct ChatProfile {
  std::string id;
  std::string writer;  // extractive | llm
  std::string judge;   // builtin | llm
  std::string description;
};

// The profiles a server offers: attest-extractive, and attest-llm when `chat_model` is set.
std::vector<ChatProfile> ChatProfiles(bool chat_model);

// A validated chat request.
struct ChatRequest {
  ChatProfile profile;
  AnswerRequest answer;          // query (the last user message), writer, judge, earlier_questions
  bool stream = false;
  bool include_usage = false;    // stream_options.include_usage: a usage chunk before [DONE]
};

inline constexpr size_t kMaxChatMessages = 256;

// Parses and validates the body against `profiles`. An unknown model is not_found on field
// "model" (answered as OpenAI's model_not_found); every other error is invalid_request naming the
// field (e.g. "messages[2].content").
ApiResult<ChatRequest> ParseChatRequest(std::string_view body, const std::vector<ChatProfile>& profiles);

// One cited source of a chat answer (one per document, numbered by first citation).
struct ChatSource {
  std::string title;
  std::string url;   // the document's URL, else attest://documents/<doc_id>
  std::string date;  // YYYY-MM-DD or ""
  bool linked = false;  // the document has a URL of its own (the Sources line links it)
};

// A span of the content pointing at a source (url_citation).
struct ChatAnnotation {
  size_t source = 0;   // index into ChatMessage::sources
  size_t start = 0;    // code points, inclusive
  size_t end = 0;      // code points, exclusive
};

struct ChatMessage {
  std::string content;
  std::vector<ChatSource> sources;
  std::vector<ChatAnnotation> annotations;
  bool answered = false;        // verified sentences (or a calculation/greeting); false: the result list
  uint64_t prompt_tokens = 0;   // of model calls (0 for the extractive writer)
  uint64_t completion_tokens = 0;
};

// The chat message of an answer body (the /v1/answer JSON). `shown` null: every kept claim is
// shown; else only the kept claims whose id is in it (what a stream released and did not retract).
// When no sentence is shown the content says so plainly and lists the results instead.
ChatMessage ChatMessageFromAnswer(const nlohmann::json& answer, const std::set<std::string>* shown);

// The fields every object of one completion shares.
struct ChatIds {
  std::string id;       // "chatcmpl-…"
  int64_t created = 0;  // Unix seconds
  std::string model;
};

nlohmann::json ChatUsageJson(const ChatMessage& m);
nlohmann::json ChatAnnotationsJson(const ChatMessage& m);
// `citations` (URLs) and `search_results` ([{title, url, date}]) in source order.
nlohmann::json ChatCitationsJson(const ChatMessage& m);
nlohmann::json ChatSearchResultsJson(const ChatMessage& m);
// The `chat.completion` object.
std::string ChatCompletionJson(const ChatIds& ids, const ChatMessage& m);
// One `chat.completion.chunk` with one choice (`delta`, `finish_reason` null or "stop"), or with no
// choice and `usage` (the usage chunk).
nlohmann::json ChatChunkJson(const ChatIds& ids, nlohmann::json delta, const char* finish_reason);
nlohmann::json ChatUsageChunkJson(const ChatIds& ids, const ChatMessage& m);
// The content cut into stream pieces at sentence and line ends (each piece ends after a marker
// run or a newline, so a marker is never split).
std::vector<std::string> ChatContentPieces(const std::string& content);

// GET /v1/models: {"object":"list","data":[{"id","object":"model","created","owned_by"}]}.
std::string ChatModelsJson(const std::vector<ChatProfile>& profiles, int64_t created);

// An error in OpenAI's shape {"error":{"message","type","param","code"}}: type from the HTTP
// status (invalid_request_error, authentication_error, permission_error, not_found_error,
// rate_limit_error, server_error), code the Attest code name (model_not_found for an unknown
// model), param the field or null.
nlohmann::json ChatErrorJson(const ApiError& error, int http_status);

// Unicode code points in `s` (valid UTF-8).
size_t CodePointCount(std::string_view s);

}  // namespace attest::service
