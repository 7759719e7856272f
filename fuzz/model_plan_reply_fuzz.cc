// Fuzz target: the model planner's reply validation and merge (plan/model_planner.h) on arbitrary
// bytes. The input is "<question>\n<reply>": the question is planned by the deterministic planner,
// the reply is what a planner model answered. Invariants: a rejected reply is kInvalidArgument with
// a message; for an accepted one, the merged plan keeps every deterministic leg (q0 first) with its
// id and text, adds at most max_subqueries legs, none with a hop placeholder, a quote or an excluded
// single-word term, leaves standalone, rewritten and needs_search alone, and serialises.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "plan/model_planner.h"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string question(input.substr(0, nl));
  const std::string reply_text(nl == std::string_view::npos ? "" : input.substr(nl + 1));
  static const attest::PlannerConfig config = attest::PlannerConfig::Defaults();
  attest::ModelPlannerLimits limits;
  limits.max_subqueries = 3;
  attest::Result<attest::ModelPlanReply> reply = attest::ParseModelPlanReply(reply_text, limits);
  if (!reply.ok()) {
    FUZZ_CHECK(reply.status().code() == attest::StatusCode::kInvalidArgument);
    FUZZ_CHECK(!reply.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(reply->subqueries.size() <= limits.max_subqueries);
  attest::Result<attest::QueryPlan> det = attest::PlanQuestion({question, "2025-10-02", nullptr}, config);
  if (!det.ok()) return 0;
  const attest::QueryPlan merged = attest::MergeModelPlan(*det, *reply, limits);
  FUZZ_CHECK(merged.planner.kind == "model");
  FUZZ_CHECK(merged.subqueries.size() >= det->subqueries.size());
  FUZZ_CHECK(merged.subqueries.size() <= det->subqueries.size() + limits.max_subqueries);
  for (size_t i = 0; i < det->subqueries.size(); ++i) {
    FUZZ_CHECK(merged.subqueries[i].id == det->subqueries[i].id);
    FUZZ_CHECK(merged.subqueries[i].text == det->subqueries[i].text);
  }
  FUZZ_CHECK(merged.standalone == det->standalone);
  FUZZ_CHECK(merged.rewritten == det->rewritten);
  FUZZ_CHECK(merged.needs_search == det->needs_search);
  for (size_t i = det->subqueries.size(); i < merged.subqueries.size(); ++i) {
    const std::string& text = merged.subqueries[i].text;
    FUZZ_CHECK(!text.empty());
    FUZZ_CHECK(text.find_first_of("{}\"") == std::string::npos);
    for (const std::string& e : merged.constraints.exclude) {
      if (e.find(' ') == std::string::npos) FUZZ_CHECK(!HasWord(text, e));
    }
  }
  try {
    FUZZ_CHECK(!merged.ToJson().dump().empty());
  } catch (const std::exception&) {
    FUZZ_CHECK(false && "ToJson produced invalid UTF-8");
  }
  return 0;
}
