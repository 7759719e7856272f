// The tools' structured results and text blocks, reshaped from the service's JSON bodies
// (mcp/mcp_tools.h). Nothing is recomputed: the answer text, verdicts, quotes and sources are the
// ones the answer pipeline produced and the service authorized.
#include <map>
#include <set>

#include "mcp/mcp_tools.h"

namespace attest::mcp {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& Arr(const json& j, const char* key) {
  static const json empty = json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

// "S12" -> 12; 0 when the id is not of that form.
int SourceNumber(const std::string& id) {
  if (id.size() < 2 || id[0] != 'S' || id.size() > 8) return 0;
  int n = 0;
  for (size_t i = 1; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return 0;
    n = n * 10 + (id[i] - '0');
  }
  return n;
}

}  // namespace

json ToolError(std::string message) {
  return json{{"content", json::array({{{"type", "text"}, {"text", std::move(message)}}})}, {"isError", true}};
}

json AskStructured(const json& body) {
  const std::string outcome = Str(body, "outcome");
  std::map<std::string, std::string> doc_of;  // source id -> doc id
  for (const json& s : Arr(body, "sources")) doc_of[Str(s, "id")] = Str(s, "doc_id");

  json claims = json::array();
  std::set<std::string> cited;
  // A fallback withholds the answer: the claims drafted for it (and their sources) are not shown,
  // whatever their verdicts; the result list is what the caller gets instead.
  const bool withheld = outcome == "fallback";
  for (const json& c : withheld ? json::array() : Arr(body, "claims")) {
    if (c.contains("kept") && c["kept"].is_boolean() && !c["kept"].get<bool>()) continue;  // withdrawn by the verifier
    json citations = json::array();
    for (const json& x : Arr(c, "cites")) {
      const std::string source = Str(x, "source");
      cited.insert(source);
      citations.push_back({{"source", source}, {"doc_id", doc_of.count(source) ? doc_of[source] : ""},
                           {"quote", Str(x, "quote")}});
    }
    claims.push_back({{"id", Str(c, "id")}, {"text", Str(c, "text")}, {"verdict", Str(c, "verdict")},
                      {"citations", std::move(citations)}});
  }
  json sources = json::array();
  for (const json& s : withheld ? json::array() : Arr(body, "sources")) {
    const std::string id = Str(s, "id");
    const bool flagged_cited = s.contains("cited") && s["cited"].is_boolean() && s["cited"].get<bool>();
    if (!flagged_cited && !cited.count(id)) continue;  // shown to the writer, cited by nothing kept
    sources.push_back({{"id", id}, {"n", SourceNumber(id)}, {"doc_id", Str(s, "doc_id")}, {"title", Str(s, "title")},
                       {"url", Str(s, "url")}, {"date", Str(s, "date")}, {"fetched_at", Str(s, "fetched_at")}});
  }
  json out = {{"outcome", outcome},
              {"answer", outcome == "fallback" ? std::string() : Str(body, "answer")},
              {"claims", std::move(claims)},
              {"sources", std::move(sources)},
              {"as_of", Str(body, "as_of")}};
  if (outcome == "fallback") {
    out["fallback_reason"] = Str(body, "fallback_reason");
    json results = json::array();
    for (const json& h : Arr(body, "results")) {
      results.push_back({{"doc_id", Str(h, "doc_id")}, {"title", Str(h, "title")}, {"url", Str(h, "url")},
                         {"snippet", Str(h, "snippet")}});
    }
    out["results"] = std::move(results);
  }
  return out;
}

std::string AskText(const json& s) {
  std::string text;
  if (Str(s, "outcome") == "fallback") {
    text = "No verified answer (" + Str(s, "fallback_reason") + "). ";
    const json& results = Arr(s, "results");
    if (results.empty()) {
      text += "Nothing the caller may read matched.";
    } else {
      text += "The closest documents:";
      int i = 0;
      for (const json& r : results) {
        text += "\n" + std::to_string(++i) + ". " + (Str(r, "title").empty() ? Str(r, "doc_id") : Str(r, "title"));
        if (!Str(r, "url").empty()) text += " — " + Str(r, "url");
        if (!Str(r, "snippet").empty()) text += "\n   " + Str(r, "snippet");
      }
    }
  } else {
    text = Str(s, "answer");
    const json& sources = Arr(s, "sources");
    if (!sources.empty()) {
      text += "\n\nSources:";
      for (const json& src : sources) {
        text += "\n[" + std::to_string(src.value("n", 0)) + "] " +
                (Str(src, "title").empty() ? Str(src, "doc_id") : Str(src, "title"));
        if (!Str(src, "url").empty()) text += " — " + Str(src, "url");
        if (!Str(src, "date").empty()) text += " (" + Str(src, "date") + ")";
      }
    }
  }
  if (!Str(s, "as_of").empty()) text += "\n\nAs of " + Str(s, "as_of") + ".";
  return text;
}

json SearchStructured(const json& body) {
  json hits = json::array();
  for (const json& h : Arr(body, "hits")) {
    json score = h.contains("score") && h["score"].is_number() ? h["score"] : json(0.0);
    json chunk = h.contains("chunk_id") && h["chunk_id"].is_number_integer() ? h["chunk_id"] : json(0);
    hits.push_back({{"doc_id", Str(h, "doc_id")}, {"chunk_id", chunk}, {"title", Str(h, "title")},
                    {"url", Str(h, "url")}, {"date", Str(h, "date")}, {"snippet", Str(h, "snippet")},
                    {"score", score}});
  }
  return json{{"hits", std::move(hits)}};
}

std::string SearchText(const json& s) {
  const json& hits = Arr(s, "hits");
  if (hits.empty()) return "No passages matched.";
  std::string text;
  int i = 0;
  for (const json& h : hits) {
    if (i) text += "\n\n";
    text += std::to_string(++i) + ". " + (Str(h, "title").empty() ? Str(h, "doc_id") : Str(h, "title"));
    if (!Str(h, "url").empty()) text += " — " + Str(h, "url");
    if (!Str(h, "date").empty()) text += " (" + Str(h, "date") + ")";
    text += "\n   doc " + Str(h, "doc_id") + ", chunk " + h["chunk_id"].dump() + "\n   " + Str(h, "snippet");
  }
  return text;
}

}  // namespace attest::mcp
