// Numbers, dates, versions, percentages and units found in text, in a canonical form the verifier
// can compare: "1,000" == "1000", "thirty days" == "30 days", "June 30, 2026" == "30 June 2026" ==
// "2026-06-30", "30 percent" == "30%", "v17" == "17".
//
// Input is text already passed through NormalizeForQuoteMatch (case-folded, dashes unified).
// Recognised forms:
//   dates     YYYY-MM-DD; "<month> <day>[,] <year>"; "<day> <month> <year>"; "<month> <year>" (YYYY-MM)
//   numbers   digits with optional thousands commas and decimals ("1,000.5"), versions "15.4.1",
//             "v17"; ranges "10-20" give two numbers; spelled numbers two..ninety-nine (and "one" /
//             "zero" only when a unit follows)
//   units     a suffix or the next word: %, percent, ms, s, second, minute, hour, day, week, month,
//             year, kb/mb/gb/tb (and KiB...), byte, x/times; a leading '$'
//   scope     a number right after "release", "version", "versions", "major" or written "v17" is a
//             version scope: the verifier may find it in the cited passage's metadata
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attest {

struct Quantity {
  enum class Kind { kNumber, kDate };
  Kind kind = Kind::kNumber;
  std::string value;    // canonical: "1000", "15.4", "2026-06-30", "2026-06"
  std::string unit;     // canonical singular ("day", "%", "gb", "$") or ""
  bool scope = false;   // a version scope ("release 17")
  size_t begin = 0;     // byte range of the surface form in the analysed text
  size_t end = 0;

  std::string Describe() const;  // "30 day(s)", "2026-06-30", "release 17"
};

std::vector<Quantity> ExtractQuantities(std::string_view normalized_text);

// True when `needle` (from a claim) is stated by one of `haystack` (from the quotes): same kind and
// value (a claim date or year may be less precise: "June 2026" and "2026" match "2026-06-30"), and
// when the claim gives a unit the quote gives the same one (or none).
bool QuantityMatches(const Quantity& needle, const std::vector<Quantity>& haystack);

}  // namespace attest
