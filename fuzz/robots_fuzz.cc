// Fuzz target: robots.txt parsing and matching (src/crawl/robots.h, robots_match.h) on arbitrary
// bytes (invalid UTF-8, NULs, odd line endings included).
// Invariants: /robots.txt is always allowed; Allowed() agrees with the rule DecidingRule() names;
// the normal form is idempotent for paths and every stored pattern is already in normal form and
// non-empty; the fast pattern matcher equals a plain backtracking matcher (the exact oracle) on
// short inputs; a pattern without '*' or '$' matches itself; parsing is deterministic.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/robots.h"
#include "crawl/robots_match.h"
#include "fuzz_check.h"

namespace {

// Exact oracle: '*' any run, a final '$' the end, every other octet itself; prefix match. A plain
// recursion over (pattern offset, path offset), memoised so that many stars stay polynomial.
class Backtracker {
 public:
  Backtracker(std::string_view pattern, std::string_view path)
      : pattern_(pattern), path_(path), memo_((pattern.size() + 1) * (path.size() + 1), -1) {}
  bool Matches(size_t k, size_t i) {
    signed char& m = memo_[k * (path_.size() + 1) + i];
    if (m < 0) m = Compute(k, i) ? 1 : 0;
    return m == 1;
  }

 private:
  bool Compute(size_t k, size_t i) {
    if (k == pattern_.size()) return true;
    if (pattern_[k] == '$' && k + 1 == pattern_.size()) return i == path_.size();
    if (pattern_[k] == '*') {
      for (size_t j = i; j <= path_.size(); ++j) {
        if (Matches(k + 1, j)) return true;
      }
      return false;
    }
    return i < path_.size() && path_[i] == pattern_[k] && Matches(k + 1, i + 1);
  }
  std::string_view pattern_;
  std::string_view path_;
  std::vector<signed char> memo_;
};

bool Backtrack(std::string_view pattern, std::string_view path) {
  return Backtracker(pattern, path).Matches(0, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const attest::RobotsRules rules = attest::RobotsRules::Parse(input, "FooBot");
  const attest::RobotsRules again = attest::RobotsRules::Parse(input, "FooBot");
  FUZZ_CHECK(rules.Rules().size() == again.Rules().size());
  FUZZ_CHECK(rules.Sitemaps() == again.Sitemaps());
  FUZZ_CHECK(rules.Allowed("/robots.txt"));

  std::vector<std::string> paths = {"/", "/" + std::string(input.substr(0, 48)),
                                    std::string(input.substr(input.size() / 2, 32))};
  size_t checked = 0;
  for (const attest::RobotsRule& rule : rules.Rules()) {
    if (++checked > 40) break;
    FUZZ_CHECK(!rule.pattern.empty());
    FUZZ_CHECK(attest::NormalizeRobotsPattern(rule.pattern) == rule.pattern);
    if (rule.pattern.find_first_of("*$") == std::string::npos) {
      FUZZ_CHECK(attest::RobotsPatternMatches(rule.pattern, rule.pattern));
    }
    std::string literal;
    for (char c : rule.pattern) {
      if (c != '*' && c != '$') literal.push_back(c);
    }
    if (paths.size() < 8) paths.push_back(literal);
  }
  for (const std::string& raw : paths) {
    const std::string path = attest::NormalizeRobotsPath(raw);
    FUZZ_CHECK(attest::NormalizeRobotsPath(path) == path);
    const attest::RobotsRule* rule = rules.DecidingRule(path);
    if (path.substr(0, path.find('?')) != "/robots.txt") {
      FUZZ_CHECK(rules.Allowed(path) == (rule == nullptr || rule->allow));
    }
    checked = 0;
    for (const attest::RobotsRule& r : rules.Rules()) {
      if (++checked > 40) break;
      if (r.pattern.size() <= 64 && path.size() <= 96) {
        FUZZ_CHECK(attest::RobotsPatternMatches(r.pattern, path) == Backtrack(r.pattern, path));
      }
    }
  }
  // The matcher alone, on two halves of the input.
  const std::string_view a = input.substr(0, std::min<size_t>(size / 2, 20));
  const std::string_view b = input.substr(size / 2, 40);
  FUZZ_CHECK(attest::RobotsPatternMatches(a, b) == Backtrack(a, b));
  return 0;
}
