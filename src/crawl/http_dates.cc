// The two obsolete HTTP-date forms are rewritten into the RFC 1123 form and read by the RFC 822
// parser of crawl/seed_date.h, so the day, time and zone rules live in one place.
#include "crawl/http_dates.h"

#include <cstdio>
#include <vector>

#include "common/strings.h"
#include "crawl/seed_date.h"

namespace attest {
namespace {

using std::chrono::seconds;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool AllLetters(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

// The fields of `s` separated by runs of spaces (asctime pads a one-digit day with a space).
std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

int CivilYear(SystemTime t) {
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(t)};
  return static_cast<int>(ymd.year());
}

// RFC 9110 §5.6.7: a two-digit year that appears to be more than 50 years in the future is the
// most recent year in the past that had the same last two digits. Read as a sliding window: the
// year with those digits in [now - 49, now + 50].
int FullYear(int two_digits, SystemTime now) {
  const int now_year = CivilYear(now);
  int year = now_year - now_year % 100 + two_digits;
  if (year > now_year + 50) year -= 100;
  if (year <= now_year - 50) year += 100;
  return year;
}

// An instant with seconds from the RFC 822 parser, if the clock can represent it.
std::optional<SystemTime> Instant(std::string_view rfc1123) {
  const std::optional<SeedDate> d = ParseRfc822Datetime(rfc1123);
  if (!d || !d->unix_seconds || d->precision != DatePrecision::kSecond) return std::nullopt;
  static const int64_t kMin = std::chrono::ceil<seconds>(SystemTime::min()).time_since_epoch().count();
  static const int64_t kMax = std::chrono::floor<seconds>(SystemTime::max()).time_since_epoch().count();
  if (*d->unix_seconds < kMin || *d->unix_seconds > kMax) return std::nullopt;
  return SystemTime(seconds(*d->unix_seconds));
}

}  // namespace

std::optional<SystemTime> ParseHttpDate(std::string_view text, SystemTime now) {
  text = Trim(text, kHttpWhitespace);
  const std::vector<std::string_view> f = Fields(text);
  // asctime-date: wkday SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year
  if (f.size() == 5 && AllLetters(f[0]) && AllLetters(f[1])) {
    if (!AllDigits(f[2]) || f[2].size() > 2 || f[4].size() != 4 || !AllDigits(f[4])) return std::nullopt;
    std::string rewritten;
    rewritten.append(f[0]).append(", ").append(f[2]).append(" ").append(f[1]).append(" ").append(f[4]);
    rewritten.append(" ").append(f[3]).append(" GMT");
    return Instant(rewritten);
  }
  // rfc850-date: weekday "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP GMT
  if (f.size() == 4 && f[0].ends_with(',') && f[1].size() >= 9) {
    const std::string_view date = f[1];
    const size_t dash = date.rfind('-');
    if (dash != std::string_view::npos && date.size() - dash == 3 && AllDigits(date.substr(dash + 1)) &&
        date.find('-') < dash) {
      const int yy = (date[dash + 1] - '0') * 10 + (date[dash + 2] - '0');
      std::string rewritten;
      rewritten.append(f[0]).append(" ").append(date.substr(0, dash + 1));
      rewritten.append(std::to_string(FullYear(yy, now))).append(" ").append(f[2]).append(" ").append(f[3]);
      return Instant(rewritten);
    }
    // The same with a four-digit year ("Sunday, 06-Nov-1994 ..."), as cookies and some servers write it.
    if (dash != std::string_view::npos && date.size() - dash == 5 && AllDigits(date.substr(dash + 1))) {
      return Instant(text);
    }
  }
  if (f.size() != 6) return std::nullopt;  // IMF-fixdate: day-name "," SP date1 SP time-of-day SP GMT
  return Instant(text);
}

std::optional<SystemTime> ParseHttpDate(std::string_view text) {
  return ParseHttpDate(text, std::chrono::system_clock::now());
}

std::string FormatHttpDate(SystemTime t) {
  using namespace std::chrono;
  const sys_seconds s = floor<seconds>(t);
  const sys_days day = floor<days>(s);
  year_month_day ymd{day};
  hh_mm_ss<seconds> hms{s - day};
  int y = static_cast<int>(ymd.year());
  if (y < 1 || y > 9999) {  // IMF-fixdate has a four-digit year
    ymd = y < 1 ? year_month_day{year{1}, January, std::chrono::day{1}}
                : year_month_day{year{9999}, December, std::chrono::day{31}};
    hms = y < 1 ? hh_mm_ss<seconds>{seconds{0}} : hh_mm_ss<seconds>{hours{23} + minutes{59} + seconds{59}};
    y = static_cast<int>(ymd.year());
  }
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const unsigned wd = weekday{sys_days{ymd}}.c_encoding();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02d:%02d:%02d GMT", kDays[wd], static_cast<unsigned>(ymd.day()),
                kMonths[static_cast<unsigned>(ymd.month()) - 1], y, static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  return buf;
}

std::optional<seconds> ParseRetryAfter(std::string_view value, SystemTime now, seconds cap) {
  value = Trim(value, kHttpWhitespace);
  if (value.empty()) return std::nullopt;
  const bool negative = value.front() == '-';
  const std::string_view digits = negative ? value.substr(1) : value;
  if (AllDigits(digits)) {
    if (negative) return seconds{0};
    int64_t n = 0;
    for (char c : digits) {
      n = n * 10 + (c - '0');
      if (n > cap.count()) return cap;  // also stops before an overflow
    }
    return seconds{n};
  }
  const std::optional<SystemTime> date = ParseHttpDate(value, now);
  if (!date) return std::nullopt;
  if (*date <= now) return seconds{0};
  const seconds wait = std::chrono::ceil<seconds>(*date - now);
  return wait < cap ? wait : cap;
}

}  // namespace attest
