// Fuzz target: the query planner and the calculator on arbitrary bytes (invalid UTF-8 included).
// The input is "<question>\n<follow-up>"; the follow-up is planned with the first plan as previous.
// Invariants for every OK plan: q0 exists and is the standalone question (a word's leading +/-
// dropped), no exclude term is a
// positive word of `rewritten`, every scope word is in `rewritten`, needs_search is false exactly
// for greetings and calculations, and the JSON form serialises (valid UTF-8 throughout).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "plan/calculator.h"
#include "plan/query_plan.h"

namespace {

bool HasWord(const std::string& text, const std::string& word) {
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = text.find(' ', i);
    const size_t e = j == std::string::npos ? text.size() : j;
    if (text.compare(i, e - i, word) == 0) return true;
    i = e + 1;
  }
  return false;
}

// The standalone question as q0 carries it: a word's leading + or - dropped (docs/planner.md).
std::string WithoutSigns(const std::string& text) {
  std::string out, word;
  const auto flush = [&] {
    size_t b = 0;
    while (b < word.size() && (word[b] == '-' || word[b] == '+')) ++b;
    if (b < word.size()) out += (out.empty() ? "" : " ") + word.substr(b);
    word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

void CheckPlan(const attest::QueryPlan& p) {
  FUZZ_CHECK(!p.subqueries.empty());
  FUZZ_CHECK(p.subqueries[0].id == "q0");
  // Greetings and calculations retrieve nothing: their q0 is the text as written.
  FUZZ_CHECK(p.subqueries[0].text == (p.needs_search ? WithoutSigns(p.standalone) : p.standalone));
  const bool no_search = p.intent == attest::Intent::kGreeting || p.intent == attest::Intent::kCalculation;
  FUZZ_CHECK(p.needs_search != no_search);
  FUZZ_CHECK(p.calculation.has_value() == (p.intent == attest::Intent::kCalculation));
  for (const std::string& e : p.constraints.exclude) {
    FUZZ_CHECK(!e.empty());
    if (e.find(' ') == std::string::npos) FUZZ_CHECK(!HasWord(p.rewritten, e));
  }
  if (p.needs_search) {
    for (const std::string& s : p.constraints.scope) {
      FUZZ_CHECK(!s.empty());
      if (s.find(' ') == std::string::npos) FUZZ_CHECK(p.rewritten.find(s) != std::string::npos);
    }
  }
  try {
    const std::string dump = p.ToJson().dump();
    FUZZ_CHECK(!dump.empty());
  } catch (const std::exception&) {
    FUZZ_CHECK(false && "ToJson produced invalid UTF-8");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string first(input.substr(0, nl));
  const std::string second(nl == std::string_view::npos ? "" : input.substr(nl + 1));
  static const attest::PlannerConfig config = attest::PlannerConfig::Defaults();
  (void)attest::Calculate(input);
  attest::PlanArgs args{first, "2025-10-02", nullptr};
  attest::Result<attest::QueryPlan> plan = attest::PlanQuestion(args, config);
  if (!plan.ok()) {
    FUZZ_CHECK(plan.status().code() == attest::StatusCode::kInvalidArgument);
    FUZZ_CHECK(!plan.status().message().empty());
    return 0;
  }
  CheckPlan(*plan);
  attest::PlanArgs follow{second, "2025-10-02", &*plan};
  attest::Result<attest::QueryPlan> next = attest::PlanQuestion(follow, config);
  if (next.ok()) CheckPlan(*next);
  return 0;
}
