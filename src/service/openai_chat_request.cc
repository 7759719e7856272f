// POST /v1/chat/completions: the request parser (docs/openai_api.md, "Request fields"). Every
// field OpenAI defines is either honoured, accepted and ignored (type-checked), or refused with a
// message saying why; a field OpenAI does not define is refused, as OpenAI does.
#include <algorithm>
#include <map>

#include "service/openai_chat.h"
#include "service/schema.h"

namespace attest::service {
namespace {

using nlohmann::json;

std::vector<ChatProfile> AllProfiles() {
  return {{"attest-extractive", "extractive", "builtin",
           "Extractive writer: quotes verified evidence sentences; the built-in support checks. No model call."},
          {"attest-llm", "llm", "llm",
           "LLM writer: the chat model drafts from the evidence, every sentence verified against its quote, "
           "the whole draft judged by the model; only verified sentences are sent."}};
}

std::string TypeOf(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a value";
  }
}

enum class Kind { kNumber, kInteger, kBoolean, kString, kObject, kArray, kStringOrArray };

bool IsKind(const json& v, Kind k) {
  switch (k) {
    case Kind::kNumber: return v.is_number();
    case Kind::kInteger: return v.is_number_integer();
    case Kind::kBoolean: return v.is_boolean();
    case Kind::kString: return v.is_string();
    case Kind::kObject: return v.is_object();
    case Kind::kArray: return v.is_array();
    case Kind::kStringOrArray: return v.is_string() || v.is_array();
  }
  return false;
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNumber: return "a number";
    case Kind::kInteger: return "an integer";
    case Kind::kBoolean: return "a boolean";
    case Kind::kString: return "a string";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
    case Kind::kStringOrArray: return "a string or an array";
  }
  return "a value";
}

// Standard fields that do not change a verified answer: accepted (null too) and ignored once their
// type is right. Sampling knobs have no effect on the extractive writer, and the LLM writer's
// settings belong to the server; identity comes from the credential, never from `user`.
const std::map<std::string, Kind>& IgnoredFields() {
  static const std::map<std::string, Kind> fields = {
      {"temperature", Kind::kNumber},       {"top_p", Kind::kNumber},
      {"frequency_penalty", Kind::kNumber}, {"presence_penalty", Kind::kNumber},
      {"max_tokens", Kind::kInteger},       {"max_completion_tokens", Kind::kInteger},
      {"seed", Kind::kInteger},             {"stop", Kind::kStringOrArray},
      {"user", Kind::kString},              {"metadata", Kind::kObject},
      {"store", Kind::kBoolean},            {"service_tier", Kind::kString},
      {"logit_bias", Kind::kObject},        {"parallel_tool_calls", Kind::kBoolean},
      {"prompt_cache_key", Kind::kString},  {"prompt_cache_retention", Kind::kString},
      {"safety_identifier", Kind::kString}, {"reasoning_effort", Kind::kString},
      {"verbosity", Kind::kString},         {"web_search_options", Kind::kObject},
      {"modalities", Kind::kArray},
  };
  return fields;
}

// Standard fields Attest cannot honour: refused (unless absent, null or their neutral value).
const std::map<std::string, const char*>& RefusedFields() {
  static const std::map<std::string, const char*> fields = {
      {"tools", "Attest offers no tools: answers come only from the verified answer path"},
      {"tool_choice", "Attest offers no tools (only \"none\" is accepted)"},
      {"functions", "Attest offers no functions"},
      {"function_call", "Attest offers no functions (only \"none\" is accepted)"},
      {"response_format", "answers are markdown text with sources (only {\"type\": \"text\"} is accepted)"},
      {"logprobs", "an answer is assembled from verified sentences, not sampled tokens (only false is accepted)"},
      {"top_logprobs", "an answer is assembled from verified sentences, not sampled tokens"},
      {"audio", "answers are text only"},
      {"prediction", "predicted outputs do not apply to verified answers"},
  };
  return fields;
}

// The neutral value of a refused field, which a client may send without asking for the feature.
bool Neutral(const std::string& name, const json& v) {
  if (v.is_null()) return true;
  if (name == "tools" || name == "functions") return v.is_array() && v.empty();
  if (name == "tool_choice" || name == "function_call") return v == "none";
  if (name == "response_format") return v.is_object() && v.size() == 1 && v.value("type", json()) == "text";
  if (name == "logprobs") return v == false;
  if (name == "top_logprobs") return v == 0;
  return false;
}

