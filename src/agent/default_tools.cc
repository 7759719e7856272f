#include "agent/default_tools.h"

#include <set>

#include "plan/calculator.h"
#include "text/analyzer.h"

namespace attest {
namespace {

constexpr size_t kMaxArgumentBytes = 4096;

// A required string argument of at most kMaxArgumentBytes.
Result<std::string> StringArg(const nlohmann::json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_string()) return Status::InvalidArgument(std::string("argument '") + name + "' must be a string");
  std::string v = it->get<std::string>();
  if (v.empty()) return Status::InvalidArgument(std::string("argument '") + name + "' is empty");
  if (v.size() > kMaxArgumentBytes) {
    return Status::InvalidArgument(std::string("argument '") + name + "' is longer than " + std::to_string(kMaxArgumentBytes) + " bytes");
  }
  return v;
}

nlohmann::json StringParams(std::initializer_list<const char*> names) {
  nlohmann::json props = nlohmann::json::object(), req = nlohmann::json::array();
  for (const char* n : names) {
    props[n] = {{"type", "string"}};
    req.push_back(n);
  }
  return {{"type", "object"}, {"properties", props}, {"required", req}, {"additionalProperties", false}};
}

}  // namespace

nlohmann::json MeasureOverlap(const Analyzer& analyzer, const std::string& claim, const std::string& passage) {
  const std::vector<std::string> c = analyzer.Terms(claim), p = analyzer.Terms(passage);
  const std::set<std::string> claim_terms(c.begin(), c.end()), passage_terms(p.begin(), p.end());
  nlohmann::json shared = nlohmann::json::array();
  for (const std::string& t : claim_terms) {
    if (passage_terms.count(t)) shared.push_back(t);
  }
  const double share = claim_terms.empty() ? 0.0 : double(shared.size()) / double(claim_terms.size());
  return {{"overlap", share}, {"claim_terms", claim_terms.size()}, {"shared_terms", shared},
          {"note", "lexical overlap of analysed terms; not entailment"}};
}

Result<ToolRegistry> DefaultAgentTools(AgentToolDeps deps) {
  if (!deps.search || !deps.read_document || deps.analyzer == nullptr) {
    return Status::InvalidArgument("agent tools need search, read_document and an analyzer");
  }
  std::vector<ToolSpec> tools;
  nlohmann::json search_params = StringParams({"query"});
  search_params["properties"]["k"] = {{"type", "integer"}, {"minimum", 1}, {"maximum", deps.max_k}};
  const size_t max_k = deps.max_k;
  auto search = deps.search;
  tools.push_back({"search", "Search the corpus the caller may read; returns ranked passages with their sources.",
                   ToolCapability::kRetrieve, search_params,
                   [search, max_k](const nlohmann::json& a) -> Result<nlohmann::json> {
                     ATTEST_ASSIGN_OR_RETURN(std::string q, StringArg(a, "query"));
                     size_t k = 10;
                     if (auto it = a.find("k"); it != a.end()) {
                       if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > int64_t(max_k)) {
                         return Status::InvalidArgument("argument 'k' must be an integer in [1, " + std::to_string(max_k) + "]");
                       }
                       k = size_t(it->get<int64_t>());
                     }
                     return search(q, k);
                   }});
  auto read = deps.read_document;
  tools.push_back({"read_document", "Read one document the caller may read, by id.", ToolCapability::kRetrieve,
                   StringParams({"id"}), [read](const nlohmann::json& a) -> Result<nlohmann::json> {
                     ATTEST_ASSIGN_OR_RETURN(std::string id, StringArg(a, "id"));
                     return read(id);
                   }});
  const Analyzer* analyzer = deps.analyzer;
  tools.push_back({"measure_overlap", "Share of a claim's terms found in a passage (lexical, not entailment).",
                   ToolCapability::kMeasure, StringParams({"claim", "passage"}),
                   [analyzer](const nlohmann::json& a) -> Result<nlohmann::json> {
                     ATTEST_ASSIGN_OR_RETURN(std::string claim, StringArg(a, "claim"));
                     ATTEST_ASSIGN_OR_RETURN(std::string passage, StringArg(a, "passage"));
                     return MeasureOverlap(*analyzer, claim, passage);
                   }});
  tools.push_back({"calculate", "Evaluate arithmetic or a unit conversion.", ToolCapability::kCalculate,
                   StringParams({"expression"}), [](const nlohmann::json& a) -> Result<nlohmann::json> {
                     ATTEST_ASSIGN_OR_RETURN(std::string e, StringArg(a, "expression"));
                     ATTEST_ASSIGN_OR_RETURN(std::optional<Calculation> c, Calculate(e));
                     if (!c) return Status::InvalidArgument("'" + e + "' is not a calculation");
                     return nlohmann::json{{"expression", c->expression}, {"value", c->value}, {"unit", c->unit},
                                           {"text", c->text}};
                   }});
  return ToolRegistry::Create(std::move(tools));
}

}  // namespace attest
