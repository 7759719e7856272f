#include "service/conversation_view.h"

#include <map>
#include <set>

namespace attest::service {

using nlohmann::json;

namespace {

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

uint64_t U64(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

const json& Array(const json& j, const char* key) {
  static const json kEmpty = json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

// The answer text from the kept claims, with [n] markers by source position (as RunAnswer does).
std::string Rebuild(const json& claims, const json& sources) {
  std::map<std::string, size_t> number;
  for (size_t i = 0; i < sources.size(); ++i) number[Str(sources[i], "id")] = i + 1;
  std::string text;
  for (const json& c : claims) {
    if (!text.empty()) text.push_back(' ');
    const std::string label = Str(c, "version_label");
    text += label.empty() ? Str(c, "text") : "(version " + label + ") " + Str(c, "text");
    for (const json& cite : Array(c, "citations")) {
      auto n = number.find(Str(cite, "source"));
      if (n != number.end()) text += " [" + std::to_string(n->second) + "]";
    }
  }
  return text;
}

}  // namespace

json AnswerSummary(const json& body) {
  json claims = json::array(), sources = json::array(), results = json::array();
  for (const json& c : Array(body, "claims")) {
    json cites = json::array();
    for (const json& x : Array(c, "cites")) cites.push_back({{"source", Str(x, "source")}, {"quote", Str(x, "quote")}});
    json one = {{"id", Str(c, "id")}, {"text", Str(c, "text")}, {"kept", c.value("kept", false)}, {"cites", cites}};
    if (!Str(c, "version_label").empty()) one["version_label"] = Str(c, "version_label");
    claims.push_back(std::move(one));
  }
  for (const json& s : Array(body, "sources")) {
    sources.push_back({{"id", Str(s, "id")}, {"doc_id", Str(s, "doc_id")}, {"chunk_id", U64(s, "chunk_id")},
                       {"title", Str(s, "title")}, {"url", Str(s, "url")}, {"site", Str(s, "site")},
                       {"date", Str(s, "date")}, {"cited", s.value("cited", false)}});
  }
  for (const json& h : Array(body, "results")) {
    results.push_back({{"doc_id", Str(h, "doc_id")}, {"chunk_id", U64(h, "chunk_id")}, {"title", Str(h, "title")},
                       {"url", Str(h, "url")}});
  }
  json out = {{"outcome", Str(body, "outcome")}, {"answer", Str(body, "answer")},
              {"snapshot_version", U64(body, "snapshot_version")}, {"claims", std::move(claims)},
              {"sources", std::move(sources)}, {"results", std::move(results)}};
  if (!Str(body, "fallback_reason").empty()) out["fallback_reason"] = Str(body, "fallback_reason");
  return out;
}

std::vector<CitedChunk> ShownChunks(const json& summary) {
  std::vector<CitedChunk> out;
  for (const char* key : {"sources", "results"}) {
    for (const json& s : Array(summary, key)) out.push_back({Str(s, "doc_id"), ChunkId(U64(s, "chunk_id"))});
  }
  return out;
}

json RenderTurns(const Engine& engine, const SearchFilter& who, const std::vector<AnswerRecord>& turns) {
  std::vector<json> summaries;
  std::vector<CitedChunk> chunks;
  for (const AnswerRecord& t : turns) {
    json s = json::parse(t.summary_json, nullptr, false);
    if (!s.is_object()) s = json::object();
    for (const CitedChunk& c : ShownChunks(s)) chunks.push_back(c);
    summaries.push_back(std::move(s));
  }
  std::vector<CitationState> states(chunks.size(), CitationState::kForbidden);
  if (!chunks.empty()) {
    if (auto checked = engine.CheckCitations(who, chunks); checked.ok() && checked->size() == chunks.size()) {
      states = *checked;
    }
  }
  auto withdrawn = [](CitationState s) { return s == CitationState::kDeleted || s == CitationState::kForbidden; };

  json out = json::array();
  size_t at = 0;
  for (size_t i = 0; i < turns.size(); ++i) {
    const json& s = summaries[i];
    std::set<std::string> gone;
    json sources = json::array(), results = json::array();
    for (const json& src : Array(s, "sources")) {
      const CitationState st = states[at++];
      if (withdrawn(st)) {
        gone.insert(Str(src, "id"));
        continue;
      }
      json card = src;
      if (st == CitationState::kChanged) card["changed"] = true;
      sources.push_back(std::move(card));
    }
    for (const json& hit : Array(s, "results")) {
      if (!withdrawn(states[at++])) results.push_back(hit);
    }
    json claims = json::array();
    uint64_t withdrawn_claims = 0;
    for (const json& c : Array(s, "claims")) {
      if (!c.value("kept", false)) continue;
      bool cites_gone = false;
      json citations = json::array();
      for (const json& x : Array(c, "cites")) {
        if (gone.count(Str(x, "source"))) cites_gone = true;
        for (const json& src : sources) {
          if (Str(src, "id") == Str(x, "source")) {
            citations.push_back({{"source", Str(x, "source")}, {"doc_id", Str(src, "doc_id")},
                                 {"chunk_id", U64(src, "chunk_id")}, {"quote", Str(x, "quote")}});
          }
        }
      }
      if (cites_gone) {
        ++withdrawn_claims;
        continue;
      }
      json one = {{"id", Str(c, "id")}, {"text", Str(c, "text")}, {"citations", std::move(citations)}};
      if (!Str(c, "version_label").empty()) one["version_label"] = Str(c, "version_label");
      claims.push_back(std::move(one));
    }
    std::string outcome = Str(s, "outcome");
    std::string answer = Str(s, "answer");
    if (!gone.empty() && (outcome == "answer" || outcome == "fallback")) answer = Rebuild(claims, sources);
    json turn = {{"turn", turns[i].turn},
                 {"question", turns[i].question},
                 {"answer_id", turns[i].answer_id},
                 {"asked_ms", turns[i].created_ms},
                 {"outcome", outcome},
                 {"answer", answer},
                 {"claims", std::move(claims)},
                 {"sources", std::move(sources)},
                 {"results", std::move(results)},
                 {"withdrawn_claims", withdrawn_claims}};
    if (outcome == "answer" && withdrawn_claims > 0 && turn["claims"].empty()) {
      turn["outcome"] = "fallback";
      turn["fallback_reason"] = "sources_withdrawn";
    } else if (!Str(s, "fallback_reason").empty()) {
      turn["fallback_reason"] = Str(s, "fallback_reason");
    }
    out.push_back(std::move(turn));
  }
  return out;
}

}  // namespace attest::service