// At most `n` bytes of `s`, never cutting a UTF-8 sequence (error messages stay valid UTF-8).
std::string Cut(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

std::string Path(size_t i) { return "messages[" + std::to_string(i) + "]"; }

// The text of a message's content: a string, or an array of text parts (and, for an assistant,
// refusal parts) joined by newlines. null only when `allow_null`.
ApiResult<std::string> ContentText(const json& message, const std::string& path, bool assistant) {
  const std::string field = path + ".content";
  if (!message.contains("content") || message["content"].is_null()) {
    if (assistant) return std::string();
    return InvalidField(field, field + " is required");
  }
  const json& c = message["content"];
  if (c.is_string()) return c.get<std::string>();
  if (!c.is_array()) return InvalidField(field, field + " must be a string or an array of text parts, got " + TypeOf(c));
  std::string text;
  for (size_t j = 0; j < c.size(); ++j) {
    const std::string part = field + "[" + std::to_string(j) + "]";
    const json& p = c[j];
    if (!p.is_object()) return InvalidField(part, part + " must be an object, got " + TypeOf(p));
    if (!p.contains("type") || !p["type"].is_string()) return InvalidField(part + ".type", part + ".type must be a string");
    const std::string type = p["type"].get<std::string>();
    const char* key = type == "text" ? "text" : (assistant && type == "refusal") ? "refusal" : nullptr;
    if (key == nullptr) {
      return InvalidField(part + ".type", part + ".type \"" + Cut(type, 32) +
                                              "\" is not supported: Attest reads text parts only");
    }
    for (const auto& [k, v] : p.items()) {
      if (k != "type" && k != key) return InvalidField(part + "." + k, part + "." + k + " is not a field of a " + type + " part");
    }
    if (!p.contains(key) || !p[key].is_string()) {
      return InvalidField(part + "." + key, part + "." + key + " must be a string");
    }
    if (!text.empty()) text.push_back('\n');
    text += p[key].get<std::string>();
  }
  return text;
}

// One message: its shape is checked for every role; returns the text of a user message ("" for
// the others).
ApiResult<std::string> CheckMessage(const json& m, size_t i) {
  const std::string path = Path(i);
  if (!m.is_object()) return InvalidField(path, path + " must be an object, got " + TypeOf(m));
  if (!m.contains("role") || !m["role"].is_string()) return InvalidField(path + ".role", path + ".role must be a string");
  const std::string role = m["role"].get<std::string>();
  if (role == "tool" || role == "function") {
    return InvalidField(path + ".role", path + ".role \"" + role + "\" is not accepted: Attest offers no tools");
  }
  if (role != "user" && role != "system" && role != "developer" && role != "assistant") {
    return InvalidField(path + ".role", path + ".role must be one of user, system, developer, assistant; got \"" +
                                            Cut(role, 32) + "\"");
  }
  const bool assistant = role == "assistant";
  for (const auto& [k, v] : m.items()) {
    if (k == "role" || k == "content") continue;
    if (k == "name") {
      if (!v.is_string()) return InvalidField(path + ".name", path + ".name must be a string");
      continue;
    }
    if (assistant && (k == "refusal" || k == "annotations") ) continue;  // echoed back by clients; ignored
    if (assistant && (k == "tool_calls" || k == "function_call") && (v.is_null() || (v.is_array() && v.empty()))) continue;
    if (assistant && (k == "tool_calls" || k == "function_call" || k == "audio")) {
      return InvalidField(path + "." + k, path + "." + k + " is not accepted: Attest offers no tools or audio");
    }
    return InvalidField(path + "." + k, path + "." + k + " is not a field of a " + role + " message");
  }
  ApiResult<std::string> text = ContentText(m, path, assistant);
  if (!text.ok()) return text.error();
  return role == "user" ? std::move(text).value() : std::string();
}

// A user message's text under the rules of /v1/answer's query (NFC, trimmed, 1..2000 characters).
ApiResult<std::string> Question(const std::string& text, size_t i) {
  const FieldSpec& spec = AnswerRequestSchema().fields.front();  // "query"
  return ValidateString(text, spec, Path(i) + ".content", ParseLimits{});
}

}  // namespace

std::vector<ChatProfile> ChatProfiles(bool chat_model) {
  std::vector<ChatProfile> all = AllProfiles();
  if (!chat_model) all.pop_back();
  return all;
}

