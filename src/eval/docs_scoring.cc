#include "eval/docs_scoring.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"

namespace attest {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxLineBytes = size_t{16} << 20;
constexpr int kMaxDepth = 16;
constexpr size_t kTopK = 10;         // known_item ranks within the top 10 (MRR@10)
constexpr size_t kMinOptionWords = 4;

Result<std::string> StringField(const json& obj, const char* key, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || (!required && it->is_null())) {
    if (required) return Status::InvalidArgument(std::string("missing \"") + key + "\"");
    return std::string();
  }
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string("\"") + key + "\" must be a string, got " + it->type_name());
  }
  std::string s = it->get<std::string>();
  if (required && s.empty()) return Status::InvalidArgument(std::string("\"") + key + "\" is empty");
  return s;
}

Result<std::vector<std::string>> StringList(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return Status::InvalidArgument(std::string("missing \"") + key + "\"");
  if (!it->is_array() || it->empty()) {
    return Status::InvalidArgument(std::string("\"") + key + "\" must be a non-empty array of strings");
  }
  std::vector<std::string> out;
  for (const json& v : *it) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      return Status::InvalidArgument(std::string("\"") + key + "\" must hold non-empty strings only");
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

// Number of whitespace-separated words.
size_t WordCount(std::string_view s) {
  size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

bool HasWordStartingWithDefault(std::string_view norm) {
  for (size_t pos = norm.find("default"); pos != std::string_view::npos; pos = norm.find("default", pos + 1)) {
    if (pos == 0 || !IsWordByte(static_cast<unsigned char>(norm[pos - 1]))) return true;
  }
  return false;
}

// Appends the replacement of the UTF-8 sequence at s[i] (length *len) when it is one the
// normalisation maps; returns false for any other sequence.
bool MapTypographic(std::string_view s, size_t i, size_t* len, std::string* out) {
  const auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (b(0) == 0xC2 && b(1) == 0xA0) {  // U+00A0
    *len = 2;
    out->push_back(' ');
    return true;
  }
  if (b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80) {  // U+3000
    *len = 3;
    out->push_back(' ');
    return true;
  }
  if (b(0) == 0xE2 && b(1) == 0x80) {  // U+2000..U+203F
    const unsigned char c = b(2);
    *len = 3;
    if (c >= 0x80 && c <= 0x8A) out->push_back(' ');         // U+2000..U+200A spaces
    else if (c == 0x8B) {}                                   // U+200B zero-width space: removed
    else if (c >= 0x90 && c <= 0x95) out->push_back('-');    // U+2010..U+2015 hyphens and dashes
    else if (c >= 0x98 && c <= 0x9B) out->push_back('\'');   // U+2018..U+201B single quotes
    else if (c >= 0x9C && c <= 0x9F) out->push_back('"');    // U+201C..U+201F double quotes
    else if (c == 0xA6) out->append("...");                  // U+2026 ellipsis
    else if (c == 0xAF) out->push_back(' ');                 // U+202F narrow no-break space
    else if (c == 0xB2) out->push_back('\'');                // U+2032 prime
    else if (c == 0xB3) out->push_back('"');                 // U+2033 double prime
    else return false;
    return true;
  }
  if (b(0) == 0xE2 && b(1) == 0x88 && b(2) == 0x92) {  // U+2212 minus sign
    *len = 3;
    out->push_back('-');
    return true;
  }
  return false;
}

}  // namespace

const char* DocsTaskName(DocsTask task) {
  switch (task) {
    case DocsTask::kKnownItem: return "known_item";
    case DocsTask::kDefaults: return "defaults_qa";
    case DocsTask::kOptions: return "options_qa";
  }
  return "unknown";
}

Result<DocsQuestion> ParseDocsQuestionLine(std::string_view line) {
  if (JsonNestingExceeds(line, kMaxDepth)) return Status::InvalidArgument("JSON nested too deeply");
  json obj;
  try {
    obj = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {
    return Status::InvalidArgument("invalid JSON: " + CleanJsonErrorMessage(e.what()));
  }
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object");
  DocsQuestion q;
  ATTEST_ASSIGN_OR_RETURN(q.id, StringField(obj, "id", true));
  ATTEST_ASSIGN_OR_RETURN(q.query, StringField(obj, "query", true));
  ATTEST_ASSIGN_OR_RETURN(q.relevant, StringList(obj, "relevant"));
  ATTEST_ASSIGN_OR_RETURN(q.subject, StringField(obj, "subject", false));
  if (obj.contains("kind")) {
    q.task = DocsTask::kKnownItem;
    ATTEST_ASSIGN_OR_RETURN(q.kind, StringField(obj, "kind", true));
    return q;
  }
  if (!obj.contains("entry")) {
    return Status::InvalidArgument("a row needs \"kind\" (known_item) or \"entry\" (defaults_qa, options_qa)");
  }
  ATTEST_ASSIGN_OR_RETURN(q.entry, StringField(obj, "entry", true));
  if (obj.contains("answers")) {
    q.task = DocsTask::kDefaults;
    ATTEST_ASSIGN_OR_RETURN(q.answers, StringList(obj, "answers"));
  } else {
    q.task = DocsTask::kOptions;
  }
  return q;
}

Result<std::vector<DocsQuestion>> LoadDocsQuestions(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + file.string());
  std::vector<DocsQuestion> out;
  std::set<std::string> ids;
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    const std::string where = file.string() + ":" + std::to_string(line_no);
    if (line.size() > kMaxLineBytes) return Status::ResourceExhausted(where + ": line too long");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    Result<DocsQuestion> q = ParseDocsQuestionLine(line);
    if (!q.ok()) return q.status().WithContext(where);
    if (!out.empty() && q->task != out.front().task) {
      return Status::InvalidArgument(where + ": a " + DocsTaskName(q->task) + " row in a file of " +
                                     DocsTaskName(out.front().task) + " rows (one kind per file)");
    }
    if (!ids.insert(q->id).second) return Status::InvalidArgument(where + ": duplicate id \"" + q->id + "\"");
    out.push_back(std::move(q).value());
  }
  if (in.bad()) return Status::IOError("read error in " + file.string());
  if (out.empty()) return Status::InvalidArgument(file.string() + ": no questions");
  return out;
}

