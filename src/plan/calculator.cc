#include "plan/calculator.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/strings.h"

namespace attest {
namespace {

// ---- text helpers -------------------------------------------------------------------------------

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  size_t pos = 0;
  while ((pos = s->find(from, pos)) != std::string::npos) {
    s->replace(pos, from.size(), to);
    pos += to.size();
  }
}

std::vector<std::string> SplitSpaces(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// YYYY-MM-DD anywhere: such text is a date, not a subtraction.
bool ContainsIsoDate(std::string_view s) {
  for (size_t i = 0; i + 10 <= s.size(); ++i) {
    bool ok = true;
    for (size_t k = 0; k < 10 && ok; ++k) {
      const char c = s[i + k];
      ok = (k == 4 || k == 7) ? c == '-' : IsDigit(c);
    }
    if (ok) return true;
  }
  return false;
}

// Lower-cases, trims, drops trailing punctuation and leading question words.
std::string Normalise(std::string_view text) {
  std::string s = AsciiLower(Trim(text));
  while (!s.empty() && (s.back() == '?' || s.back() == '!' || s.back() == '.' || s.back() == '=' ||
                        IsSpace(s.back()))) {
    s.pop_back();
  }
  static const char* const kPrefixes[] = {"please ", "what is ", "what's ", "whats ", "calculate ",
                                          "compute ", "evaluate ", "how much is ", "convert ",
                                          "what are "};
  bool changed = true;
  while (changed) {
    changed = false;
    for (const char* p : kPrefixes) {
      const std::string_view prefix(p);
      if (s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0) {
        s = std::string(Trim(std::string_view(s).substr(prefix.size())));
        changed = true;
      }
    }
  }
  return s;
}

// ---- units --------------------------------------------------------------------------------------

enum class Dim { kTemperature, kLength, kMass, kVolume, kData, kTime };

struct Unit {
  const char* symbol;
  Dim dim;
  double factor;  // to the dimension's base unit (m, g, ml, B, s); unused for temperature
  const char* names[6];
};

const Unit kUnits[] = {
    {"°C", Dim::kTemperature, 0, {"c", "celsius", "centigrade"}},
    {"°F", Dim::kTemperature, 0, {"f", "fahrenheit"}},
    {"K", Dim::kTemperature, 0, {"k", "kelvin", "kelvins"}},
    {"km", Dim::kLength, 1000, {"km", "kilometer", "kilometers", "kilometre", "kilometres"}},
    {"m", Dim::kLength, 1, {"m", "meter", "meters", "metre", "metres"}},
    {"cm", Dim::kLength, 0.01, {"cm", "centimeter", "centimeters", "centimetre", "centimetres"}},
    {"mm", Dim::kLength, 0.001, {"mm", "millimeter", "millimeters", "millimetre", "millimetres"}},
    {"mi", Dim::kLength, 1609.344, {"mi", "mile", "miles"}},
    {"ft", Dim::kLength, 0.3048, {"ft", "foot", "feet"}},
    {"in", Dim::kLength, 0.0254, {"in", "inch", "inches"}},
    {"yd", Dim::kLength, 0.9144, {"yd", "yard", "yards"}},
    {"kg", Dim::kMass, 1000, {"kg", "kilogram", "kilograms", "kilo", "kilos"}},
    {"g", Dim::kMass, 1, {"g", "gram", "grams"}},
    {"lb", Dim::kMass, 453.59237, {"lb", "lbs", "pound", "pounds"}},
    {"oz", Dim::kMass, 28.349523125, {"oz", "ounce", "ounces"}},
    {"l", Dim::kVolume, 1000, {"l", "liter", "liters", "litre", "litres"}},
    {"ml", Dim::kVolume, 1, {"ml", "milliliter", "milliliters", "millilitre", "millilitres"}},
    {"gal", Dim::kVolume, 3785.411784, {"gal", "gallon", "gallons"}},
    {"B", Dim::kData, 1, {"b", "byte", "bytes"}},
    {"KB", Dim::kData, 1e3, {"kb", "kilobyte", "kilobytes"}},
    {"MB", Dim::kData, 1e6, {"mb", "megabyte", "megabytes"}},
    {"GB", Dim::kData, 1e9, {"gb", "gigabyte", "gigabytes"}},
    {"TB", Dim::kData, 1e12, {"tb", "terabyte", "terabytes"}},
    {"KiB", Dim::kData, 1024.0, {"kib", "kibibyte", "kibibytes"}},
    {"MiB", Dim::kData, 1048576.0, {"mib", "mebibyte", "mebibytes"}},
    {"GiB", Dim::kData, 1073741824.0, {"gib", "gibibyte", "gibibytes"}},
    {"TiB", Dim::kData, 1099511627776.0, {"tib", "tebibyte", "tebibytes"}},
    {"s", Dim::kTime, 1, {"s", "sec", "secs", "second", "seconds"}},
    {"min", Dim::kTime, 60, {"min", "mins", "minute", "minutes"}},
    {"h", Dim::kTime, 3600, {"h", "hr", "hrs", "hour", "hours"}},
    {"day", Dim::kTime, 86400, {"d", "day", "days"}},
    {"week", Dim::kTime, 604800, {"wk", "week", "weeks"}},
};

const Unit* FindUnit(std::string_view name) {
  for (const Unit& u : kUnits) {
    for (const char* n : u.names) {
      if (n != nullptr && name == n) return &u;
    }
  }
  return nullptr;
}

double TemperatureToKelvin(const Unit& u, double v) {
  const char last = std::string_view(u.symbol).back();  // "°C", "°F", "K"
  if (last == 'C') return v + 273.15;
  if (last == 'F') return (v - 32) * 5.0 / 9.0 + 273.15;
  return v;
}
double KelvinTo(const Unit& u, double k) {
  const char last = std::string_view(u.symbol).back();
  if (last == 'C') return k - 273.15;
  if (last == 'F') return (k - 273.15) * 9.0 / 5.0 + 32;
  return k;
}

// Parses a plain number ("30", "-4.5", "1,000") filling all of `s`.
std::optional<double> ParsePlainNumber(std::string_view s) {
  std::string digits;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) digits += s[i++];
  bool any = false, dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (IsDigit(c)) {
      digits += c;
      any = true;
    } else if (c == '.' && !dot) {
      digits += c;
      dot = true;
    } else if (c == ',' && any && i + 1 < s.size() && IsDigit(s[i + 1]) && !dot) {
      continue;
    } else {
      return std::nullopt;
    }
  }
  if (!any || digits.size() > 40) return std::nullopt;
  return std::strtod(digits.c_str(), nullptr);
}

