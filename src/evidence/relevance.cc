#include "evidence/relevance.h"

#include <algorithm>
#include <cctype>

namespace attest {
namespace {

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '*' || c >= 0x80; }

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

void PushWord(std::string w, std::vector<std::string>* out) {
  while (!w.empty() && (w.back() == '.' || w.back() == '-' || w.back() == '*')) w.pop_back();
  size_t lead = 0;
  while (lead < w.size() && w[lead] == '.') ++lead;  // "..." or a sentence's leading dot
  w.erase(0, lead);
  if (w.empty() || w.find_first_not_of('-') == std::string::npos) return;
  if (w[0] == '-') {  // an option keeps its dashes and its inner hyphens ("--no-verify")
    out->push_back(std::move(w));
    return;
  }
  // "git-rebase" is the words "git" and "rebase" (a page name written with a hyphen).
  size_t start = 0;
  while (start <= w.size()) {
    size_t dash = w.find('-', start);
    std::string part = w.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
    while (!part.empty() && part.back() == '.') part.pop_back();
    if (!part.empty()) out->push_back(std::move(part));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
}

// Identifier words of `text`, lower case: runs of letters, digits and _ . - * (UTF-8 bytes count as
// letters), trailing dots removed.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    if (IsWordByte(static_cast<unsigned char>(ch))) {
      cur.push_back(Lower(ch));
    } else if (!cur.empty()) {
      PushWord(std::move(cur), &out);
      cur.clear();
    }
  }
  if (!cur.empty()) PushWord(std::move(cur), &out);
  return out;
}

// A subject's word matches a text's word: equal, or equal once the text's option dashes are
// removed when the subject was written without them ("onto" names "--onto"; "--onto" needs them).
bool WordEq(const std::string& subject_word, const std::string& word) {
  if (subject_word == word) return true;
  if (subject_word[0] == '-' || word.empty() || word[0] != '-') return false;
  return word.compare(word.find_first_not_of('-'), std::string::npos, subject_word) == 0;
}

bool AllWordsIn(const std::vector<std::string>& want, const std::vector<std::string>& have) {
  return std::all_of(want.begin(), want.end(), [&](const std::string& w) {
    return std::any_of(have.begin(), have.end(), [&](const std::string& h) { return WordEq(w, h); });
  });
}

// Removes the groups opened by `open` and closed by `close` (nesting allowed).
std::string RemoveGroups(std::string_view s, char open, char close) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == open) {
      ++depth;
    } else if (c == close && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out.push_back(c);
    }
  }
  return out;
}

// "19.6.1. Sending Servers" -> "Sending Servers".
std::string_view DropSectionNumber(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const size_t start = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i > start && i < s.size() && s[i] == ' ' && s[i - 1] == '.') return s.substr(i + 1);
  return s;
}

// "--[no-]verify" -> {"--no-verify", "--verify"}: each optional group taken and left out.
std::vector<std::string> ExpandOptional(const std::string& s) {
  std::vector<std::string> out{""};
  size_t i = 0;
  while (i < s.size()) {
    const size_t open = s.find('[', i);
    const size_t close = open == std::string::npos ? std::string::npos : s.find(']', open);
    if (close == std::string::npos || out.size() >= 8) {
      for (auto& o : out) o += s.substr(i);
      break;
    }
    const std::string before = s.substr(i, open - i), inner = s.substr(open + 1, close - open - 1);
    std::vector<std::string> next;
    for (const auto& o : out) {
      next.push_back(o + before + inner);
      next.push_back(o + before);
    }
    out = std::move(next);
    i = close + 1;
  }
  return out;
}

bool IsArticle(const std::string& w) { return w == "the" || w == "a" || w == "an"; }

}  // namespace

std::vector<std::vector<std::string>> SubjectAlternatives(std::string_view subject) {
  std::string s = RemoveGroups(RemoveGroups(DropSectionNumber(subject), '(', ')'), '<', '>');
  std::vector<std::vector<std::string>> out;
  for (const std::string& variant : ExpandOptional(s)) {
    size_t start = 0;
    while (start <= variant.size()) {
      size_t sep = variant.find_first_of(",|;", start);
      std::string alt = variant.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
      if (size_t eq = alt.find('='); eq != std::string::npos) alt.erase(eq);  // "--exec=<cmd>"
      std::vector<std::string> words;
      for (auto& w : Words(alt)) {
        if (!IsArticle(w)) words.push_back(std::move(w));
      }
      if (!words.empty() && std::find(out.begin(), out.end(), words) == out.end()) out.push_back(std::move(words));
      if (sep == std::string::npos) break;
      start = sep + 1;
    }
  }
  return out;
}

