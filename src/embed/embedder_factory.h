// Creating embedders from configuration: training and loading corpus models, constructing the
// remote client, and the JSON form of a configuration that the catalog keeps with the active
// embedder (EmbedderRecord::config_json) so that any later process can rebuild the same embedder.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "attest/clock.h"
#include "attest/engine.h"
#include "attest/status.h"
#include "embed/embedder.h"
#include "store/records.h"

namespace attest {

// "corpus-lsa", "corpus-fasttext-sif", "openai", "none".
const char* EmbedderKindName(EmbedderKind kind);
Result<EmbedderKind> ParseEmbedderKind(std::string_view name);
bool IsCorpusKind(EmbedderKind kind);

// The configuration as stored in the catalog (no secrets: only the name of the key's variable),
// with the vector index kind its segments' files are built with.
std::string EmbedderConfigJson(const EmbedderOptions& options, VectorIndexType index = VectorIndexType::kHnsw);
Result<EmbedderOptions> ParseEmbedderConfigJson(const std::string& json);
// The "index" of a stored configuration (kHnsw when absent).
Result<VectorIndexType> ParseVectorIndexType(const std::string& json);
const char* VectorIndexTypeName(VectorIndexType type);

// Trains a corpus model of `kind` (kCorpusLsa or kCorpusFastTextSif) into args.model_path.
Result<TrainedModelInfo> TrainCorpusModel(EmbedderKind kind, const EmbedderOptions& options,
                                          const CorpusTrainingArgs& args);

// What building a remote embedder needs besides its configuration (from EngineOptions).
struct RemoteEmbedderEnv {
  std::function<std::string(const std::string& variable)> credentials;  // api_key_env -> key; null = no key
  std::shared_ptr<const Embedder> injected;  // used instead of an HTTP client (identity permitting)
  const Clock* clock = nullptr;              // null = RealClock()
};

// The remote embedder of `options` (kOpenAi): `env.injected` when set and `dim` is 0 or its
// dimension, else an OpenAI-compatible client. `dim` (0 = learn) is enforced on every response.
Result<std::unique_ptr<Embedder>> CreateRemoteEmbedder(const EmbedderOptions& options, uint32_t dim,
                                                       const RemoteEmbedderEnv& env);

// Rebuilds the embedder of an active record: loads models/<model_file> for a corpus model, or
// creates the client for a remote one (the injected one when its identity is the record's). Fails
// when the result's identity differs from the record's.
Result<std::unique_ptr<Embedder>> LoadEmbedder(const EmbedderRecord& record, const std::filesystem::path& models_dir,
                                               const RemoteEmbedderEnv& env);

}  // namespace attest
