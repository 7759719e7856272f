#include "answer/answer_config.h"

namespace attest {

const AnswerConfig& AnswerConfig::Defaults() {
  static const AnswerConfig kDefaults;
  return kDefaults;
}

Result<AnswerConfig> AnswerConfig::FromJson(const std::string& planner_json, const std::string& hierarchy_json) {
  AnswerConfig c;
  if (!planner_json.empty()) {
    auto p = PlannerConfig::FromJson(planner_json);
    if (!p.ok()) return p.status().WithContext("planner configuration");
    c.planner = std::move(p).value();
  }
  if (!hierarchy_json.empty()) {
    auto h = SourceHierarchy::FromJson(hierarchy_json);
    if (!h.ok()) return h.status().WithContext("source hierarchy");
    c.hierarchy = std::move(h).value();
  }
  return c;
}

}  // namespace attest
