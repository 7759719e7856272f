#include <gtest/gtest.h>

#include "common/date.h"

namespace attest {
namespace {

std::string Fmt(std::string_view s) {
  auto d = ParseDate(s);
  return d ? FormatDate(*d) : "none";
}

TEST(IngestDate, IsoForms) {
  EXPECT_EQ(Fmt("2023-08-10"), "2023-08-10");
  EXPECT_EQ(Fmt("  2023-08-10\n"), "2023-08-10");
  EXPECT_EQ(Fmt("2023-08-10T12:34:56Z"), "2023-08-10");
  EXPECT_EQ(Fmt("2023-08-10T12:34:56+02:00"), "2023-08-10");
  EXPECT_EQ(Fmt("2023-08-10 08:00"), "2023-08-10");
  EXPECT_EQ(ParseDate("1970-01-01"), 0);
  EXPECT_EQ(ParseDate("1970-01-02"), 1);
  EXPECT_EQ(ParseDate("1969-12-31"), -1);
  EXPECT_EQ(ParseDate("2000-03-01"), 11017);
}

TEST(IngestDate, TextualForms) {
  EXPECT_EQ(Fmt("August 10, 2023"), "2023-08-10");
  EXPECT_EQ(Fmt("august 10 2023"), "2023-08-10");
  EXPECT_EQ(Fmt("Aug 10, 2023"), "2023-08-10");
  EXPECT_EQ(Fmt("Sept. 5, 2023"), "2023-09-05");
  EXPECT_EQ(Fmt("10 August 2023"), "2023-08-10");
  EXPECT_EQ(Fmt("5 Sep 2023"), "2023-09-05");
  EXPECT_EQ(Fmt("Tue, 15 Nov 1994 08:12:31 GMT"), "1994-11-15");
  EXPECT_EQ(Fmt("Tuesday, November 15, 1994"), "1994-11-15");
}

TEST(IngestDate, RejectsImpossibleAndMalformed) {
  for (const char* bad : {"2023-02-30", "2023-02-29", "2023-13-01", "2023-00-10", "2023-04-31", "0000-01-01",
                          "2023-8-10", "20230810", "2023-08-10x", "2023-08-10T", "Smarch 3, 2020",
                          "February 30, 2024", "31 Apr 2023", "", "   ", "August 2023", "10 August 23",
                          "2023-08-100", "Release 15.4"}) {
    EXPECT_FALSE(ParseDate(bad).has_value()) << bad;
  }
  EXPECT_EQ(Fmt("2024-02-29"), "2024-02-29");  // leap year
  EXPECT_EQ(Fmt("2000-02-29"), "2000-02-29");  // divisible by 400
  EXPECT_FALSE(ParseDate("1900-02-29").has_value());
}

// Exact oracle: walking day by day from 0001-01-01 to 9999-12-31, FormatDate and ParseDate are
// inverse and consecutive, and the calendar fields advance as a calendar does.
TEST(IngestDate, RoundTripEveryDay) {
  const DayNumber first = *ParseDate("0001-01-01");
  const DayNumber last = *ParseDate("9999-12-31");
  ASSERT_LT(first, last);
  int y = 1, m = 1, d = 1;
  auto leap = [](int yr) { return (yr % 4 == 0 && yr % 100 != 0) || yr % 400 == 0; };
  const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (DayNumber day = first; day <= last; ++day) {
    char expect[48];
    std::snprintf(expect, sizeof(expect), "%04d-%02d-%02d", y, m, d);
    const std::string got = FormatDate(day);
    ASSERT_EQ(got, expect);
    ASSERT_EQ(ParseDate(got), day);
    const int dim = m == 2 && leap(y) ? 29 : kDays[m - 1];
    if (++d > dim) {
      d = 1;
      if (++m > 12) {
        m = 1;
        ++y;
      }
    }
  }
}

}  // namespace
}  // namespace attest
