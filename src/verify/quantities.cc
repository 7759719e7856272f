#include "verify/quantities.h"

#include <array>
#include <cctype>
#include <cstring>
#include <optional>

namespace attest {
namespace {

struct Word {
  std::string_view text;  // stripped of surrounding punctuation
  size_t begin = 0;
  size_t end = 0;
  bool comma_after = false;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::vector<Word> SplitWords(std::string_view s) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    size_t b = i, e = j;
    while (b < e && std::strchr("([{\"'<*`", s[b]) != nullptr) ++b;
    bool comma = false;
    while (e > b && std::strchr(".,;:)]}\"'!?>*`", s[e - 1]) != nullptr) {
      if (s[e - 1] == ',') comma = true;
      --e;
    }
    if (b < e) words.push_back({s.substr(b, e - b), b, e, comma});
    i = j;
  }
  return words;
}

int MonthNumber(std::string_view w) {
  static constexpr std::array<const char*, 12> kFull = {"january", "february", "march",     "april",
                                                        "may",     "june",     "july",      "august",
                                                        "september", "october", "november", "december"};
  for (int m = 0; m < 12; ++m) {
    std::string_view full = kFull[m];
    if (w == full) return m + 1;
    if (m != 4 && w.size() >= 3 && w.size() < full.size() && full.substr(0, w.size()) == w &&
        (w.size() == 3 || w == "sept")) {
      return m + 1;
    }
  }
  return 0;
}

bool AllDigits(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// "30", "30th", "1st" -> day number 1..31.
std::optional<int> DayNumber(std::string_view w) {
  for (std::string_view suffix : {"st", "nd", "rd", "th"}) {
    if (w.size() > 2 && w.substr(w.size() - 2) == suffix) w.remove_suffix(2);
  }
  if (w.empty() || w.size() > 2 || !AllDigits(w)) return std::nullopt;
  const int d = std::stoi(std::string(w));
  if (d < 1 || d > 31) return std::nullopt;
  return d;
}

bool IsYear(std::string_view w) { return w.size() == 4 && AllDigits(w) && (w[0] == '1' || w[0] == '2'); }

std::string Pad2(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// Canonical unit of a word, or "" when it is not a unit.
std::string UnitOf(std::string_view w) {
  struct Entry { const char* word; const char* unit; };
  static constexpr Entry kUnits[] = {
      {"%", "%"}, {"percent", "%"}, {"pct", "%"},
      {"ms", "ms"}, {"millisecond", "ms"}, {"milliseconds", "ms"},
      {"s", "second"}, {"sec", "second"}, {"secs", "second"}, {"second", "second"}, {"seconds", "second"},
      {"min", "minute"}, {"mins", "minute"}, {"minute", "minute"}, {"minutes", "minute"},
      {"h", "hour"}, {"hr", "hour"}, {"hrs", "hour"}, {"hour", "hour"}, {"hours", "hour"},
      {"day", "day"}, {"days", "day"}, {"week", "week"}, {"weeks", "week"},
      {"month", "month"}, {"months", "month"}, {"year", "year"}, {"years", "year"},
      {"b", "byte"}, {"byte", "byte"}, {"bytes", "byte"},
      {"kb", "kb"}, {"mb", "mb"}, {"gb", "gb"}, {"tb", "tb"},
      {"kib", "kib"}, {"mib", "mib"}, {"gib", "gib"}, {"tib", "tib"},
      {"x", "x"}, {"times", "x"},
  };
  for (const Entry& e : kUnits) {
    if (w == e.word) return e.unit;
  }
  return "";
}

// Spelled numbers: "two".."ninety-nine"; 0 when not a number word.
int NumberWord(std::string_view w) {
  static constexpr std::array<const char*, 20> kOnes = {
      "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
      "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
      "nineteen"};
  static constexpr std::array<const char*, 8> kTens = {"twenty", "thirty", "forty", "fifty",
                                                       "sixty", "seventy", "eighty", "ninety"};
  for (int i = 0; i < 20; ++i) {
    if (w == kOnes[i]) return i == 0 ? -1 : i;  // -1 marks zero (0 means "not a number word")
  }
  for (int t = 0; t < 8; ++t) {
    std::string_view tens = kTens[t];
    if (w == tens) return 20 + 10 * t;
    if (w.size() > tens.size() + 1 && w.substr(0, tens.size()) == tens && w[tens.size()] == '-') {
      std::string_view rest = w.substr(tens.size() + 1);
      for (int i = 1; i < 10; ++i) {
        if (rest == kOnes[i]) return 20 + 10 * t + i;
      }
    }
  }
  return 0;
}

std::string StripLeadingZeros(std::string_view digits) {
  size_t k = 0;
  while (k + 1 < digits.size() && digits[k] == '0') ++k;
  return std::string(digits.substr(k));
}

// Canonical value of one numeric piece ("1,000" -> "1000", "007" -> "7", "15.40" kept), or "".
std::string CanonicalNumber(std::string_view p) {
  if (p.empty() || !IsDigit(p[0])) return "";
  size_t i = 0;
  while (i < p.size() && (IsDigit(p[i]) || p[i] == ',')) ++i;
  std::string_view integer = p.substr(0, i);
  std::string_view rest = p.substr(i);
  std::string digits;
  if (integer.find(',') != std::string_view::npos) {
    // Thousands separators only in the form d{1,3}(,ddd)+.
    size_t first = integer.find(',');
    if (first == 0 || first > 3) return "";
    for (size_t k = first; k < integer.size(); k += 4) {
      if (integer[k] != ',' || k + 4 > integer.size() || !AllDigits(integer.substr(k + 1, 3))) return "";
    }
    for (char c : integer) {
      if (c != ',') digits.push_back(c);
    }
  } else {
    digits = std::string(integer);
  }
  for (char c : rest) {
    if (!(IsDigit(c) || c == '.')) return "";
  }
  if (!rest.empty() && (rest[0] != '.' || rest.size() == 1 || rest.back() == '.' ||
                        rest.find("..") != std::string_view::npos)) {
    return "";
  }
  return StripLeadingZeros(digits) + std::string(rest);
}

bool IsScopeWord(std::string_view w) {
  return w == "release" || w == "version" || w == "versions" || w == "releases" || w == "major";
}

}  // namespace

std::string Quantity::Describe() const {
  if (kind == Kind::kDate) return value;
  if (unit.empty()) return scope ? "version " + value : value;
  if (unit == "%") return value + "%";
  if (unit == "$") return "$" + value;
  const bool word_unit = unit.size() > 2 && unit != "kib" && unit != "mib" && unit != "gib" && unit != "tib";
  return value + " " + unit + (word_unit && value != "1" ? "s" : "");
}

std::vector<Quantity> ExtractQuantities(std::string_view s) {
  const std::vector<Word> words = SplitWords(s);
  std::vector<Quantity> out;
  auto unit_after = [&](size_t i) -> std::string {
    return i + 1 < words.size() ? UnitOf(words[i + 1].text) : "";
  };
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i].text;
    // Dates written with a month name.
    if (const int month = MonthNumber(w); month != 0 && i + 1 < words.size()) {
      if (auto day = DayNumber(words[i + 1].text); day && i + 2 < words.size() && IsYear(words[i + 2].text)) {
        out.push_back({Quantity::Kind::kDate,
                       std::string(words[i + 2].text) + "-" + Pad2(month) + "-" + Pad2(*day), "", false,
                       words[i].begin, words[i + 2].end});
        i += 2;
        continue;
      }
      if (IsYear(words[i + 1].text)) {
        out.push_back({Quantity::Kind::kDate, std::string(words[i + 1].text) + "-" + Pad2(month), "",
                       false, words[i].begin, words[i + 1].end});
        i += 1;
        continue;
      }
    }
    if (auto day = DayNumber(w); day && i + 2 < words.size() && !words[i].comma_after) {
      if (const int month = MonthNumber(words[i + 1].text); month != 0 && IsYear(words[i + 2].text)) {
        out.push_back({Quantity::Kind::kDate,
                       std::string(words[i + 2].text) + "-" + Pad2(month) + "-" + Pad2(*day), "", false,
                       words[i].begin, words[i + 2].end});
        i += 2;
        continue;
      }
    }
    // Spelled numbers.
    if (int n = NumberWord(w); n != 0) {
      std::string unit = unit_after(i);
      if (n > 1 || !unit.empty()) {
        out.push_back({Quantity::Kind::kNumber, std::to_string(n < 0 ? 0 : n), unit, false,
                       words[i].begin, unit.empty() ? words[i].end : words[i + 1].end});
        if (!unit.empty()) ++i;
      }
      continue;
    }
    // Numerals, with an optional '$' or 'v' prefix and a unit suffix.
    std::string_view body = w;
    std::string prefix_unit;
    bool scope = i > 0 && IsScopeWord(words[i - 1].text);
    if (body.size() > 1 && body[0] == '$') {
      prefix_unit = "$";
      body.remove_prefix(1);
    } else if (body.size() > 1 && body[0] == 'v' && IsDigit(body[1])) {
      scope = true;
      body.remove_prefix(1);
    }
    if (body.empty() || !IsDigit(body[0])) continue;
    // ISO date.
    if (body.size() >= 10 && IsYear(body.substr(0, 4)) && body[4] == '-' && AllDigits(body.substr(5, 2)) &&
        body[7] == '-' && AllDigits(body.substr(8, 2))) {
      out.push_back({Quantity::Kind::kDate, std::string(body.substr(0, 10)), "", false, words[i].begin,
                     words[i].end});
      continue;
    }
    if (body.size() == 7 && IsYear(body.substr(0, 4)) && body[4] == '-' && AllDigits(body.substr(5, 2))) {
      out.push_back({Quantity::Kind::kDate, std::string(body), "", false, words[i].begin, words[i].end});
      continue;
    }
    // Split the numeric part from a unit suffix ("30%", "10ms", "5gb").
    size_t k = 0;
    while (k < body.size() && (IsDigit(body[k]) || body[k] == '.' || body[k] == ',' || body[k] == '-')) ++k;
    std::string_view numeric = body.substr(0, k);
    std::string_view suffix = body.substr(k);
    std::string unit = prefix_unit;
    size_t end = words[i].end;
    if (!suffix.empty()) {
      unit = UnitOf(suffix);
      if (unit.empty()) continue;  // an identifier such as "3des" or "sha256sum": not a quantity
    } else if (unit.empty()) {
      unit = unit_after(i);
      if (!unit.empty()) end = words[i + 1].end;
    }
    // Ranges "10-20" give two numbers with the same unit.
    size_t start = 0;
    bool any = false;
    while (start <= numeric.size()) {
      size_t dash = numeric.find('-', start);
      if (dash == std::string_view::npos) dash = numeric.size();
      std::string v = CanonicalNumber(numeric.substr(start, dash - start));
      if (!v.empty()) {
        out.push_back({Quantity::Kind::kNumber, v, unit, scope, words[i].begin, end});
        any = true;
      }
      start = dash + 1;
    }
    if (any && scope && i > 0 && IsScopeWord(words[i - 1].text)) {
      for (Quantity* q = &out.back(); q >= out.data() && q->begin == words[i].begin; --q) {
        q->begin = words[i - 1].begin;  // "release 17" as one span
        if (q == out.data()) break;
      }
    }
    if (any && end != words[i].end) ++i;
  }
  return out;
}

bool QuantityMatches(const Quantity& needle, const std::vector<Quantity>& haystack) {
  for (const Quantity& h : haystack) {
    if (needle.kind == Quantity::Kind::kDate || (needle.unit.empty() && IsYear(needle.value))) {
      // A date or a bare year: equal, or less precise than a quote date ("2026-06" vs "2026-06-30").
      if (h.value == needle.value) return true;
      if (h.kind == Quantity::Kind::kDate && h.value.size() > needle.value.size() &&
          h.value.compare(0, needle.value.size(), needle.value) == 0 && h.value[needle.value.size()] == '-') {
        return true;
      }
      continue;
    }
    if (h.kind != Quantity::Kind::kNumber || h.value != needle.value) continue;
    if (needle.unit.empty() || h.unit.empty() || h.unit == needle.unit) return true;
  }
  return false;
}

}  // namespace attest
