// The tools a model may call in a bounded loop (research mode's planner, an agent): they retrieve,
// measure and calculate; none of them finalizes an answer or builds a manifest. The boundary is
// structural, not instructed (docs/agent_tools.md):
//   - src/agent/ sits below evidence/, write/, verify/ and answer/ in the layer order
//     (tests/layering_test.cc), so no code here can reach the answer pipeline or the manifest;
//   - a tool's capability is one of retrieve / measure / calculate: there is no "finalize" value;
//   - registering a tool under a forbidden name (finalize_answer, build_manifest, ..., or any name
//     containing "manifest" or "finalize", or starting with "answer") fails when the registry is
//     built, so a boundary violation is a failing construction, not a prompt's promise;
//   - dispatching a name that is not registered fails closed (kNotFound) and runs nothing.
// ToolSession bounds a loop by a step budget and records every attempt, refusals included.
//
// Thread-safety: a built ToolRegistry is immutable and may be shared; handlers must be thread-safe
// if it is. A ToolSession is one loop's and is not thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attest/status.h"

namespace attest {

enum class ToolCapability { kRetrieve, kMeasure, kCalculate };
const char* ToolCapabilityName(ToolCapability c);  // "retrieve", "measure", "calculate"

// A handler gets the call's arguments (a JSON object) and returns its output (JSON). Arguments
// come from a model: handlers validate them like any untrusted input.
using ToolHandler = std::function<Result<nlohmann::json>(const nlohmann::json& arguments)>;

struct ToolSpec {
  std::string name;         // ^[a-z][a-z0-9_]{0,63}$, not forbidden
  std::string description;  // shown to the model
  ToolCapability capability = ToolCapability::kRetrieve;
  nlohmann::json parameters = nlohmann::json::object();  // JSON Schema of the arguments (an object schema)
  ToolHandler handler;
};

struct ToolCall {
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
};

class ToolRegistry {
 public:
  // kInvalidArgument naming the tool for: a forbidden name, a malformed or duplicate name, a missing
  // handler, a parameters schema that is not an object.
  static Result<ToolRegistry> Create(std::vector<ToolSpec> tools);

  // The names no tool may have (exact); IsForbiddenToolName also applies the patterns.
  static const std::vector<std::string>& ForbiddenNames();
  static bool IsForbiddenToolName(std::string_view name);

  // Runs the tool. kNotFound for a name that is not registered (nothing runs); kInvalidArgument when
  // the arguments are not a JSON object; otherwise the handler's result.
  Result<nlohmann::json> Dispatch(const ToolCall& call) const;

  bool Has(std::string_view name) const;
  // The tool list in OpenAI's chat "tools" form: [{"type":"function","function":{name,description,
  // parameters}}], in registration order.
  nlohmann::json OpenAiTools() const;
  size_t size() const { return tools_.size(); }

 private:
  std::vector<ToolSpec> tools_;
};

// One attempt of a loop: what was asked and how it ended.
struct ToolAttempt {
  std::string name;
  nlohmann::json arguments;
  StatusCode code = StatusCode::kOk;
  std::string error;  // the refusal or failure, "" when it ran
};

// A bounded loop's view of a registry: at most max_steps calls; every attempt (unknown names,
// refusals over the budget and failures included) is recorded in order.
class ToolSession {
 public:
  ToolSession(const ToolRegistry& registry, uint32_t max_steps) : registry_(registry), max_steps_(max_steps) {}
  // kResourceExhausted once max_steps calls were made (recorded, nothing runs).
  Result<nlohmann::json> Call(const ToolCall& call);
  const std::vector<ToolAttempt>& attempts() const { return attempts_; }
  uint32_t steps_used() const { return steps_; }

 private:
  const ToolRegistry& registry_;
  uint32_t max_steps_;
  uint32_t steps_ = 0;
  std::vector<ToolAttempt> attempts_;
};

}  // namespace attest