ApiResult<ChatRequest> ParseChatRequest(std::string_view body, const std::vector<ChatProfile>& profiles) {
  ApiResult<json> parsed = ParseJsonBody(body);
  if (!parsed.ok()) return parsed.error();
  const json& v = parsed.value();
  ChatRequest r;
  // Every key first: unknown and refused fields, the types of the ignored ones.
  for (const auto& [k, value] : v.items()) {
    if (k == "model" || k == "messages" || k == "stream" || k == "stream_options" || k == "n") continue;
    if (auto it = IgnoredFields().find(k); it != IgnoredFields().end()) {
      if (!value.is_null() && !IsKind(value, it->second)) {
        return InvalidField(k, k + " must be " + KindName(it->second) + ", got " + TypeOf(value));
      }
      if (k == "modalities") {
        for (const json& m : value) {
          if (m != "text") return InvalidField(k, "modalities: answers are text only (only \"text\" is accepted)");
        }
      }
      continue;
    }
    if (auto it = RefusedFields().find(k); it != RefusedFields().end()) {
      if (!Neutral(k, value)) return InvalidField(k, k + " is not supported: " + it->second);
      continue;
    }
    return InvalidField(k, "unrecognized request argument: " + Cut(k, 64));
  }
  if (!v.contains("model") || !v["model"].is_string()) {
    return InvalidField("model", v.contains("model") ? "model must be a string, got " + TypeOf(v["model"])
                                                     : "model is required (GET /v1/models lists them)");
  }
  const std::string model = v["model"].get<std::string>();
  auto profile = std::find_if(profiles.begin(), profiles.end(), [&](const ChatProfile& p) { return p.id == model; });
  if (profile == profiles.end()) {
    std::string names;
    for (const ChatProfile& p : profiles) names += (names.empty() ? "" : ", ") + p.id;
    return ApiError{ApiErrorCode::kNotFound,
                    "The model '" + Cut(model, 64) + "' does not exist on this server; available: " + names,
                    "model"};
  }
  r.profile = *profile;
  r.answer.writer = profile->writer;
  r.answer.judge = profile->judge;

  if (v.contains("stream") && !v["stream"].is_null()) {
    if (!v["stream"].is_boolean()) return InvalidField("stream", "stream must be a boolean, got " + TypeOf(v["stream"]));
    r.stream = v["stream"].get<bool>();
  }
  if (v.contains("stream_options") && !v["stream_options"].is_null()) {
    const json& so = v["stream_options"];
    if (!so.is_object()) return InvalidField("stream_options", "stream_options must be an object, got " + TypeOf(so));
    if (!r.stream) return InvalidField("stream_options", "stream_options is only allowed with stream: true");
    for (const auto& [k, value] : so.items()) {
      const std::string path = "stream_options." + k;
      if (k != "include_usage" && k != "include_obfuscation") {
        return InvalidField(path, path + " is not a field of stream_options");
      }
      if (!value.is_null() && !value.is_boolean()) return InvalidField(path, path + " must be a boolean");
      if (k == "include_usage") r.include_usage = value.is_boolean() && value.get<bool>();
    }
  }
  if (v.contains("n") && !v["n"].is_null()) {
    if (!v["n"].is_number_integer() || v["n"] != 1) {
      return InvalidField("n", "n must be 1: an answer has one verified text, not alternative samples");
    }
  }

  if (!v.contains("messages") || !v["messages"].is_array()) {
    return InvalidField("messages", v.contains("messages") ? "messages must be an array, got " + TypeOf(v["messages"])
                                                           : "messages is required");
  }
  const json& messages = v["messages"];
  if (messages.empty()) return InvalidField("messages", "messages must hold at least one user message");
  if (messages.size() > kMaxChatMessages) {
    return InvalidField("messages", "messages holds " + std::to_string(messages.size()) + " messages; the limit is " +
                                        std::to_string(kMaxChatMessages));
  }
  std::vector<std::pair<size_t, std::string>> user_texts;
  for (size_t i = 0; i < messages.size(); ++i) {
    ApiResult<std::string> text = CheckMessage(messages[i], i);
    if (!text.ok()) return text.error();
    if (messages[i]["role"] == "user") user_texts.emplace_back(i, std::move(text).value());
  }
  const size_t last = messages.size() - 1;
  if (messages[last]["role"] != "user") {
    return InvalidField(Path(last) + ".role", "the last message must be the user's question; " + Path(last) +
                                                  ".role is \"" + messages[last]["role"].get<std::string>() + "\"");
  }
  for (size_t u = 0; u < user_texts.size(); ++u) {
    ApiResult<std::string> q = Question(user_texts[u].second, user_texts[u].first);
    if (!q.ok()) return q.error();
    if (u + 1 == user_texts.size()) {
      r.answer.query = std::move(q).value();
    } else {
      r.answer.earlier_questions.push_back(std::move(q).value());
    }
  }
  r.answer.stream = r.stream;
  return r;
}

}  // namespace attest::service