// "30 c to f", "10 km in mi", "how many ft in 3 m". nullopt when it is not a conversion.
Result<std::optional<Calculation>> TryConversion(std::string s) {
  ReplaceAll(&s, "°", " ");
  ReplaceAll(&s, "º", " ");
  std::vector<std::string> words = SplitSpaces(s);
  std::vector<std::string> filtered;
  for (std::string& w : words) {
    if (w == "degrees" || w == "degree" || w == "deg") continue;
    filtered.push_back(std::move(w));
  }
  words = std::move(filtered);
  // "how many <unit> (are)? in <number> <unit>" -> "<number> <unit> to <unit>".
  if (words.size() >= 5 && words[0] == "how" && words[1] == "many") {
    for (size_t k = 3; k + 2 < words.size() + 1; ++k) {
      if (words[k] != "in") continue;
      std::string target;
      size_t end = k;
      if (end > 3 && (words[end - 1] == "are" || words[end - 1] == "is")) --end;
      for (size_t t = 2; t < end; ++t) target += (target.empty() ? "" : " ") + words[t];
      std::vector<std::string> rewritten(words.begin() + static_cast<long>(k) + 1, words.end());
      rewritten.push_back("to");
      rewritten.push_back(target);
      words = rewritten;
      break;
    }
  }
  if (words.size() < 3) return std::optional<Calculation>();
  // Split a number glued to its unit: "30c", "5km".
  std::string first = words[0];
  size_t cut = 0;
  while (cut < first.size() && (IsDigit(first[cut]) || first[cut] == '.' || first[cut] == ',' ||
                                (cut == 0 && (first[cut] == '-' || first[cut] == '+')))) {
    ++cut;
  }
  std::vector<std::string> rest;
  if (cut < first.size()) rest.push_back(first.substr(cut));
  rest.insert(rest.end(), words.begin() + 1, words.end());
  const std::optional<double> amount = ParsePlainNumber(std::string_view(first).substr(0, cut));
  if (!amount || rest.size() < 3) return std::optional<Calculation>();
  for (size_t k = 1; k + 1 < rest.size(); ++k) {
    const std::string& conn = rest[k];
    if (conn != "to" && conn != "in" && conn != "into" && conn != "as") continue;
    std::string left, right;
    for (size_t t = 0; t < k; ++t) left += (left.empty() ? "" : " ") + rest[t];
    for (size_t t = k + 1; t < rest.size(); ++t) right += (right.empty() ? "" : " ") + rest[t];
    const Unit* from = FindUnit(left);
    const Unit* to = FindUnit(right);
    if (from == nullptr || to == nullptr) continue;
    if (from->dim != to->dim) {
      return Status::InvalidArgument("calculation: cannot convert " + std::string(from->symbol) +
                                     " to " + to->symbol + " (different kinds of unit)");
    }
    double value;
    if (from->dim == Dim::kTemperature) {
      value = KelvinTo(*to, TemperatureToKelvin(*from, *amount));
    } else {
      value = *amount * from->factor / to->factor;
    }
    if (!std::isfinite(value)) return Status::InvalidArgument("calculation: result is not finite");
    Calculation calc;
    const std::string a = FormatCalcNumber(*amount, 12);
    calc.expression = a + " " + from->symbol + " to " + to->symbol;
    calc.value = value;
    calc.unit = to->symbol;
    calc.text = a + " " + from->symbol + " = " + FormatCalcNumber(value, 6) + " " + to->symbol;
    return std::optional<Calculation>(std::move(calc));
  }
  return std::optional<Calculation>();
}

