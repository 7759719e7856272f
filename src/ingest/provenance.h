// Where a document comes from, beyond its text: the licence or terms of its source and when its text
// was fetched (docs/store_format.md, "Provenance"). Checks for both as they arrive from outside
// (DocumentSpec, IngestOptions, JSONL metadata). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attest/status.h"

namespace attest {

inline constexpr size_t kMaxLicenseBytes = 1000;

// A licence text: at most kMaxLicenseBytes of UTF-8 without control characters (tabs and line
// breaks included: it is shown on one line). kInvalidArgument naming `field` otherwise.
Status CheckLicense(std::string_view text, std::string_view field);

// "YYYY-MM-DDThh:mm:ss[.fraction]Z" (ISO 8601, UTC) as Unix milliseconds; nullopt for anything else
// (other zones, impossible dates or times, a time before 1970).
std::optional<int64_t> ParseUtcTimestamp(std::string_view text);

}  // namespace attest
