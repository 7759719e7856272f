// Parsers of the three date families of sitemaps and feeds. Each reads fields with a small cursor,
// validates the calendar date through ParseDate ("YYYY-MM-DD") and computes the UTC instant from
// the day number, the time of day and the zone offset.
#include "crawl/seed_date.h"

#include <array>
#include <cstdio>

#include "common/strings.h"

namespace attest {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool Done() const { return i >= s.size(); }
  char Peek() const { return i < s.size() ? s[i] : '\0'; }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++i;
    return true;
  }
  // Exactly n digits.
  bool Digits(size_t n, int* out) {
    if (s.size() - i < n) return false;
    int v = 0;
    for (size_t k = 0; k < n; ++k) {
      if (!IsDigit(s[i + k])) return false;
      v = v * 10 + (s[i + k] - '0');
    }
    i += n;
    *out = v;
    return true;
  }
  // min..max digits, and not followed by another digit.
  bool Number(size_t min, size_t max, int* out) {
    size_t j = i;
    int v = 0;
    while (j < s.size() && IsDigit(s[j]) && j - i < max) v = v * 10 + (s[j++] - '0');
    if (j - i < min || (j < s.size() && IsDigit(s[j]))) return false;
    i = j;
    *out = v;
    return true;
  }
  std::string Word() {
    std::string w;
    while (i < s.size() && IsAlpha(s[i])) w.push_back(Lower(s[i++]));
    return w;
  }
  void Spaces() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  }
};

std::optional<DayNumber> Day(int y, int m, int d) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  return ParseDate(buf);
}

int64_t Instant(DayNumber day, int hh, int mm, int ss, int offset_minutes) {
  return static_cast<int64_t>(day) * 86400 + hh * 3600 + mm * 60 + ss - offset_minutes * 60;
}

// "Z" or "+hh:mm" / "-hh:mm" (lower-case "z" when lenient).
bool TakeW3cZone(Cursor& c, bool lenient, int* offset_minutes) {
  if (c.Take('Z') || (lenient && c.Take('z'))) {
    *offset_minutes = 0;
    return true;
  }
  const char sign = c.Peek();
  if (sign != '+' && sign != '-') return false;
  ++c.i;
  int h = 0, m = 0;
  if (!c.Digits(2, &h) || !c.Take(':') || !c.Digits(2, &m) || h > 23 || m > 59) return false;
  *offset_minutes = (sign == '-' ? -1 : 1) * (h * 60 + m);
  return true;
}

std::optional<SeedDate> ParseIsoLike(std::string_view text, bool rfc3339) {
  Cursor c{Trim(text)};
  int y = 0, mo = 1, d = 1;
  SeedDate out;
  if (!c.Digits(4, &y)) return std::nullopt;
  out.precision = DatePrecision::kYear;
  if (c.Take('-')) {
    if (!c.Digits(2, &mo)) return std::nullopt;
    out.precision = DatePrecision::kMonth;
    if (c.Take('-')) {
      if (!c.Digits(2, &d)) return std::nullopt;
      out.precision = DatePrecision::kDay;
    }
  }
  if (rfc3339 && out.precision != DatePrecision::kDay) return std::nullopt;
  const std::optional<DayNumber> day = Day(y, mo, d);
  if (!day) return std::nullopt;
  out.day = *day;
  if (c.Done()) return out;
  if (out.precision != DatePrecision::kDay) return std::nullopt;
  if (!(c.Take('T') || (rfc3339 && (c.Take('t') || c.Take(' '))))) return std::nullopt;
  int hh = 0, mm = 0, ss = 0, offset = 0;
  if (!c.Digits(2, &hh) || !c.Take(':') || !c.Digits(2, &mm) || hh > 23 || mm > 59) return std::nullopt;
  out.precision = DatePrecision::kMinute;
  if (c.Take(':')) {
    if (!c.Digits(2, &ss) || ss > 60) return std::nullopt;  // 60: a leap second
    out.precision = DatePrecision::kSecond;
    if (c.Take('.')) {
      const size_t start = c.i;
      while (IsDigit(c.Peek())) ++c.i;
      if (c.i == start) return std::nullopt;
    }
  } else if (rfc3339) {
    return std::nullopt;  // RFC 3339 requires seconds
  }
  if (!TakeW3cZone(c, rfc3339, &offset) || !c.Done()) return std::nullopt;
  out.unix_seconds = Instant(*day, hh, mm, ss, offset);
  return out;
}

