// Translating CLI flags into engine and search options.
#include "cli/commands.h"

#include <cstdlib>

#include "common/file_util.h"
#include "embed/embedder_factory.h"

namespace attest::cli {

std::string KeyFromEnvironment(const std::string& variable) {
  if (variable.empty()) return "";
  const char* v = std::getenv(variable.c_str());
  return v != nullptr ? v : "";
}

Result<EngineOptions> MakeEngineOptions(const GlobalArgs& g, bool read_only) {
  EngineOptions eo;
  eo.data_dir = g.data_dir;
  eo.read_only = read_only;
  eo.threads = g.threads;
  eo.credentials = KeyFromEnvironment;
  if (!g.access_levels.empty()) {
    eo.access_levels = SplitList(g.access_levels);
    for (size_t i = 0; i < eo.access_levels.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (eo.access_levels[i] == eo.access_levels[j]) {
          return Status::InvalidArgument("--access-levels: '" + eo.access_levels[i] + "' is listed twice");
        }
      }
    }
    if (eo.access_levels.empty()) return Status::InvalidArgument("--access-levels: no level given");
  }
  auto kind = ParseEmbedderKind(g.embedder);
  if (!kind.ok()) return kind.status().WithContext("--embedder");
  eo.embedder.kind = *kind;
  eo.embedder.base_url = g.embed_url;
  eo.embedder.model = g.embed_model;
  eo.embedder.api_key_env = g.embed_key_env;
  eo.embedder.dim = g.embed_dim;
  eo.embedder.seed = g.embed_seed;
  eo.embedder.min_chunks = g.embed_min_chunks;
  eo.embedder.retrain_growth = g.retrain_growth;
  if (eo.embedder.kind == EmbedderKind::kOpenAi && (g.embed_url.empty() || g.embed_model.empty())) {
    return Status::InvalidArgument("--embedder openai needs --embed-url and --embed-model");
  }
  eo.llm.base_url = g.llm_url;
  eo.llm.model = g.llm_model;
  eo.llm.api_key_env = g.llm_key_env;
  eo.llm.prompt_price_per_mtok = g.llm_prompt_price;
  eo.llm.completion_price_per_mtok = g.llm_completion_price;
  if (!g.llm_url.empty() && g.llm_model.empty()) return Status::InvalidArgument("--llm-url needs --llm-model");
  eo.llm_large.base_url = g.llm_large_url;
  eo.llm_large.model = g.llm_large_model;
  eo.llm_large.api_key_env = g.llm_large_key_env;
  eo.llm_large.prompt_price_per_mtok = g.llm_large_prompt_price;
  eo.llm_large.completion_price_per_mtok = g.llm_large_completion_price;
  if (!g.llm_large_url.empty() && g.llm_large_model.empty()) {
    return Status::InvalidArgument("--llm-large-url needs --llm-large-model");
  }
  if (!g.llm_large_url.empty() && g.llm_url.empty()) {
    return Status::InvalidArgument("--llm-large-url needs --llm-url (the small tier)");
  }
  if (!g.tier_profile.empty()) {
    auto text = ReadFileToString(g.tier_profile, 1 << 20);
    if (!text.ok()) return text.status().WithContext("--tier-profile");
    eo.tier_profile_json = std::move(text).value();
  }
  eo.planner_model.prompt_price_per_mtok = g.planner_prompt_price;
  eo.planner_model.completion_price_per_mtok = g.planner_completion_price;
  eo.prices.per_search = g.price_search;
  eo.prices.per_fetch = g.price_fetch;
  eo.prices.per_rerank_pair = g.price_rerank_pair;
  eo.planner_model.base_url = g.planner_url;
  eo.planner_model.model = g.planner_model;
  eo.planner_model.api_key_env = g.planner_key_env;
  eo.planner_model.timeout_ms = g.planner_timeout_ms;
  eo.planner_model.max_subqueries = g.planner_max_subqueries;
  if (!g.planner_url.empty() && g.planner_model.empty()) {
    return Status::InvalidArgument("--planner-url needs --planner-model");
  }
  eo.rerank.base_url = g.rerank_url;
  eo.rerank.model = g.rerank_model;
  eo.rerank.api = g.rerank_api;
  if (!g.rerank_url.empty() && g.rerank_model.empty()) {
    return Status::InvalidArgument("--rerank-url needs --rerank-model");
  }
  if (g.vector_index == "hnsw") {
    eo.vector_index = VectorIndexType::kHnsw;
  } else if (g.vector_index == "flat") {
    eo.vector_index = VectorIndexType::kFlat;
  } else if (g.vector_index == "ivfpq") {
    eo.vector_index = VectorIndexType::kIvfPq;
  } else {
    return Status::InvalidArgument("--vector-index '" + g.vector_index + "' is unknown (hnsw, flat, ivfpq)");
  }
  ATTEST_ASSIGN_OR_RETURN(eo.fault_hook, FaultHookFromEnvironment());
  return eo;
}