bool SubjectsMatch(std::string_view question_subject, std::string_view passage_subject) {
  const auto want = SubjectAlternatives(question_subject);
  if (want.empty()) return false;
  const auto have = SubjectAlternatives(passage_subject);
  for (const auto& w : want) {
    for (const auto& h : have) {
      if (AllWordsIn(w, h)) return true;
    }
  }
  return false;
}

bool IsNameLike(std::string_view subject) {
  size_t words = 0;
  bool in_word = false;
  for (const char ch : subject) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isdigit(c) || std::isupper(c) || std::string_view("_.-/()<>[]:").find(ch) != std::string_view::npos) {
      return true;
    }
    const bool space = std::isspace(c) != 0;
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words <= 1;
}

RelevanceQuestion RelevanceFor(Focus focus, const std::string& subject, const std::vector<EvidencePassage>& pack) {
  RelevanceQuestion q{focus, subject};
  if (subject.empty() || IsNameLike(subject)) return q;
  for (const EvidencePassage& p : pack) {
    if (!p.subject.empty() && SubjectsMatch(subject, p.subject)) return q;
  }
  q.subject.clear();
  return q;
}

bool MentionsSubject(std::string_view text, std::string_view subject) {
  const auto want = SubjectAlternatives(subject);
  if (want.empty()) return false;
  const std::vector<std::string> have = Words(text);
  return std::any_of(want.begin(), want.end(), [&](const std::vector<std::string>& w) { return AllWordsIn(w, have); });
}

bool NamesOnlySubject(std::string_view text, std::string_view subject) {
  const std::vector<std::string> words = Words(text), own = Words(subject);
  return !words.empty() && !own.empty() && AllWordsIn(words, own);
}

std::string SubjectLabel(std::string_view subject) {
  const std::string s = RemoveGroups(DropSectionNumber(subject), '(', ')');
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ':')) out.pop_back();
  return out;
}

bool FocusIsTestable(Focus focus) {
  return focus == Focus::kValue || focus == Focus::kNumber || focus == Focus::kDate || focus == Focus::kVersion;
}

