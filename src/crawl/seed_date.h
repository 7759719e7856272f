// Dates of sitemaps and feeds: the W3C Datetime profile of ISO 8601 (sitemap <lastmod>), RFC 3339
// (Atom <updated>/<published>) and the RFC 822 / RFC 1123 forms of RSS <pubDate>. Each gives the
// calendar date as the source wrote it and, when a time of day with a zone was given, the instant
// in UTC. Day validation goes through attest::ParseDate (src/common/date.h). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/date.h"

namespace attest {

// How much of a date the source gave (W3C Datetime allows "1997" and "1997-07").
enum class DatePrecision { kYear, kMonth, kDay, kMinute, kSecond };

struct SeedDate {
  // The calendar date as written (the publisher's own date, not shifted to UTC); a year or a
  // month alone gives its first day.
  DayNumber day = 0;
  DatePrecision precision = DatePrecision::kDay;
  // Seconds since 1970-01-01T00:00:00Z when a time of day was given (its zone offset applied;
  // fractions of a second dropped).
  std::optional<int64_t> unix_seconds;

  std::string Day() const { return FormatDate(day); }  // "YYYY-MM-DD"
};

// W3C Datetime (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD,
// YYYY-MM-DDThh:mmTZD, YYYY-MM-DDThh:mm:ssTZD, YYYY-MM-DDThh:mm:ss.sTZD with TZD "Z" or
// "+hh:mm"/"-hh:mm". A time without a zone is refused, as the note requires one. Surrounding
// whitespace is ignored; anything else gives nullopt.
std::optional<SeedDate> ParseW3cDatetime(std::string_view text);

// RFC 3339 date-time as Atom uses it (RFC 4287 §3.3): the W3C forms with a full date; "t"/"z" in
// lower case and a space instead of "T" are accepted as RFC 3339 §5.6 allows.
std::optional<SeedDate> ParseRfc3339(std::string_view text);

// RFC 822 §5 / RFC 1123 §5.2.14 date-time as RSS 2.0 <pubDate> uses it:
//   [Day ","] D Mon YY[YY] hh:mm[:ss] zone
// zone: "UT", "GMT", "Z", the US zones (EST EDT CST CDT MST MDT PST PDT), single military letters
// (treated as UTC: RFC 1123 notes their signs were defined backwards) or "+hhmm"/"-hhmm"; a
// missing zone is read as UTC. Two-digit years follow RFC 5322 §4.3 (00-49 = 20xx, 50-99 = 19xx).
// Month and day names are matched case-insensitively, in full or abbreviated.
std::optional<SeedDate> ParseRfc822Datetime(std::string_view text);

}  // namespace attest
