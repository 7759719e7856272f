// Calendar dates as day numbers: parsing the date forms sources use and formatting them back.
// Used by ingestion (published/updated dates), the store (date columns), the planner (time
// constraints) and search filters. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attest {

// Days since 1970-01-01 (UTC). Used for published/updated dates and date-range filters.
using DayNumber = int32_t;

// Parses "YYYY-MM-DD" (and the longer ISO 8601 forms starting with it) or "Month D, YYYY" /
// "D Month YYYY"; returns nullopt for anything else or impossible dates.
std::optional<DayNumber> ParseDate(std::string_view text);
// "YYYY-MM-DD".
std::string FormatDate(DayNumber day);
// "YYYY-MM-DDThh:mm:ssZ" (ISO 8601, UTC; milliseconds dropped) of Unix milliseconds.
std::string FormatUtcTimestamp(int64_t unix_ms);

}  // namespace attest