namespace {

struct SentenceWord {
  std::string text;  // lower case
  bool quoted = false;  // written in quotes or backticks
};

std::vector<SentenceWord> PlainWords(std::string_view s) {
  std::vector<SentenceWord> out;
  std::string cur;
  bool quoted = false;
  auto flush = [&] {
    while (!cur.empty() && (cur.back() == '.' || cur.back() == '-')) cur.pop_back();
    if (!cur.empty()) out.push_back({cur, quoted});
    cur.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (IsWordByte(c) || c == '%' || c == ':' || c == '/') {
      if (cur.empty()) quoted = i > 0 && (s[i - 1] == '"' || s[i - 1] == '`' || s[i - 1] == '\'');
      cur.push_back(Lower(static_cast<char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

bool HasDigit(const std::string& w) { return w.find_first_of("0123456789") != std::string::npos; }

bool IsNumberWord(const std::string& w) {
  static const char* const kWords[] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                       "nine", "ten", "eleven", "twelve", "twenty", "thirty", "forty", "fifty",
                                       "hundred", "thousand", "million", "billion", "dozen", "half", "twice",
                                       "once", "single", "double", "several", "unlimited", "infinite",
                                       "hundreds", "thousands", "millions", "billions", "dozens", "percent"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

bool IsLiteralValue(const SentenceWord& w) {
  static const char* const kLiterals[] = {"true", "false", "on",   "off",  "yes",     "no",      "none",
                                          "null", "empty", "unset", "zero", "enabled", "disabled", "auto"};
  return w.quoted || HasDigit(w.text) || w.text.find_first_of("_.") != std::string::npos ||
         std::find(std::begin(kLiterals), std::end(kLiterals), w.text) != std::end(kLiterals);
}

bool IsYear(const std::string& w) {
  std::string d = w;
  if (!d.empty() && d.back() == 's') d.pop_back();  // "1990s"
  if (d.size() != 4 || !std::all_of(d.begin(), d.end(), ::isdigit)) return false;
  const int y = std::stoi(d);
  return y >= 1000 && y <= 2199;
}

bool IsMonth(const std::string& w) {
  static const char* const kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                                        "july",    "august",   "september", "october", "november", "december"};
  return std::find(std::begin(kMonths), std::end(kMonths), w) != std::end(kMonths);
}

bool IsVersionLabel(const std::string& w) {
  if (w.size() >= 2 && w[0] == 'v' && std::isdigit(static_cast<unsigned char>(w[1]))) return true;
  return std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos &&
         std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

bool StatesValue(const std::vector<SentenceWord>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    if (w.rfind("default", 0) == 0) return true;  // default, defaults, defaulted
    // "set to X", "equal to X": a bare word is a value ("set to input"); after an article it must
    // look like one ("set to a sufficiently large value" states none). "value is X", "value of X":
    // X must look like a value ("If this value is specified" states none).
    if (i + 2 >= words.size()) continue;
    const std::string& next = words[i + 1].text;
    const bool to = (w == "set" || w == "equal") && next == "to";
    const bool is = w == "value" && (next == "is" || next == "of");
    if (!to && !is) continue;
    size_t j = i + 2;
    if (to && !IsArticle(words[j].text)) return true;
    if (IsArticle(words[j].text)) ++j;
    if (j < words.size() && IsLiteralValue(words[j])) return true;
  }
  return false;
}

}  // namespace

bool AnswersFocus(Focus focus, std::string_view sentence) {
  if (!FocusIsTestable(focus)) return true;
  const std::vector<SentenceWord> words = PlainWords(sentence);
  switch (focus) {
    case Focus::kValue:
      return StatesValue(words);
    case Focus::kNumber:
      return std::any_of(words.begin(), words.end(),
                         [](const SentenceWord& w) { return HasDigit(w.text) || IsNumberWord(w.text); });
    case Focus::kDate:
      for (size_t i = 0; i < words.size(); ++i) {
        if (IsYear(words[i].text)) return true;
        const std::string& w = words[i].text;
        if (w == "century" || w == "centuries" || w == "decade" || w == "bc" || w == "bce") return true;
        // "in 911", "since 476": a shorter year after a preposition of time.
        const bool prep = i > 0 && (words[i - 1].text == "in" || words[i - 1].text == "since" ||
                                    words[i - 1].text == "until" || words[i - 1].text == "by");
        if (prep && w.size() >= 2 && w.size() <= 4 && std::all_of(w.begin(), w.end(), ::isdigit)) return true;
        // A month counts next to a day or year ("May 3", "3 May"): "may" alone is a modal verb.
        const bool near_number = (i > 0 && HasDigit(words[i - 1].text)) ||
                                 (i + 1 < words.size() && HasDigit(words[i + 1].text));
        if (IsMonth(words[i].text) && near_number) return true;
      }
      return false;
    case Focus::kVersion:
      for (size_t i = 0; i < words.size(); ++i) {
        if (IsVersionLabel(words[i].text)) return true;
        const std::string& w = words[i].text;
        const bool names = w == "version" || w == "versions" || w == "release" || w == "releases" || w == "since";
        if (names && i + 1 < words.size() && std::isdigit(static_cast<unsigned char>(words[i + 1].text[0]))) return true;
      }
      return false;
    default:
      return true;
  }
}

RelevanceCheck CheckRelevance(const RelevanceQuestion& question, std::string_view passage_subject,
                              std::string_view title, std::string_view text) {
  RelevanceCheck out;
  if (passage_subject.empty()) return out;  // a source without structure: nothing to tell it by
  if (!question.subject.empty()) {
    out.about_subject = SubjectsMatch(question.subject, passage_subject) || MentionsSubject(text, question.subject) ||
                        MentionsSubject(title, question.subject);
  }
  out.answers_focus = AnswersFocus(question.focus, text);
  return out;
}

}  // namespace attest
