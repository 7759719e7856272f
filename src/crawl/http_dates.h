// HTTP dates (RFC 9110 §5.6.7) and the Retry-After field (RFC 9110 §10.2.3).
//
// ParseHttpDate accepts the three forms a recipient must accept:
//   IMF-fixdate   "Sun, 06 Nov 1994 08:49:37 GMT"   (the preferred form; read by the RFC 822 /
//                                                    RFC 1123 parser of crawl/seed_date.h)
//   RFC 850       "Sunday, 06-Nov-94 08:49:37 GMT"  (obsolete; a two-digit year that would lie
//                                                    more than 50 years after `now` is read as the
//                                                    latest past year with those digits, §5.6.7)
//   asctime       "Sun Nov  6 08:49:37 1994"        (obsolete; no zone, read as UTC)
// A time with seconds is required; day and month names are matched without case; a date that
// does not exist ("31 Feb") is refused.
//
// FormatHttpDate writes IMF-fixdate (the only form a sender may generate), years clamped to
// 0001..9999.
//
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace attest {

using SystemTime = std::chrono::system_clock::time_point;

// `now` only matters for the two-digit years of the RFC 850 form.
std::optional<SystemTime> ParseHttpDate(std::string_view text, SystemTime now);
std::optional<SystemTime> ParseHttpDate(std::string_view text);  // now = the system clock

std::string FormatHttpDate(SystemTime t);

// The longest wait a Retry-After may ask for before it is cut (a day).
inline constexpr std::chrono::seconds kMaxRetryAfter{86400};

// The wait a Retry-After value asks for: delay-seconds ("120") or an HTTP-date, relative to `now`
// (a date in the past, or a negative number, is 0; a fraction of a second left rounds up), at
// most `cap`. Surrounding spaces and tabs are ignored. nullopt when the value is neither form.
std::optional<std::chrono::seconds> ParseRetryAfter(std::string_view value, SystemTime now,
                                                    std::chrono::seconds cap = kMaxRetryAfter);

}  // namespace attest