// ---- arithmetic ---------------------------------------------------------------------------------

struct Tok {
  char op = 0;  // 0 for a number, else one of + - * / ^ % ( )
  double num = 0;
  std::string text;
};

class Parser {
 public:
  explicit Parser(const std::vector<Tok>& toks) : toks_(toks) {}

  Result<double> Run() {
    Result<double> v = Expr(0);
    if (!v.ok()) return v;
    if (pos_ != toks_.size()) return Malformed();
    return v;
  }
  int binary_ops() const { return binary_ops_; }

 private:
  Status Malformed() const {
    return Status::InvalidArgument("calculation: malformed expression at token " + std::to_string(pos_ + 1));
  }
  Status TooDeep() const {
    return Status::InvalidArgument("calculation: expression nests deeper than " + std::to_string(kMaxCalcDepth));
  }
  bool Peek(char op) const { return pos_ < toks_.size() && toks_[pos_].op == op; }

  Result<double> Expr(int depth) {
    if (depth > kMaxCalcDepth) return TooDeep();
    Result<double> left = Term(depth);
    if (!left.ok()) return left;
    double v = *left;
    while (Peek('+') || Peek('-')) {
      const char op = toks_[pos_++].op;
      ++binary_ops_;
      Result<double> right = Term(depth);
      if (!right.ok()) return right;
      v = op == '+' ? v + *right : v - *right;
      if (!std::isfinite(v)) return Status::InvalidArgument("calculation: result is not finite");
    }
    return v;
  }

  Result<double> Term(int depth) {
    if (depth > kMaxCalcDepth) return TooDeep();
    Result<double> left = Unary(depth);
    if (!left.ok()) return left;
    double v = *left;
    while (Peek('*') || Peek('/') || Peek('%')) {
      const char op = toks_[pos_++].op;
      ++binary_ops_;
      Result<double> right = Unary(depth);
      if (!right.ok()) return right;
      if ((op == '/' || op == '%') && *right == 0) {
        return Status::InvalidArgument(op == '/' ? "calculation: division by zero" : "calculation: modulo by zero");
      }
      v = op == '*' ? v * *right : op == '/' ? v / *right : std::fmod(v, *right);
      if (!std::isfinite(v)) return Status::InvalidArgument("calculation: result is not finite");
    }
    return v;
  }

  Result<double> Unary(int depth) {
    if (depth > kMaxCalcDepth) return TooDeep();
    if (Peek('-') || Peek('+')) {
      const bool neg = toks_[pos_++].op == '-';
      Result<double> v = Unary(depth + 1);
      if (!v.ok()) return v;
      return neg ? -*v : *v;
    }
    return Power(depth);
  }

  // Right-associative: 2^3^2 = 2^9; -2^2 = -(2^2).
  Result<double> Power(int depth) {
    if (depth > kMaxCalcDepth) return TooDeep();
    Result<double> base = Primary(depth);
    if (!base.ok()) return base;
    if (!Peek('^')) return base;
    ++pos_;
    ++binary_ops_;
    Result<double> exp = Unary(depth + 1);
    if (!exp.ok()) return exp;
    const double v = std::pow(*base, *exp);
    if (!std::isfinite(v)) return Status::InvalidArgument("calculation: result is not finite");
    return v;
  }

  Result<double> Primary(int depth) {
    if (depth > kMaxCalcDepth) return TooDeep();
    if (pos_ >= toks_.size()) return Malformed();
    if (toks_[pos_].op == 0) return toks_[pos_++].num;
    if (toks_[pos_].op != '(') return Malformed();
    ++pos_;
    Result<double> v = Expr(depth + 1);
    if (!v.ok()) return v;
    if (!Peek(')')) return Malformed();
    ++pos_;
    return v;
  }

  const std::vector<Tok>& toks_;
  size_t pos_ = 0;
  int binary_ops_ = 0;
};

