// The default tool set of a bounded loop: search and read (retrieve, through handlers the
// composition root binds to the caller's identity, so access control stays the index's), term overlap
// of a claim with a passage (measure) and the calculator (calculate). None can write an answer.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/tool_registry.h"
#include "attest/status.h"

namespace attest {

class Analyzer;

struct AgentToolDeps {
  // {query, k} -> ranked hits as JSON; bound to one caller by whoever builds the registry.
  std::function<Result<nlohmann::json>(const std::string& query, size_t k)> search;
  // document id -> the document as JSON, or kNotFound (also for documents the caller may not read).
  std::function<Result<nlohmann::json>(const std::string& id)> read_document;
  const Analyzer* analyzer = nullptr;  // for measure_overlap; must outlive the registry
  size_t max_k = 20;
};

// kInvalidArgument when a dependency is missing.
Result<ToolRegistry> DefaultAgentTools(AgentToolDeps deps);

// The share of the claim's distinct analysed terms that the passage contains, and those terms.
nlohmann::json MeasureOverlap(const Analyzer& analyzer, const std::string& claim, const std::string& passage);

}  // namespace attest
