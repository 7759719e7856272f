// HTTP dates (RFC 9110 §5.6.7): the three forms, the two-digit-year rule, refusals, formatting
// round trips against gmtime; Retry-After as seconds and as a date, clamped and capped.
#include "crawl/http_dates.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>

namespace attest {
namespace {

using std::chrono::seconds;

SystemTime At(int64_t unix_seconds) { return SystemTime(seconds(unix_seconds)); }
constexpr int64_t k1994 = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
const SystemTime kNow2026 = At(1780000000);  // 2026-05-28

TEST(HttpDate, TheThreeFormsOfRfc9110) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("Sun Nov 06 08:49:37 1994", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("  Sun, 06 Nov 1994 08:49:37 GMT\t", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("sun, 06 nov 1994 08:49:37 gmt", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-1994 08:49:37 GMT", kNow2026), At(k1994));
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT", kNow2026), At(0));
}

TEST(HttpDate, TwoDigitYearsMoreThanFiftyYearsAheadAreInThePast) {
  // now = 2026: "76" is 2076 (50 years ahead, allowed), "77" is 1977, "26" is 2026.
  auto year_of = [](std::string_view text, SystemTime now) {
    const auto t = ParseHttpDate(text, now);
    if (!t) return 0;
    return static_cast<int>(std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(*t)}.year());
  };
  EXPECT_EQ(year_of("Monday, 01-Jan-76 00:00:00 GMT", kNow2026), 2076);
  EXPECT_EQ(year_of("Monday, 01-Jan-77 00:00:00 GMT", kNow2026), 1977);
  EXPECT_EQ(year_of("Monday, 01-Jan-26 00:00:00 GMT", kNow2026), 2026);
  EXPECT_EQ(year_of("Monday, 01-Jan-00 00:00:00 GMT", kNow2026), 2000);
  EXPECT_EQ(year_of("Monday, 01-Jan-94 00:00:00 GMT", At(0)), 1994);   // now = 1970
  EXPECT_EQ(year_of("Monday, 01-Jan-21 00:00:00 GMT", At(0)), 1921);   // 2021 is 51 years ahead of 1970
  EXPECT_EQ(year_of("Monday, 01-Jan-20 00:00:00 GMT", At(0)), 2020);   // 50 ahead: allowed
}

TEST(HttpDate, Refusals) {
  for (const char* bad : {"", "GMT", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 31 Feb 1994 08:49:37 GMT",
                          "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                          "Sun, 06 Nov 1994 08:61:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT junk", "1994-11-06T08:49:37Z",
                          "784111777", "Sun Nov 6 08:49:37 94", "Sun Nov 123 08:49:37 1994", "Sunday, 06-Nov-9 08:49:37 GMT",
                          "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT\r\nX: y"}) {
    EXPECT_FALSE(ParseHttpDate(bad, kNow2026).has_value()) << bad;
  }
}

TEST(HttpDate, FormatIsImfFixdate) {
  EXPECT_EQ(FormatHttpDate(At(k1994)), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatHttpDate(At(0)), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(FormatHttpDate(At(951782400)), "Tue, 29 Feb 2000 00:00:00 GMT");
  EXPECT_EQ(FormatHttpDate(At(k1994) + std::chrono::milliseconds(999)), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatHttpDate(At(-1)), "Wed, 31 Dec 1969 23:59:59 GMT");
}

// Against the C library's gmtime/strftime on random instants between 1900 and 2200, and back.
TEST(HttpDate, FormatAndParseAgreeWithGmtimeOnRandomInstants) {
  std::mt19937_64 rng(14);
  std::uniform_int_distribution<int64_t> dist(-2208988800LL, 7258118400LL);
  for (int k = 0; k < 20000; ++k) {
    const int64_t s = dist(rng);
    const time_t t = static_cast<time_t>(s);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char expected[64];
    std::strftime(expected, sizeof expected, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    const std::string text = FormatHttpDate(At(s));
    ASSERT_EQ(text, expected) << s;
    ASSERT_EQ(ParseHttpDate(text, kNow2026), At(s)) << text;
    char asctime_form[64];
    std::strftime(asctime_form, sizeof asctime_form, "%a %b %e %H:%M:%S %Y", &tm);
    ASSERT_EQ(ParseHttpDate(asctime_form, kNow2026), At(s)) << asctime_form;
  }
}

TEST(RetryAfter, DelaySeconds) {
  EXPECT_EQ(ParseRetryAfter("120", kNow2026), seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 0 ", kNow2026), seconds(0));
  EXPECT_EQ(ParseRetryAfter("-5", kNow2026), seconds(0));
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999999", kNow2026), kMaxRetryAfter);
  EXPECT_EQ(ParseRetryAfter("90000", kNow2026), kMaxRetryAfter);
  EXPECT_EQ(ParseRetryAfter("90", kNow2026, seconds(60)), seconds(60));
  for (const char* bad : {"", " ", "1.5", "+3", "3s", "-", "soon", "0x10"}) {
    EXPECT_FALSE(ParseRetryAfter(bad, kNow2026).has_value()) << bad;
  }
}

TEST(RetryAfter, HttpDateRelativeToNow) {
  const SystemTime now = At(k1994);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:50:37 GMT", now), seconds(60));
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now), seconds(0));
  EXPECT_EQ(ParseRetryAfter("Sat, 05 Nov 1994 08:49:37 GMT", now), seconds(0));  // in the past
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:38 GMT", now - std::chrono::milliseconds(500)), seconds(2));
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 2094 08:49:37 GMT", now), kMaxRetryAfter);
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:59:37 GMT", now), seconds(600));
}

}  // namespace
}  // namespace attest