std::string NormalizeDocsText(std::string_view text) {
  std::string mapped;
  mapped.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = 1;
    if (static_cast<unsigned char>(text[i]) >= 0x80 && MapTypographic(text, i, &len, &mapped)) {
      i += len;
      continue;
    }
    const char c = text[i++];
    mapped.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  std::string out;
  out.reserve(mapped.size());
  for (char c : mapped) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (space) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool ContainsWordAligned(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return false;
  for (size_t pos = haystack.find(needle); pos != std::string_view::npos; pos = haystack.find(needle, pos + 1)) {
    const size_t end = pos + needle.size();
    const bool starts = pos == 0 || !IsWordByte(static_cast<unsigned char>(haystack[pos - 1])) ||
                        !IsWordByte(static_cast<unsigned char>(needle.front()));
    const bool ends = end == haystack.size() || !IsWordByte(static_cast<unsigned char>(haystack[end])) ||
                      !IsWordByte(static_cast<unsigned char>(needle.back()));
    if (starts && ends) return true;
  }
  return false;
}

KnownItemScore ScoreKnownItem(const DocsQuestion& q, const std::vector<SearchHit>& hits) {
  KnownItemScore s;
  std::set<std::string> seen;
  for (const SearchHit& h : hits) {
    if (s.ranked.size() == kTopK) break;
    if (!seen.insert(h.doc_id).second) continue;
    s.ranked.push_back(h.doc_id);
  }
  const std::set<std::string> relevant(q.relevant.begin(), q.relevant.end());
  for (size_t i = 0; i < s.ranked.size(); ++i) {
    if (relevant.count(s.ranked[i])) {
      s.rank = i + 1;
      s.reciprocal_rank = 1.0 / static_cast<double>(s.rank);
      break;
    }
  }
  return s;
}

namespace {

CitationScore Start(const DocsQuestion& q, const std::string& doc_id, const std::string& quote, bool* relevant) {
  CitationScore c;
  c.doc_id = doc_id;
  c.quote = quote;
  *relevant = false;
  for (const auto& r : q.relevant) *relevant |= r == doc_id;
  if (doc_id.empty()) c.reason = "cites a source that is not in the answer's sources";
  else if (!*relevant) c.reason = "cites " + doc_id + ", not a relevant page";
  return c;
}

}  // namespace

CitationScore ScoreDefaultsCitation(const DocsQuestion& q, const std::string& doc_id, const std::string& quote) {
  bool relevant = false;
  CitationScore c = Start(q, doc_id, quote, &relevant);
  if (!relevant) return c;
  const std::string nq = NormalizeDocsText(quote), entry = NormalizeDocsText(q.entry);
  if (!ContainsWordAligned(entry, nq)) {
    c.reason = "quote is not inside the entry of " + q.subject;
    return c;
  }
  bool states_value = false;
  for (const auto& a : q.answers) states_value |= ContainsWordAligned(nq, NormalizeDocsText(a));
  if (!states_value) {
    c.reason = "quote (from the subject's entry) does not state the value";
    return c;
  }
  if (!HasWordStartingWithDefault(nq)) {
    c.reason = "quote states the value without the word default";
    return c;
  }
  c.correct = true;
  c.reason = "states the default from the entry of " + q.subject;
  return c;
}

CitationScore ScoreOptionsCitation(const DocsQuestion& q, const std::string& doc_id, const std::string& quote) {
  bool relevant = false;
  CitationScore c = Start(q, doc_id, quote, &relevant);
  if (!relevant) return c;
  const std::string nq = NormalizeDocsText(quote), entry = NormalizeDocsText(q.entry);
  if (!ContainsWordAligned(entry, nq)) {
    c.reason = "quote is not a run of the entry of " + q.subject;
    return c;
  }
  const size_t need = std::min(kMinOptionWords, WordCount(entry));
  if (WordCount(nq) < need) {
    c.reason = "quote has " + std::to_string(WordCount(nq)) + " word(s) of the entry, fewer than " +
               std::to_string(need);
    return c;
  }
  c.correct = true;
  c.reason = "quotes the entry of " + q.subject;
  return c;
}

Result<AnswerScore> ScoreAnswer(const DocsQuestion& q, const AnswerResult& answer) {
  if (q.task == DocsTask::kKnownItem) return Status::InvalidArgument("a known_item row is scored on search hits");
  std::map<std::string, const AnswerSource*> by_id;
  for (const AnswerSource& s : answer.sources) by_id[s.id] = &s;
  AnswerScore out;
  std::string first_reason, all_reasons, later_ok;
  for (const AnswerClaim& claim : answer.claims) {
    if (!claim.kept) continue;
    ++out.kept_claims;
    bool claim_ok = false;
    std::string claim_reason = claim.cites.empty() ? "cites nothing" : "";
    for (const AnswerCitation& cite : claim.cites) {
      auto it = by_id.find(cite.source);
      const std::string doc_id = it == by_id.end() ? std::string() : it->second->doc_id;
      CitationScore c = q.task == DocsTask::kDefaults ? ScoreDefaultsCitation(q, doc_id, cite.quote)
                                                      : ScoreOptionsCitation(q, doc_id, cite.quote);
      c.claim_id = claim.id;
      c.source = cite.source;
      if (c.correct && !claim_ok) {
        claim_ok = true;
        claim_reason = c.reason;
      } else if (claim_reason.empty()) {
        claim_reason = c.reason;
      }
      out.citations.push_back(std::move(c));
    }
    const std::string said = claim.id + ": " + claim_reason;
    if (out.kept_claims == 1) {
      first_reason = "first kept claim " + said;
      if (q.task == DocsTask::kOptions) out.correct = claim_ok;
    } else if (claim_ok && later_ok.empty()) {
      later_ok = claim.id;
    }
    all_reasons += (all_reasons.empty() ? "" : "; ") + said;
    if (claim_ok && !out.any_claim) {
      out.any_claim = true;
      if (q.task == DocsTask::kDefaults) out.reason = "kept claim " + said;
    }
  }
  if (q.task == DocsTask::kDefaults) out.correct = out.any_claim;
  if (out.kept_claims == 0) {
    out.reason = answer.outcome == AnswerOutcome::kFallback ? "no kept claim (fallback: " + answer.fallback_reason + ")"
                                                            : "no kept claim";
  } else if (q.task == DocsTask::kDefaults && !out.correct) {
    out.reason = "no kept claim states the default from the entry (" + all_reasons + ")";
  } else if (q.task == DocsTask::kOptions) {
    out.reason = first_reason;
    if (!out.correct && !later_ok.empty()) out.reason += "; kept claim " + later_ok + " quotes the entry";
  }
  return out;
}

}  // namespace attest
