// Word tokenizer, word lists, singulariser and operator parsing for the query planner.
#include <algorithm>
#include <cctype>
#include <set>

#include "common/date.h"
#include "common/strings.h"
#include "plan/plan_internal.h"

namespace attest::plan_internal {
namespace {

bool IsSpaceChar(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsWordChar(char c) {
  return IsAlnum(c) || static_cast<unsigned char>(c) >= 0x80 || c == '_' || c == '-' || c == '.' ||
         c == '\'' || c == '/' || c == '+' || c == '#';
}
bool IsTrimChar(char c) { return c == '.' || c == '-' || c == '\'' || c == '/'; }

bool InSet(const std::set<std::string_view>& set, std::string_view w) { return set.count(w) != 0; }

}  // namespace

std::vector<std::string> SplitSpaces(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpaceChar(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpaceChar(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<Word> Tokenize(std::string_view text) {
  std::vector<Word> words;
  size_t i = 0;
  bool boundary = true, sentence = true;
  while (i < text.size()) {
    const char c = text[i];
    if (!IsWordChar(c)) {
      if (c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '"') boundary = true;
      if (c == '?' || c == '!' || c == '.') boundary = sentence = true;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && IsWordChar(text[j])) ++j;
    size_t b = i, e = j;
    while (b < e && IsTrimChar(text[b])) ++b;
    bool trailing_period = false;
    while (e > b && IsTrimChar(text[e - 1])) {
      trailing_period |= text[e - 1] == '.';
      --e;
    }
    if (e > b) {
      Word w;
      w.text = std::string(text.substr(b, e - b));
      w.lower = AsciiLower(w.text);
      w.start = b;
      w.end = e;
      w.boundary_before = boundary;
      w.sentence_start = sentence;
      words.push_back(std::move(w));
      boundary = sentence = false;
    }
    if (trailing_period) boundary = sentence = true;
    i = j;
  }
  return words;
}

bool IsStopword(std::string_view w) {
  static const std::set<std::string_view> kStop = {
      "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
      "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
      "they", "this", "to", "was", "will", "with", "i", "me", "my", "we", "our", "you", "your",
      "he", "she", "his", "her", "its", "them", "those", "am", "been", "being", "do", "does", "did",
      "done", "doing", "have", "has", "had", "can", "could", "should", "would", "may", "might",
      "must", "shall", "from", "about", "between", "over", "under", "after", "before", "than",
      "so", "any", "all", "some", "also", "just", "up", "out", "off", "very", "were", "much",
      "many", "more", "most", "other", "same", "there", "here", "via", "per", "still", "yet",
      "both", "each", "own", "please", "it's", "i'm", "don't", "doesn't", "isn't", "aren't",
      "whether", "within", "across", "against", "while", "which", "what", "how", "when", "where",
      "who", "whom", "whose", "why", "what's", "whats", "how's", "behind"};
  return InSet(kStop, w);
}

bool IsQuestionWord(std::string_view w) {
  static const std::set<std::string_view> kQ = {"what", "how", "when", "where", "who", "whom",
                                                 "whose", "which", "why", "what's", "whats"};
  return InSet(kQ, w);
}

bool IsQuestionStarter(std::string_view w) {
  static const std::set<std::string_view> kS = {"is", "are", "does", "do", "did", "can", "could",
                                                 "should", "will", "would", "was", "were", "has",
                                                 "have", "may"};
  return IsQuestionWord(w) || InSet(kS, w);
}

bool IsGenericWord(std::string_view w) {
  static const std::set<std::string_view> kG = {
      "changed", "change", "changes", "new", "release", "releases", "version", "versions", "tell", "know",
      "explain", "thing", "things", "get", "got", "happened", "happen", "find", "show", "give",
      "need", "want", "like", "way", "ways", "there", "something", "anything", "anyone", "someone",
      "vs", "versus", "compare", "compared", "difference", "differences", "define", "definition",
      "meaning", "mean", "means", "still", "will", "ok", "okay"};
  return InSet(kG, w);
}

bool IsArticle(std::string_view w) { return w == "a" || w == "an" || w == "the"; }

bool IsAllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsVersionLike(std::string_view w) {
  if (!w.empty() && w[0] == 'v') w.remove_prefix(1);
  if (w.empty() || w.size() > 16 || !(w[0] >= '0' && w[0] <= '9') || w.back() == '.') return false;
  for (char c : w) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

bool IsIsoDate(std::string_view s) {
  if (s.size() != 10) return false;
  for (size_t k = 0; k < 10; ++k) {
    const bool dash = k == 4 || k == 7;
    if (dash ? s[k] != '-' : !(s[k] >= '0' && s[k] <= '9')) return false;
  }
  return ParseDate(s).has_value();
}

std::string Singularize(std::string_view w) {
  std::string s(w);
  const auto ends = [&](std::string_view suf) {
    return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (s.size() <= 3) return s;
  if (ends("ies") && s.size() > 4) return s.substr(0, s.size() - 3) + "y";
  if (ends("sses")) return s.substr(0, s.size() - 2);
  if (ends("xes") || ends("ches") || ends("shes")) return s.substr(0, s.size() - 2);
  if (ends("ss") || ends("us") || ends("is")) return s;
  if (ends("s")) return s.substr(0, s.size() - 1);
  return s;
}

std::string SingularizePhrase(std::string_view phrase) {
  std::vector<std::string> parts = SplitSpaces(phrase);
  if (parts.empty()) return "";
  parts.back() = Singularize(parts.back());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::optional<Ymd> ParseYmd(std::string_view s) {
  if (!IsIsoDate(s)) return std::nullopt;
  Ymd d;
  d.y = std::stoi(std::string(s.substr(0, 4)));
  d.m = std::stoi(std::string(s.substr(5, 2)));
  d.d = std::stoi(std::string(s.substr(8, 2)));
  return d;
}

std::string FormatYmd(int y, int m, int d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d", y, m, d);
  return buf;
}

std::string AddDays(std::string_view ymd, int days) {
  const std::optional<DayNumber> day = ParseDate(ymd);
  if (!day) return std::string(ymd);
  return FormatDate(*day + days);
}

Result<std::string> ExtractOperators(std::string_view text, PlanOperators* ops) {
  std::string out;
  size_t i = 0;
  const auto append = [&](std::string_view piece) {
    if (!out.empty() && !IsSpaceChar(out.back())) out += ' ';
    out += piece;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (IsSpaceChar(c)) {
      out += ' ';
      ++i;
      continue;
    }
    if (c == '"') {
      const size_t close = text.find('"', i + 1);
      if (close == std::string_view::npos) {  // a stray quote is dropped
        ++i;
        continue;
      }
      const std::string phrase = CollapseWhitespace(text.substr(i + 1, close - i - 1), Nbsp::kKeep);
      if (!phrase.empty()) {
        ops->phrases.push_back(phrase);
        append(phrase);
      }
      i = close + 1;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !IsSpaceChar(text[j]) && text[j] != '"') ++j;
    const std::string_view token = text.substr(i, j - i);
    i = j;
    const size_t colon = token.find(':');
    const std::string key = colon == std::string_view::npos ? "" : AsciiLower(token.substr(0, colon));
    if (key != "site" && key != "before" && key != "after" && key != "version" && key != "type") {
      out += token;
      continue;
    }
    std::string value(token.substr(colon + 1));
    while (!value.empty() && std::string_view(",.?!;)").find(value.back()) != std::string_view::npos) {
      value.pop_back();
    }
    const std::string name = key + ":";
    if (value.empty()) return Status::InvalidArgument("operator " + name + " needs a value");
    if (key == "before" || key == "after") {
      if (!IsIsoDate(value)) {
        return Status::InvalidArgument("operator " + name + " malformed date '" + value +
                                       "' (expected YYYY-MM-DD)");
      }
      std::optional<std::string>& slot = key == "before" ? ops->before : ops->after;
      if (!slot || (key == "before" ? value < *slot : value > *slot)) slot = value;
    } else if (key == "site") {
      std::string host = AsciiLower(value);
      for (std::string_view scheme : {"https://", "http://"}) {
        if (host.rfind(scheme, 0) == 0) host = host.substr(scheme.size());
      }
      while (!host.empty() && host.back() == '/') host.pop_back();
      const bool ok = !host.empty() && host.size() <= 253 &&
                      std::all_of(host.begin(), host.end(), [](char h) {
                        return IsAlnum(h) || h == '.' || h == '-';
                      });
      if (!ok) return Status::InvalidArgument("operator site: invalid host '" + value + "'");
      ops->sites.push_back(host);
    } else {
      const bool ok = value.size() <= 32 && std::all_of(value.begin(), value.end(), [](char h) {
                        return IsAlnum(h) || h == '.' || h == '-' || h == '_';
                      });
      if (!ok) return Status::InvalidArgument("operator " + name + " invalid value '" + value + "'");
      (key == "version" ? ops->versions : ops->types).push_back(key == "type" ? AsciiLower(value) : value);
    }
  }
  if (ops->before && ops->after && *ops->after >= *ops->before) {
    return Status::InvalidArgument("operators after:" + *ops->after + " and before:" + *ops->before +
                                   " leave an empty date range");
  }
  return CollapseWhitespace(out, Nbsp::kKeep);
}

}  // namespace attest::plan_internal