int MonthNumber(const std::string& w) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  for (size_t m = 0; m < kNames.size(); ++m) {
    if (w == kNames[m] || (w.size() == 3 && kNames[m].substr(0, 3) == w)) return static_cast<int>(m) + 1;
  }
  return w == "sept" ? 9 : 0;
}

bool IsDayName(const std::string& w) {
  static constexpr std::array<std::string_view, 7> kDays = {"monday", "tuesday",  "wednesday", "thursday",
                                                            "friday", "saturday", "sunday"};
  for (std::string_view d : kDays) {
    if (w == d || (w.size() == 3 && d.substr(0, 3) == w)) return true;
  }
  return false;
}

// RFC 822 zones, in minutes east of UTC.
bool TakeRfc822Zone(Cursor& c, int* offset_minutes) {
  c.Spaces();
  if (c.Done()) {
    *offset_minutes = 0;
    return true;
  }
  const char sign = c.Peek();
  if (sign == '+' || sign == '-') {
    ++c.i;
    int h = 0, m = 0;
    if (!c.Digits(2, &h)) return false;
    c.Take(':');  // "+05:30" is common in the wild
    if (!c.Digits(2, &m) || h > 23 || m > 59) return false;
    *offset_minutes = (sign == '-' ? -1 : 1) * (h * 60 + m);
    return true;
  }
  const std::string w = c.Word();
  struct Zone {
    std::string_view name;
    int hours;
  };
  static constexpr std::array<Zone, 12> kZones = {{{"ut", 0}, {"utc", 0}, {"gmt", 0}, {"z", 0},
                                                   {"est", -5}, {"edt", -4}, {"cst", -6}, {"cdt", -5},
                                                   {"mst", -7}, {"mdt", -6}, {"pst", -8}, {"pdt", -7}}};
  for (const Zone& z : kZones) {
    if (w == z.name) {
      *offset_minutes = z.hours * 60;
      return true;
    }
  }
  if (w.size() == 1 && w[0] != 'j') {  // military letters: read as UTC (RFC 1123 §5.2.14)
    *offset_minutes = 0;
    return true;
  }
  return false;
}

}  // namespace

std::optional<SeedDate> ParseW3cDatetime(std::string_view text) { return ParseIsoLike(text, false); }

std::optional<SeedDate> ParseRfc3339(std::string_view text) { return ParseIsoLike(text, true); }

std::optional<SeedDate> ParseRfc822Datetime(std::string_view text) {
  Cursor c{Trim(text)};
  if (IsAlpha(c.Peek())) {
    if (!IsDayName(c.Word())) return std::nullopt;
    c.Spaces();
    c.Take(',');
    c.Spaces();
  }
  int d = 0, y = 0, hh = 0, mm = 0, ss = 0, offset = 0;
  if (!c.Number(1, 2, &d)) return std::nullopt;
  c.Spaces();
  c.Take('-');  // "01-Jan-2024" appears in the wild
  const int month = MonthNumber(c.Word());
  if (month == 0) return std::nullopt;
  c.Take('.');
  c.Spaces();
  c.Take('-');
  const size_t year_start = c.i;
  if (!c.Number(2, 4, &y) || c.i - year_start == 3) return std::nullopt;
  if (c.i - year_start == 2) y += y < 50 ? 2000 : 1900;
  const std::optional<DayNumber> day = Day(y, month, d);
  if (!day) return std::nullopt;
  SeedDate out;
  out.day = *day;
  c.Spaces();
  if (c.Done()) return out;  // a date without a time: the day only
  if (!c.Number(1, 2, &hh) || !c.Take(':') || !c.Digits(2, &mm) || hh > 23 || mm > 59) return std::nullopt;
  out.precision = DatePrecision::kMinute;
  if (c.Take(':')) {
    if (!c.Digits(2, &ss) || ss > 60) return std::nullopt;
    out.precision = DatePrecision::kSecond;
  }
  if (!TakeRfc822Zone(c, &offset)) return std::nullopt;
  c.Spaces();
  if (!c.Done()) return std::nullopt;
  out.unix_seconds = Instant(*day, hh, mm, ss, offset);
  return out;
}

}  // namespace attest