std::string FailureText(const Status& s, const std::string& data_dir) {
  if (s.code() != StatusCode::kNoSpace) return s.ToString();
  return "the disk holding " + data_dir +
         " is full (no space left on device, ENOSPC): the operation that hit it changed nothing, and everything "
         "committed before is intact and searchable. Free space and run the command again. (" + s.message() + ")";
}

Result<SearchMode> ParseSearchMode(const std::string& name) {
  for (SearchMode m : {SearchMode::kAuto, SearchMode::kBm25, SearchMode::kVector, SearchMode::kHybrid}) {
    if (name == SearchModeName(m)) return m;
  }
  return Status::InvalidArgument("--mode '" + name + "' is unknown (auto, bm25, vector, hybrid)");
}

Status ApplyRetrievalArgs(const RetrievalArgs& r, SearchOptions* so) {
  ATTEST_ASSIGN_OR_RETURN(so->mode, ParseSearchMode(r.mode));
  if (r.fusion == "linear") {
    so->fusion.method = FusionMethod::kLinear;
  } else if (r.fusion == "rrf") {
    so->fusion.method = FusionMethod::kRrf;
  } else {
    return Status::InvalidArgument("--fusion '" + r.fusion + "' is unknown (linear, rrf)");
  }
  if (r.norm == "minmax") {
    so->fusion.normalization = ScoreNormalization::kMinMax;
  } else if (r.norm == "zscore") {
    so->fusion.normalization = ScoreNormalization::kZScore;
  } else {
    return Status::InvalidArgument("--norm '" + r.norm + "' is unknown (minmax, zscore)");
  }
  if (!(r.vector_weight >= 0 && r.vector_weight <= 1)) {
    return Status::InvalidArgument("--vector-weight must be between 0 and 1");
  }
  so->fusion.vector_weight = r.vector_weight;
  so->fusion.rrf_k = r.rrf_k;
  so->candidates = r.candidates;
  if (!r.field_weights.empty()) {
    std::vector<float> w;
    for (const std::string& part : SplitList(r.field_weights)) {
      char* end = nullptr;
      const float v = std::strtof(part.c_str(), &end);
      if (end == part.c_str() || *end != '\0' || !(v >= 0 && v <= 1e4f)) {
        return Status::InvalidArgument("--field-weights '" + r.field_weights + "': '" + part +
                                       "' is not a weight between 0 and 10000");
      }
      w.push_back(v);
    }
    if (w.size() < 3 || w.size() > 4) {
      return Status::InvalidArgument("--field-weights takes 3 or 4 weights: title,section,body[,term]");
    }
    so->title_weight = w[0];
    so->section_weight = w[1];
    so->body_weight = w[2];
    if (w.size() == 4) so->term_weight = w[3];
  }
  return Status::Ok();
}

}  // namespace attest::cli
