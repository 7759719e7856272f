// The calculator: questions answered in code, without retrieval.
//
// Arithmetic: + - * / ^ % (modulo), parentheses, unary minus, decimals, thousands separators
// ("1,000"), words ("what is", "calculate", "x times y", "plus", "minus", "divided by",
// "multiplied by", "to the power of", "mod") and "N% of M". A recursive-descent parser over a
// token list; no eval, no exceptions. Limits: kMaxCalcExpressionBytes of expression text and
// kMaxCalcDepth nesting levels.
// Unit conversions "<number> <unit> to|in|into|as <unit>" and "how many <unit> in <number> <unit>":
// temperature C/F/K, length km/mi/m/ft/in/cm/mm/yd, mass kg/lb/g/oz, volume l/gal (US)/ml,
// data B/KB/MB/GB/TB (SI, 1000) and KiB/MiB/GiB/TiB (IEC, 1024), time s/min/h/day/week.
// The grammar is written out in docs/planner.md.
//
// Thread-safety: pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "attest/status.h"

namespace attest {

struct Calculation {
  std::string expression;  // normalised: "17 * 23", "30 °C to °F"
  double value = 0;
  std::string unit;        // target unit symbol of a conversion ("°F"), "" for arithmetic
  std::string text;        // the shown answer: "17 * 23 = 391", "30 °C = 86 °F"
};

inline constexpr size_t kMaxCalcExpressionBytes = 256;
inline constexpr int kMaxCalcDepth = 32;

// nullopt when `text` is not a calculation. kInvalidArgument for a calculation that fails:
// division or modulo by zero, a non-finite result, too deep or too long, malformed arithmetic.
Result<std::optional<Calculation>> Calculate(std::string_view text);

// Formats a number for display: integers without decimals, others with up to `digits`
// significant digits and no trailing zeros.
std::string FormatCalcNumber(double value, int digits);

}  // namespace attest
