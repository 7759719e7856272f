#include "answer/tiering.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

TierChoice ChooseTier(const TierInputs& in, const TierPolicy& policy) {
  if (policy.large_for_research && in.mode == AnswerMode::kResearch) return {true, "research"};
  if (policy.large_for_comparison && (in.intent == Intent::kComparison || in.complexity == "comparison")) {
    return {true, "comparison"};
  }
  if (policy.large_for_multi_hop && (in.intent == Intent::kMultiHop || in.complexity == "multi_step")) {
    return {true, "multi_hop"};
  }
  if (in.subqueries > policy.max_subqueries_small) return {true, "subqueries=" + std::to_string(in.subqueries)};
  if (in.best_coverage < policy.min_coverage_small) {
    return {true, "coverage=" + Fixed2(in.best_coverage) + "<" + Fixed2(policy.min_coverage_small)};
  }
  return {false, "strong_evidence"};
}

size_t SplitCount(const QueryPlan& plan) {
  size_t n = 0;
  for (const SubQuery& q : plan.subqueries) n += (q.purpose != "original" && q.purpose != "rewrite") ? 1 : 0;
  return n;
}

std::string ShouldEscalate(size_t drafted, size_t kept, const TierPolicy& policy) {
  if (!policy.escalate) return "";
  if (kept == 0) return "claims_unsupported";
  if (drafted > 0 && double(kept) < policy.min_kept_share * double(drafted)) {
    return "kept=" + std::to_string(kept) + "/" + std::to_string(drafted) + "<" + Fixed2(policy.min_kept_share);
  }
  return "";
}

Result<TierPolicy> TierPolicyFromJson(std::string_view text) {
  TierPolicy p;
  if (text.empty()) return p;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument("tier profile: not a JSON object");
  for (const auto& [key, v] : j.items()) {
    auto bad = [&key = key](const std::string& what) {
      return Status::InvalidArgument("tier profile: " + key + " " + what);
    };
    if (key == "large_for_comparison" || key == "large_for_multi_hop" || key == "large_for_research" ||
        key == "escalate") {
      if (!v.is_boolean()) return bad("must be true or false");
      bool& field = key == "large_for_comparison" ? p.large_for_comparison
                    : key == "large_for_multi_hop" ? p.large_for_multi_hop
                    : key == "large_for_research"  ? p.large_for_research
                                                   : p.escalate;
      field = v.get<bool>();
    } else if (key == "max_subqueries_small") {
      if (!v.is_number_unsigned() || v.get<uint64_t>() < 1 || v.get<uint64_t>() > 64) {
        return bad("must be an integer between 1 and 64");
      }
      p.max_subqueries_small = v.get<size_t>();
    } else if (key == "min_coverage_small" || key == "min_kept_share") {
      if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1)) return bad("must be a number in [0, 1]");
      (key == "min_coverage_small" ? p.min_coverage_small : p.min_kept_share) = v.get<double>();
    } else {
      return Status::InvalidArgument("tier profile: unknown field '" + key + "'");
    }
  }
  return p;
}

}  // namespace attest
