// The answer pipeline's configuration, parsed once when the engine opens (EngineOptions::
// planner_config_json and source_hierarchy_json) instead of from JSON text on every answer: the
// planner's aliases and entity types (docs/planner.md) and the source hierarchy's authority tiers
// (docs/answer.md, "Source hierarchy").
//
// Thread-safety: immutable after construction; shared by every answer of an engine.
#pragma once

#include <string>

#include "answer/source_hierarchy.h"
#include "plan/query_plan.h"

namespace attest {

struct AnswerConfig {
  PlannerConfig planner = PlannerConfig::Defaults();
  SourceHierarchy hierarchy = SourceHierarchy::Defaults();

  // The defaults, built once per process.
  static const AnswerConfig& Defaults();
  // Each JSON text ("" = the defaults) parsed as PlannerConfig::FromJson and
  // SourceHierarchy::FromJson do; an error names which of the two is wrong.
  static Result<AnswerConfig> FromJson(const std::string& planner_json, const std::string& hierarchy_json);
};

}  // namespace attest
