// ParseDate / FormatDate: proleptic Gregorian calendar, days since 1970-01-01, using the
// civil-from-days / days-from-civil algorithms (H. Hinnant, "chrono-Compatible Low-Level Date
// Algorithms"), never time_t, so any year 1..9999 works regardless of the platform.
#include "common/date.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/strings.h"

namespace attest {
namespace {

constexpr int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
  int64_t year;
  unsigned month;
  unsigned day;
};

constexpr Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

static_assert(DaysFromCivil(1970, 1, 1) == 0);
static_assert(DaysFromCivil(2000, 3, 1) == 11017);

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr std::array<unsigned, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

std::optional<DayNumber> Make(int64_t y, int64_t m, int64_t d) {
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) return std::nullopt;
  if (d > DaysInMonth(y, static_cast<unsigned>(m))) return std::nullopt;
  return static_cast<DayNumber>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A small cursor over the input; every Take* leaves the cursor unchanged on failure.
struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool Done() const { return i >= s.size(); }
  void SkipSpaces() {
    while (i < s.size() && IsSpace(s[i])) ++i;
  }
  // Exactly `min..max` digits.
  bool TakeNumber(size_t min, size_t max, int64_t* out) {
    size_t j = i;
    int64_t v = 0;
    while (j < s.size() && IsDigit(s[j]) && j - i < max) v = v * 10 + (s[j++] - '0');
    if (j - i < min || (j < s.size() && IsDigit(s[j]))) return false;
    i = j;
    *out = v;
    return true;
  }
  bool TakeWord(std::string* out) {
    size_t j = i;
    while (j < s.size() && IsAlpha(s[j])) ++j;
    if (j == i) return false;
    out->clear();
    for (size_t k = i; k < j; ++k) out->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[k]))));
    i = j;
    return true;
  }
  bool TakeChar(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
};

// "january".."december", "jan".."dec", "sept"; 0 when not a month.
int MonthFromName(const std::string& w) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  for (size_t m = 0; m < kNames.size(); ++m) {
    if (w == kNames[m] || (w.size() == 3 && kNames[m].substr(0, 3) == w)) return static_cast<int>(m) + 1;
  }
  if (w == "sept") return 9;
  return 0;
}

bool IsWeekdayName(const std::string& w) {
  static constexpr std::array<std::string_view, 7> kDays = {"monday", "tuesday",  "wednesday", "thursday",
                                                            "friday", "saturday", "sunday"};
  for (std::string_view d : kDays) {
    if (w == d || (w.size() == 3 && d.substr(0, 3) == w)) return true;
  }
  return false;
}

// After the year of a textual date: end of input, or a time of day ("08:12:31 GMT") as in HTTP dates.
bool AcceptTail(Cursor c) {
  c.SkipSpaces();
  if (c.Done()) return true;
  int64_t hh = 0;
  return c.TakeNumber(1, 2, &hh) && c.TakeChar(':');
}

// YYYY-MM-DD, optionally followed by 'T' or a space and a time (ISO 8601 / RFC 3339).
std::optional<DayNumber> ParseIso(std::string_view s) {
  Cursor c{s};
  int64_t y = 0, m = 0, d = 0;
  if (!c.TakeNumber(4, 4, &y) || !c.TakeChar('-') || !c.TakeNumber(2, 2, &m) || !c.TakeChar('-') ||
      !c.TakeNumber(2, 2, &d)) {
    return std::nullopt;
  }
  if (!c.Done()) {
    const char next = s[c.i];
    if (next != 'T' && next != 't' && next != ' ') return std::nullopt;
    ++c.i;
    int64_t hh = 0;
    if (!c.TakeNumber(2, 2, &hh) || hh > 24) return std::nullopt;
  }
  return Make(y, m, d);
}

// "Month D, YYYY", "Mon D YYYY", "Sept. 5, 2023", optionally after a weekday ("Tuesday, ").
std::optional<DayNumber> ParseMonthFirst(Cursor c) {
  std::string word;
  if (!c.TakeWord(&word)) return std::nullopt;
  const int month = MonthFromName(word);
  if (month == 0) return std::nullopt;
  c.TakeChar('.');
  c.SkipSpaces();
  int64_t d = 0, y = 0;
  if (!c.TakeNumber(1, 2, &d)) return std::nullopt;
  c.TakeChar(',');
  c.SkipSpaces();
  if (!c.TakeNumber(4, 4, &y) || !AcceptTail(c)) return std::nullopt;
  return Make(y, month, d);
}

// "D Month YYYY", "5 Sep 2023", "15 Nov 1994 08:12:31 GMT".
std::optional<DayNumber> ParseDayFirst(Cursor c) {
  int64_t d = 0, y = 0;
  if (!c.TakeNumber(1, 2, &d)) return std::nullopt;
  c.SkipSpaces();
  std::string word;
  if (!c.TakeWord(&word)) return std::nullopt;
  const int month = MonthFromName(word);
  if (month == 0) return std::nullopt;
  c.TakeChar('.');
  c.TakeChar(',');
  c.SkipSpaces();
  if (!c.TakeNumber(4, 4, &y) || !AcceptTail(c)) return std::nullopt;
  return Make(y, month, d);
}

}  // namespace

std::optional<DayNumber> ParseDate(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.size() > 64) return std::nullopt;
  if (IsDigit(text[0])) {
    if (auto iso = ParseIso(text)) return iso;
    return ParseDayFirst(Cursor{text});
  }
  Cursor c{text};
  std::string word;
  Cursor probe = c;
  if (probe.TakeWord(&word) && IsWeekdayName(word)) {
    probe.TakeChar(',');
    probe.SkipSpaces();
    c = probe;
    if (!c.Done() && IsDigit(text[c.i])) return ParseDayFirst(c);
  }
  return ParseMonthFirst(c);
}

std::string FormatDate(DayNumber day) {
  const Civil c = CivilFromDays(day);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(c.year), c.month, c.day);
  return buf;
}

std::string FormatUtcTimestamp(int64_t unix_ms) {
  int64_t seconds = unix_ms / 1000;
  if (unix_ms < 0 && unix_ms % 1000 != 0) --seconds;  // floor
  int64_t days = seconds / 86400;
  int64_t rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "T%02d:%02d:%02dZ", int(rest / 3600), int(rest / 60 % 60), int(rest % 60));
  return FormatDate(static_cast<DayNumber>(days)) + buf;
}

}  // namespace attest