// Tokenises; nullopt when a character or number does not belong to arithmetic.
std::optional<std::vector<Tok>> Lex(std::string_view s) {
  std::vector<Tok> toks;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (IsSpace(c)) {
      ++i;
    } else if (IsDigit(c) || c == '.') {
      size_t j = i;
      int dots = 0;
      while (j < s.size() && (IsDigit(s[j]) || s[j] == '.')) dots += s[j++] == '.';
      if (dots > 1 || j - i > 40 || (j - i == 1 && c == '.')) return std::nullopt;
      Tok t;
      t.text = std::string(s.substr(i, j - i));
      t.num = std::strtod(t.text.c_str(), nullptr);
      toks.push_back(std::move(t));
      i = j;
    } else if (std::string_view("+-*/^%()").find(c) != std::string_view::npos) {
      Tok t;
      t.op = c;
      t.text = std::string(1, c);
      toks.push_back(std::move(t));
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return toks;
}

std::string ExpressionText(const std::vector<Tok>& toks) {
  std::string out;
  bool prev_unary = false;
  for (size_t k = 0; k < toks.size(); ++k) {
    const Tok& t = toks[k];
    const bool unary = (t.op == '-' || t.op == '+') &&
                       (k == 0 || (toks[k - 1].op != 0 && toks[k - 1].op != ')'));
    if (!out.empty() && out.back() != '(' && t.op != ')' && !prev_unary) out += ' ';
    out += t.op == 0 ? FormatCalcNumber(t.num, 12) : t.text;
    prev_unary = unary;
  }
  return out;
}

Result<std::optional<Calculation>> TryArithmetic(std::string s) {
  s = " " + s + " ";
  ReplaceAll(&s, "×", "*");
  ReplaceAll(&s, "÷", "/");
  ReplaceAll(&s, "% of ", " /100* ");
  ReplaceAll(&s, " percent of ", " /100* ");
  static const std::pair<const char*, const char*> kWords[] = {
      {" multiplied by ", " * "}, {" divided by ", " / "}, {" to the power of ", " ^ "},
      {" times ", " * "},         {" plus ", " + "},       {" minus ", " - "},
      {" modulo ", " % "},        {" mod ", " % "},        {" x ", " * "},
      {" squared ", " ^2 "},      {" cubed ", " ^3 "}};
  for (const auto& [from, to] : kWords) {
    ReplaceAll(&s, from, to);
    ReplaceAll(&s, from, to);  // overlapping occurrences ("2 x 3 x 4")
  }
  // Thousands separators between digits.
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ',' && i > 0 && IsDigit(s[i - 1]) && i + 1 < s.size() && IsDigit(s[i + 1])) continue;
    t += s[i];
  }
  std::optional<std::vector<Tok>> toks = Lex(t);
  if (!toks || toks->empty()) return std::optional<Calculation>();
  bool has_number = false, has_op = false;
  for (const Tok& k : *toks) {
    has_number |= k.op == 0;
    has_op |= k.op != 0 && k.op != '(' && k.op != ')';
  }
  if (!has_number || !has_op) return std::optional<Calculation>();
  const std::string trimmed(Trim(t));
  if (trimmed.size() > kMaxCalcExpressionBytes) {
    return Status::InvalidArgument("calculation: expression longer than " +
                                   std::to_string(kMaxCalcExpressionBytes) + " bytes");
  }
  Parser parser(*toks);
  Result<double> v = parser.Run();
  if (!v.ok()) return v.status();
  if (parser.binary_ops() == 0) return std::optional<Calculation>();  // "-5" is a number, not a sum
  Calculation calc;
  calc.expression = ExpressionText(*toks);
  calc.value = *v == 0 ? 0 : *v;  // no "-0"
  calc.text = calc.expression + " = " + FormatCalcNumber(calc.value, 12);
  return std::optional<Calculation>(std::move(calc));
}

}  // namespace

std::string FormatCalcNumber(double value, int digits) {
  if (value == 0) return "0";
  char buf[64];
  if (std::fabs(value) < 1e15 && value == std::round(value)) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, value);
  }
  return buf;
}

Result<std::optional<Calculation>> Calculate(std::string_view text) {
  if (text.size() > 4 * kMaxCalcExpressionBytes + 64) {
    // Far too long to be a calculation we accept; still reject clearly if it is only arithmetic.
    const std::string s = Normalise(text.substr(0, 4 * kMaxCalcExpressionBytes));
    if (Lex(s).has_value()) {
      return Status::InvalidArgument("calculation: expression longer than " +
                                     std::to_string(kMaxCalcExpressionBytes) + " bytes");
    }
    return std::optional<Calculation>();
  }
  if (ContainsIsoDate(text)) return std::optional<Calculation>();
  const std::string s = Normalise(text);
  if (s.empty()) return std::optional<Calculation>();
  Result<std::optional<Calculation>> conv = TryConversion(s);
  if (!conv.ok() || conv->has_value()) return conv;
  return TryArithmetic(s);
}

}  // namespace attest
