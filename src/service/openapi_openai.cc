// The OpenAPI description of the OpenAI-compatible routes (docs/openai_api.md); part of
// OpenApiJson (openapi.cc). Their errors have OpenAI's body shape (OpenAiError) with the statuses of
// the one table.
#include <map>

#include "service/openapi_parts.h"

namespace attest::service::openapi {
namespace {

// The codes these routes may answer (the request, the credential, the answer path, its models).
constexpr ApiErrorCode kChatErrors[] = {
    ApiErrorCode::kInvalidJson,   ApiErrorCode::kInvalidRequest,  ApiErrorCode::kUnauthorized,
    ApiErrorCode::kForbidden,     ApiErrorCode::kNotFound,        ApiErrorCode::kRateLimited,
    ApiErrorCode::kOverloaded,    ApiErrorCode::kUnavailable,     ApiErrorCode::kAuditUnavailable,
    ApiErrorCode::kVectorLegUnavailable, ApiErrorCode::kModelUnavailable, ApiErrorCode::kUpstreamError,
    ApiErrorCode::kDeadlineExceeded, ApiErrorCode::kInternal};
constexpr ApiErrorCode kModelsErrors[] = {ApiErrorCode::kInvalidRequest, ApiErrorCode::kUnauthorized,
                                          ApiErrorCode::kRateLimited, ApiErrorCode::kInternal};

template <size_t N>
json ErrorResponses(ErrorStatusTable status_of, const ApiErrorCode (&codes)[N], json responses) {
  std::map<int, std::string> by_status;
  for (ApiErrorCode code : codes) {
    std::string& text = by_status[status_of(code)];
    std::string name(ApiErrorCodeName(code));
    if (code == ApiErrorCode::kNotFound) name = "model_not_found";
    text += (text.empty() ? "OpenAI error object; code " : ", ") + name;
  }
  for (const auto& [status, text] : by_status) {
    responses[std::to_string(status)] = {
        {"description", text + "."}, {"content", {{"application/json", {{"schema", Ref("OpenAiError")}}}}}};
  }
  return responses;
}

json Operation(const char* summary, json responses) {
  return {{"summary", summary},
          {"tags", json::array({"openai"})},
          {"parameters", json::array({{{"$ref", "#/components/parameters/RequestId"}}})},
          {"responses", std::move(responses)}};
}

}  // namespace

void AddOpenAiSchemas(json* out) {
  json& schemas = *out;
  schemas["OpenAiError"] = Object(
      {{"error", Object({{"message", Str("What was wrong, for people.")},
                         {"type", Str("invalid_request_error, authentication_error, permission_error, "
                                      "not_found_error, rate_limit_error or server_error (from the HTTP status).")},
                         {"param", {{"type", "string"}, {"nullable", true},
                                    {"description", "The offending request field, e.g. messages[2].content."}}},
                         {"code", Str("Attest's error code (docs/http_api.md), or model_not_found.")}},
                        {"message", "type", "param", "code"})}},
      {"error"});
  json part = Object({{"type", {{"type", "string"}, {"enum", {"text", "refusal"}}}},
                      {"text", Str("The text (type text).")},
                      {"refusal", Str("An assistant's refusal text (type refusal).")}},
                     {"type"});
  part["additionalProperties"] = false;
  schemas["ChatContentPart"] = part;
  json message = Object(
      {{"role", {{"type", "string"},
                 {"enum", {"user", "system", "developer", "assistant"}},
                 {"description", "The last message must be the user's: its text is the question. Earlier user "
                                 "messages are the conversation; system, developer and assistant messages are "
                                 "checked for shape and never used as evidence or instructions."}}},
       {"content", {{"oneOf", json::array({{{"type", "string"}},
                                           {{"type", "array"}, {"items", Ref("ChatContentPart")}}})},
                    {"description", "A string or text parts (an assistant's may also be null)."}}},
       {"name", Str("Ignored.")}},
      {"role"});
  schemas["ChatMessageParam"] = message;
  json request = Object(
      {{"model", Str("A profile from GET /v1/models: attest-extractive, or attest-llm with a chat model.")},
       {"messages", {{"type", "array"}, {"minItems", 1}, {"maxItems", 256}, {"items", Ref("ChatMessageParam")}}},
       {"stream", Bool("Server-sent chat.completion.chunk objects, then data: [DONE].")},
       {"stream_options", Object({{"include_usage", Bool("A last chunk with usage and no choices.")},
                                  {"include_obfuscation", Bool("Ignored.")}})},
       {"n", {{"type", "integer"}, {"enum", {1}}, {"description", "Only 1."}}}},
      {"model", "messages"});
  request["additionalProperties"] = {
      {"description", "Accepted and ignored when of the right type: temperature, top_p, frequency_penalty, "
                      "presence_penalty, max_tokens, max_completion_tokens, seed, stop, user, metadata, store, "
                      "service_tier, logit_bias, parallel_tool_calls, prompt_cache_key, prompt_cache_retention, "
                      "safety_identifier, reasoning_effort, verbosity, web_search_options, modalities ([\"text\"]). "
                      "Refused unless neutral: tools, tool_choice, functions, function_call, response_format, "
                      "logprobs, top_logprobs, audio, prediction. Any other field is refused."}};
  schemas["ChatCompletionRequest"] = request;
  schemas["UrlCitation"] = Object(
      {{"type", {{"type", "string"}, {"enum", {"url_citation"}}}},
       {"url_citation", Object({{"start_index", Int("First character of the [n] marker (Unicode code points).")},
                                {"end_index", Int("One past its last character.")},
                                {"title", Str("The source's title.")},
                                {"url", Str("Its URL, or attest://documents/{id} for a document without one.")}},
                               {"start_index", "end_index", "title", "url"})}},
      {"type", "url_citation"});
  schemas["SearchResult"] = Object({{"title", Str("Title.")}, {"url", Str("URL.")}, {"date", Str("YYYY-MM-DD or \"\".")}},
                                   {"title", "url", "date"});
  schemas["ChatUsage"] = Object({{"prompt_tokens", Int("Prompt tokens of model calls (0: extractive).")},
                                 {"completion_tokens", Int("Completion tokens of model calls.")},
                                 {"total_tokens", Int("Their sum.")}},
                                {"prompt_tokens", "completion_tokens", "total_tokens"});
  json choice = Object(
      {{"index", Int("0.")},
       {"message", Object({{"role", {{"type", "string"}, {"enum", {"assistant"}}}},
                           {"content", Str("Verified sentences with [n] markers, then a markdown Sources list; or "
                                           "a plain statement that there is no verified answer and the results.")},
                           {"refusal", {{"type", "string"}, {"nullable", true}, {"description", "Always null."}}},
                           {"annotations", ArrayOf(Ref("UrlCitation"), "One per [n] marker.")}},
                          {"role", "content"})},
       {"logprobs", {{"type", "object"}, {"nullable", true}, {"description", "Always null."}}},
       {"finish_reason", {{"type", "string"}, {"enum", {"stop"}}}}},
      {"index", "message", "finish_reason"});
  schemas["ChatCompletion"] = Object(
      {{"id", Str("chatcmpl-…")},
       {"object", {{"type", "string"}, {"enum", {"chat.completion"}}}},
       {"created", Int("Unix seconds.")},
       {"model", Str("The profile.")},
       {"choices", ArrayOf(choice, "One choice.")},
       {"usage", Ref("ChatUsage")},
       {"citations", ArrayOf(Str("URL."), "The sources' URLs; citations[n-1] is [n].")},
       {"search_results", ArrayOf(Ref("SearchResult"), "The same sources with titles and dates.")}},
      {"id", "object", "created", "model", "choices"});
  json model = Object({{"id", Str("Profile id.")},
                       {"object", {{"type", "string"}, {"enum", {"model"}}}},
                       {"created", Int("Unix seconds (server start).")},
                       {"owned_by", Str("attest.")},
                       {"description", Str("What the profile runs.")}},
                      {"id", "object", "created", "owned_by"});
  schemas["ModelList"] = Object({{"object", {{"type", "string"}, {"enum", {"list"}}}},
                                 {"data", ArrayOf(model, "The profiles this server offers.")}},
                                {"object", "data"});
}

void AddOpenAiPaths(ErrorStatusTable status_of, json* paths) {
  json chat = Operation(
      "OpenAI-compatible chat completions: a cited answer to the last user message (docs/openai_api.md).",
      ErrorResponses(status_of, kChatErrors,
                     {{"200", {{"description", "The chat.completion object, or (stream: true) the SSE stream."},
                               {"content",
                                {{"application/json", {{"schema", Ref("ChatCompletion")}}},
                                 {"text/event-stream",
                                  {{"schema", {{"type", "string"},
                                               {"description",
                                                "data: <chat.completion.chunk> lines: a role chunk, content chunks "
                                                "(sent once the answer is final), a finish chunk with "
                                                "finish_reason stop, annotations, citations and search_results, a "
                                                "usage chunk when stream_options.include_usage, then data: [DONE]. "
                                                "An error after the stream started is one data: {\"error\": …} "
                                                "line and no [DONE]."}}}}}}}}}}));
  chat["requestBody"] = {{"required", true},
                         {"content", {{"application/json", {{"schema", Ref("ChatCompletionRequest")}}}}}};
  (*paths)["/v1/chat/completions"]["post"] = chat;
  (*paths)["/v1/models"]["get"] =
      Operation("The model ids (profiles) this server offers.",
                ErrorResponses(status_of, kModelsErrors, {{"200", {{"description", "The list."},
                                                                    {"content", {{"application/json",
                                                                                  {{"schema", Ref("ModelList")}}}}}}}}));
}

}  // namespace attest::service::openapi
