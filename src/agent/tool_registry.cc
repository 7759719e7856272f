#include "agent/tool_registry.h"

#include <algorithm>
#include <set>

namespace attest {
namespace {

bool WellFormedName(std::string_view n) {
  if (n.empty() || n.size() > 64 || n[0] < 'a' || n[0] > 'z') return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

const char* ToolCapabilityName(ToolCapability c) {
  switch (c) {
    case ToolCapability::kRetrieve: return "retrieve";
    case ToolCapability::kMeasure: return "measure";
    case ToolCapability::kCalculate: return "calculate";
  }
  return "unknown";
}

const std::vector<std::string>& ToolRegistry::ForbiddenNames() {
  static const std::vector<std::string> kNames = {"finalize_answer", "answer_without_evidence", "build_manifest",
                                                  "sign_manifest",   "forge_manifest",          "skip_manifest"};
  return kNames;
}

bool ToolRegistry::IsForbiddenToolName(std::string_view name) {
  // Lower-cased so that a differently spelled name cannot slip past; the patterns cover the
  // variants of the listed names ("finalize", "write_manifest", "answer_directly").
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto& exact = ForbiddenNames();
  if (std::find(exact.begin(), exact.end(), n) != exact.end()) return true;
  return n.find("manifest") != std::string::npos || n.find("finalize") != std::string::npos || n.rfind("answer", 0) == 0;
}

Result<ToolRegistry> ToolRegistry::Create(std::vector<ToolSpec> tools) {
  std::set<std::string> seen;
  for (const ToolSpec& t : tools) {
    if (IsForbiddenToolName(t.name)) {
      return Status::InvalidArgument("tool '" + t.name +
                                     "' has a forbidden name: tools may retrieve, measure and calculate, never "
                                     "finalize an answer or build a manifest");
    }
    if (!WellFormedName(t.name)) {
      return Status::InvalidArgument("tool name '" + t.name + "' is not of the form [a-z][a-z0-9_]{0,63}");
    }
    if (!seen.insert(t.name).second) return Status::InvalidArgument("tool '" + t.name + "' is registered twice");
    if (!t.handler) return Status::InvalidArgument("tool '" + t.name + "' has no handler");
    if (!t.parameters.is_object()) return Status::InvalidArgument("tool '" + t.name + "': parameters must be a JSON object schema");
  }
  ToolRegistry r;
  r.tools_ = std::move(tools);
  return r;
}

bool ToolRegistry::Has(std::string_view name) const {
  return std::any_of(tools_.begin(), tools_.end(), [&](const ToolSpec& t) { return t.name == name; });
}

Result<nlohmann::json> ToolRegistry::Dispatch(const ToolCall& call) const {
  auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolSpec& t) { return t.name == call.name; });
  if (it == tools_.end()) {
    // Shown to the model: the name is cut so that a long injected name does not flood the trace.
    return Status::NotFound("tool '" + call.name.substr(0, 64) + "' is not registered");
  }
  if (!call.arguments.is_object()) {
    return Status::InvalidArgument("tool '" + call.name + "': arguments must be a JSON object");
  }
  return it->handler(call.arguments);
}

nlohmann::json ToolRegistry::OpenAiTools() const {
  nlohmann::json out = nlohmann::json::array();
  for (const ToolSpec& t : tools_) {
    out.push_back({{"type", "function"},
                   {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
  }
  return out;
}

Result<nlohmann::json> ToolSession::Call(const ToolCall& call) {
  ToolAttempt attempt{call.name, call.arguments, StatusCode::kOk, ""};
  Result<nlohmann::json> out = Status::ResourceExhausted("the loop used its " + std::to_string(max_steps_) +
                                                         " tool steps");
  if (steps_ < max_steps_) {
    ++steps_;
    out = registry_.Dispatch(call);
  }
  if (!out.ok()) {
    attempt.code = out.status().code();
    attempt.error = out.status().message();
  }
  attempts_.push_back(std::move(attempt));
  return out;
}

}  // namespace attest
