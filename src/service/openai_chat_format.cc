// The chat face's response formats (docs/openai_api.md, "Responses"): the message content with its
// [n] markers and Sources list, the structured sources, chunks, the models list and errors.
#include <algorithm>
#include <cctype>
#include <map>

#include "service/openai_chat.h"

namespace attest::service {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Link text: brackets and backslashes escaped, line breaks folded, so a title never ends the link.
std::string LinkText(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') {
      out.push_back(' ');
      continue;
    }
    if (c == '[' || c == ']' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// A link target: the characters that would end or break a markdown destination, percent-encoded.
std::string LinkTarget(const std::string& url) {
  std::string out;
  for (char c : url) {
    switch (c) {
      case ' ': out += "%20"; break;
      case '(': out += "%28"; break;
      case ')': out += "%29"; break;
      case '<': out += "%3C"; break;
      case '>': out += "%3E"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string DocumentUri(const std::string& doc_id) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "attest://documents/";
  for (unsigned char c : doc_id) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

ChatSource SourceOf(const json& s) {
  ChatSource out;
  out.title = Str(s, "title");
  if (out.title.empty()) out.title = Str(s, "doc_id");
  out.date = Str(s, "date");
  const std::string url = Str(s, "url");
  out.linked = !url.empty();
  out.url = out.linked ? url : DocumentUri(Str(s, "doc_id"));
  return out;
}

// Builds the content, numbering sources per document in order of first use.
class ContentBuilder {
 public:
  explicit ContentBuilder(ChatMessage* m) : m_(m) {}

  size_t Number(const json& source) {
    const std::string key = Str(source, "doc_id");
    auto it = number_.find(key);
    if (it != number_.end()) return it->second;
    m_->sources.push_back(SourceOf(source));
    number_[key] = m_->sources.size();
    return m_->sources.size();
  }
  void Text(const std::string& s) {
    m_->content += s;
    points_ += CodePointCount(s);
  }
  // "[n]", with its annotation.
  void Marker(size_t n) {
    const std::string marker = "[" + std::to_string(n) + "]";
    m_->annotations.push_back({n - 1, points_, points_ + marker.size()});
    Text(marker);
  }
  // "- [n] [title](url) — date" lines (a plain title when the document has no URL of its own).
  void SourceLines() {
    for (size_t i = 0; i < m_->sources.size(); ++i) {
      const ChatSource& s = m_->sources[i];
      Text("\n- ");
      Marker(i + 1);
      Text(" ");
      Text(s.linked ? "[" + LinkText(s.title) + "](" + LinkTarget(s.url) + ")" : LinkText(s.title));
      if (!s.date.empty()) Text(" \u2014 " + s.date);
    }
  }

 private:
  ChatMessage* m_;
  std::map<std::string, size_t> number_;
  size_t points_ = 0;
};

bool Shown(const json& claim, const std::set<std::string>* shown) {
  if (!claim.value("kept", false)) return false;
  return shown == nullptr || shown->count(Str(claim, "id")) > 0;
}

}  // namespace

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

ChatMessage ChatMessageFromAnswer(const json& answer, const std::set<std::string>* shown) {
  ChatMessage m;
  if (const auto t = answer.find("tokens"); t != answer.end() && t->is_object()) {
    m.prompt_tokens = t->value("prompt", uint64_t{0});
    m.completion_tokens = t->value("completion", uint64_t{0});
  }
  const std::string outcome = Str(answer, "outcome");
  if (outcome == "calculation" || outcome == "greeting") {  // computed from the question: no sources
    m.content = Str(answer, "answer");
    m.answered = !m.content.empty();
    if (m.answered) return m;
  }
  std::map<std::string, const json*> by_id;
  if (const auto s = answer.find("sources"); s != answer.end() && s->is_array()) {
    for (const json& src : *s) by_id[Str(src, "id")] = &src;
  }
  ContentBuilder b(&m);
  if (const auto claims = answer.find("claims"); claims != answer.end() && claims->is_array()) {
    for (const json& c : *claims) {
      if (!Shown(c, shown)) continue;
      std::vector<size_t> numbers;
      for (const json& cite : c.value("cites", json::array())) {
        auto it = by_id.find(Str(cite, "source"));
        if (it == by_id.end()) continue;  // a source withdrawn at render time
        const size_t n = b.Number(*it->second);
        if (std::find(numbers.begin(), numbers.end(), n) == numbers.end()) numbers.push_back(n);
      }
      if (numbers.empty()) continue;  // never a sentence without its source
      const std::string label = Str(c, "version_label");
      b.Text(std::string(m.content.empty() ? "" : " ") + (label.empty() ? "" : "(version " + label + ") ") +
             Str(c, "text"));
      for (size_t n : numbers) {
        b.Text(" ");
        b.Marker(n);
      }
    }
  }
  if (!m.content.empty()) {
    m.answered = true;
    b.Text("\n\n**Sources**\n");
    b.SourceLines();
    return m;
  }
  // No verified sentence to show: say so, and list the results instead of guessing.
  m = ChatMessage{{}, {}, {}, false, m.prompt_tokens, m.completion_tokens};
  ContentBuilder f(&m);
  std::string reason = Str(answer, "fallback_reason");
  if (reason.empty()) reason = outcome == "answer" ? "sentences_withdrawn" : "no_verified_answer";
  f.Text("Attest found no verified answer to this question in the documents you can read (" + reason + ").");
  if (const auto results = answer.find("results"); results != answer.end() && results->is_array()) {
    for (const json& h : *results) f.Number(h);
  }
  if (m.sources.empty()) {
    f.Text(" No document matched.");
    return m;
  }
  f.Text(" These results may help:\n");
  f.SourceLines();
  return m;
}

json ChatUsageJson(const ChatMessage& m) {
  return {{"prompt_tokens", m.prompt_tokens},
          {"completion_tokens", m.completion_tokens},
          {"total_tokens", m.prompt_tokens + m.completion_tokens}};
}

json ChatAnnotationsJson(const ChatMessage& m) {
  json out = json::array();
  for (const ChatAnnotation& a : m.annotations) {
    const ChatSource& s = m.sources.at(a.source);
    out.push_back({{"type", "url_citation"},
                   {"url_citation", {{"start_index", a.start}, {"end_index", a.end}, {"title", s.title}, {"url", s.url}}}});
  }
  return out;
}

json ChatCitationsJson(const ChatMessage& m) {
  json out = json::array();
  for (const ChatSource& s : m.sources) out.push_back(s.url);
  return out;
}

json ChatSearchResultsJson(const ChatMessage& m) {
  json out = json::array();
  for (const ChatSource& s : m.sources) out.push_back({{"title", s.title}, {"url", s.url}, {"date", s.date}});
  return out;
}

std::string ChatCompletionJson(const ChatIds& ids, const ChatMessage& m) {
  json message = {{"role", "assistant"}, {"content", m.content}, {"refusal", nullptr},
                  {"annotations", ChatAnnotationsJson(m)}};
  json j = {{"id", ids.id},
            {"object", "chat.completion"},
            {"created", ids.created},
            {"model", ids.model},
            {"choices", json::array({{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", "stop"}}})},
            {"usage", ChatUsageJson(m)},
            {"citations", ChatCitationsJson(m)},
            {"search_results", ChatSearchResultsJson(m)}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json ChatChunkJson(const ChatIds& ids, json delta, const char* finish_reason) {
  json choice = {{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr},
                 {"finish_reason", finish_reason ? json(finish_reason) : json(nullptr)}};
  return {{"id", ids.id}, {"object", "chat.completion.chunk"}, {"created", ids.created}, {"model", ids.model},
          {"choices", json::array({std::move(choice)})}};
}

json ChatUsageChunkJson(const ChatIds& ids, const ChatMessage& m) {
  return {{"id", ids.id}, {"object", "chat.completion.chunk"}, {"created", ids.created}, {"model", ids.model},
          {"choices", json::array()}, {"usage", ChatUsageJson(m)}};
}

std::vector<std::string> ChatContentPieces(const std::string& content) {
  std::vector<std::string> pieces;
  std::string cur;
  for (size_t i = 0; i < content.size(); ++i) {
    cur.push_back(content[i]);
    const bool line_end = content[i] == '\n';
    // After a marker run: "] " not followed by another marker.
    const bool after_markers = content[i] == ' ' && i > 0 && content[i - 1] == ']' &&
                               (i + 1 >= content.size() || content[i + 1] != '[');
    if (line_end || after_markers) {
      pieces.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) pieces.push_back(std::move(cur));
  return pieces;
}

std::string ChatModelsJson(const std::vector<ChatProfile>& profiles, int64_t created) {
  json data = json::array();
  for (const ChatProfile& p : profiles) {
    data.push_back({{"id", p.id}, {"object", "model"}, {"created", created}, {"owned_by", "attest"},
                    {"description", p.description}});
  }
  return json{{"object", "list"}, {"data", data}}.dump();
}

json ChatErrorJson(const ApiError& error, int http_status) {
  const char* type = "server_error";
  if (http_status == 401) {
    type = "authentication_error";
  } else if (http_status == 403) {
    type = "permission_error";
  } else if (http_status == 404) {
    type = "not_found_error";
  } else if (http_status == 429) {
    type = "rate_limit_error";
  } else if (http_status >= 400 && http_status < 500) {
    type = "invalid_request_error";
  }
  std::string code(ApiErrorCodeName(error.code));
  if (error.code == ApiErrorCode::kNotFound && error.field == "model") code = "model_not_found";
  return {{"error", {{"message", error.message},
                     {"type", type},
                     {"param", error.field.empty() ? json(nullptr) : json(error.field)},
                     {"code", code}}}};
}

}  // namespace attest::service
