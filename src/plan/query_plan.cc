// QueryPlan serialisation and the planner configuration (alias table).
#include "plan/query_plan.h"

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "plan/plan_internal.h"

namespace attest {

const char* IntentName(Intent intent) {
  switch (intent) {
    case Intent::kFact: return "fact";
    case Intent::kReleaseDelta: return "release_delta";
    case Intent::kComparison: return "comparison";
    case Intent::kHowTo: return "how_to";
    case Intent::kDefinition: return "definition";
    case Intent::kNavigational: return "navigational";
    case Intent::kCalculation: return "calculation";
    case Intent::kGreeting: return "greeting";
    case Intent::kMultiHop: return "multi_hop";
  }
  return "fact";
}

const char* FocusName(Focus focus) {
  switch (focus) {
    case Focus::kNone: return "none";
    case Focus::kValue: return "value";
    case Focus::kNumber: return "number";
    case Focus::kDate: return "date";
    case Focus::kVersion: return "version";
    case Focus::kName: return "name";
    case Focus::kDefinition: return "definition";
    case Focus::kProcedure: return "procedure";
    case Focus::kYesNo: return "yes_no";
    case Focus::kList: return "list";
    case Focus::kComparison: return "comparison";
    case Focus::kReason: return "reason";
  }
  return "none";
}

namespace {
nlohmann::json OptionalString(const std::optional<std::string>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json QueryPlan::ToJson() const {
  nlohmann::json j;
  j["original"] = original;
  j["standalone"] = standalone;
  j["intent"] = IntentName(intent);
  j["focus"] = FocusName(focus);
  j["subject"] = subject;
  j["entities"] = nlohmann::json::array();
  for (const PlanEntity& e : entities) {
    j["entities"].push_back({{"text", e.text}, {"canonical", e.canonical}, {"type", e.type}});
  }
  j["topic_terms"] = topic_terms;
  j["mentioned_versions"] = mentioned_versions;
  j["time"] = {{"relative", time.relative},
               {"from", OptionalString(time.from)},
               {"to", OptionalString(time.to)},
               {"resolved_at", time.resolved_at},
               {"needs_current_version", time.needs_current_version}};
  j["constraints"] = {{"exclude", constraints.exclude}, {"scope", constraints.scope}};
  j["operators"] = {{"phrases", operators.phrases},
                    {"sites", operators.sites},
                    {"versions", operators.versions},
                    {"types", operators.types},
                    {"before", OptionalString(operators.before)},
                    {"after", OptionalString(operators.after)}};
  j["subqueries"] = nlohmann::json::array();
  for (const SubQuery& q : subqueries) {
    j["subqueries"].push_back({{"id", q.id}, {"text", q.text}, {"purpose", q.purpose}});
  }
  j["rewritten"] = rewritten;
  j["needs_search"] = needs_search;
  if (calculation) {
    j["calculation"] = {{"expression", calculation->expression},
                        {"value", calculation->value},
                        {"unit", calculation->unit},
                        {"text", calculation->text}};
  } else {
    j["calculation"] = nullptr;
  }
  j["resolved_version"] = resolved_version;
  j["notes"] = notes;
  nlohmann::json planner_json = {{"kind", planner.kind},
                                 {"model", planner.model.empty() ? nlohmann::json(nullptr) : nlohmann::json(planner.model)},
                                 {"fallback", OptionalString(planner.fallback)},
                                 {"latency_ms", planner.latency_ms ? nlohmann::json(*planner.latency_ms) : nlohmann::json(nullptr)}};
  if (planner.model_needs_search) {
    planner_json["classification"] = {{"intent", planner.model_intent},
                                      {"freshness", planner.freshness},
                                      {"complexity", planner.complexity},
                                      {"needs_search", *planner.model_needs_search}};
  }
  j["planner"] = std::move(planner_json);
  return j;
}

PlannerConfig PlannerConfig::Defaults() {
  PlannerConfig c;
  const std::pair<const char*, const char*> kAliases[] = {
      {"postgres", "postgresql"}, {"pg", "postgresql"},        {"postgresql", "postgresql"},
      {"pgsql", "postgresql"},    {"k8s", "kubernetes"},       {"kube", "kubernetes"},
      {"kubernetes", "kubernetes"}, {"mysql", "mysql"},        {"sqlite", "sqlite"},
      {"sqlite3", "sqlite"},      {"mongo", "mongodb"},        {"mongodb", "mongodb"},
      {"elasticsearch", "elasticsearch"}, {"elastic search", "elasticsearch"},
      {"js", "javascript"},       {"javascript", "javascript"}, {"node.js", "nodejs"},
      {"nodejs", "nodejs"}};
  for (const auto& [alias, canonical] : kAliases) c.aliases[alias] = canonical;
  for (const char* s : {"postgresql", "kubernetes", "mysql", "sqlite", "mongodb", "elasticsearch",
                        "javascript", "nodejs"}) {
    c.entity_types[s] = "software";
  }
  return c;
}

Result<PlannerConfig> PlannerConfig::FromJson(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("planner config: not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("planner config: expected a JSON object");
  PlannerConfig c = Defaults();
  for (const auto& [key, value] : j.items()) {
    if (key != "aliases" && key != "entity_types") {
      return Status::InvalidArgument("planner config: unknown field '" + key +
                                     "' (expected aliases, entity_types)");
    }
    if (!value.is_object()) {
      return Status::InvalidArgument("planner config: field '" + key + "' must be an object");
    }
    for (const auto& [k, v] : value.items()) {
      const std::string field = key + "." + k;
      if (!v.is_string()) {
        return Status::InvalidArgument("planner config: field '" + field + "' must be a string");
      }
      const std::string name = CollapseWhitespace(AsciiLower(k), Nbsp::kKeep);
      const std::string target = CollapseWhitespace(AsciiLower(v.get<std::string>()), Nbsp::kKeep);
      if (name.empty() || target.empty()) {
        return Status::InvalidArgument("planner config: field '" + field + "' has an empty name or value");
      }
      if (key == "aliases") {
        c.aliases[name] = target;
      } else {
        c.entity_types[name] = target;
      }
    }
  }
  return c;
}

}  // namespace attest
