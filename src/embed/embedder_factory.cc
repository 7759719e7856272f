#include "embed/embedder_factory.h"

#include <nlohmann/json.hpp>

#include "embed/fasttext_sif_model.h"
#include "embed/lsa_model.h"
#include "embed/openai_embedder.h"

namespace attest {

const char* EmbedderKindName(EmbedderKind kind) {
  switch (kind) {
    case EmbedderKind::kCorpusLsa: return "corpus-lsa";
    case EmbedderKind::kCorpusFastTextSif: return "corpus-fasttext-sif";
    case EmbedderKind::kOpenAi: return "openai";
    case EmbedderKind::kNone: return "none";
  }
  return "none";
}

Result<EmbedderKind> ParseEmbedderKind(std::string_view name) {
  for (EmbedderKind k : {EmbedderKind::kCorpusLsa, EmbedderKind::kCorpusFastTextSif, EmbedderKind::kOpenAi,
                         EmbedderKind::kNone}) {
    if (name == EmbedderKindName(k)) return k;
  }
  return Status::InvalidArgument("unknown embedder '" + std::string(name) +
                                 "' (expected corpus-lsa, corpus-fasttext-sif, openai or none)");
}

bool IsCorpusKind(EmbedderKind kind) {
  return kind == EmbedderKind::kCorpusLsa || kind == EmbedderKind::kCorpusFastTextSif;
}

const char* VectorIndexTypeName(VectorIndexType type) {
  switch (type) {
    case VectorIndexType::kHnsw: return "hnsw";
    case VectorIndexType::kFlat: return "flat";
    case VectorIndexType::kIvfPq: return "ivfpq";
  }
  return "hnsw";
}

Result<VectorIndexType> ParseVectorIndexType(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::Corruption("embedder configuration in the catalog is not a JSON object");
  if (!j.contains("index")) return VectorIndexType::kHnsw;
  if (j["index"].is_string()) {
    for (VectorIndexType t : {VectorIndexType::kHnsw, VectorIndexType::kFlat, VectorIndexType::kIvfPq}) {
      if (j["index"].get<std::string>() == VectorIndexTypeName(t)) return t;
    }
  }
  return Status::Corruption("embedder configuration in the catalog names an unknown vector index: " +
                            j["index"].dump());
}

std::string EmbedderConfigJson(const EmbedderOptions& o, VectorIndexType index) {
  nlohmann::json j = {{"kind", EmbedderKindName(o.kind)}, {"index", VectorIndexTypeName(index)}};
  if (IsCorpusKind(o.kind)) {
    j["dim"] = o.dim;
    j["seed"] = o.seed;
  } else if (o.kind == EmbedderKind::kOpenAi) {
    j["base_url"] = o.base_url;
    j["model"] = o.model;
    j["api_key_env"] = o.api_key_env;
    j["batch_size"] = o.batch_size;
    j["timeout_ms"] = o.timeout_ms;
  }
  return j.dump();
}

Result<EmbedderOptions> ParseEmbedderConfigJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) {
    return Status::Corruption("embedder configuration in the catalog " + why + ": " + text.substr(0, 200));
  };
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return bad("has no kind");
  EmbedderOptions o;
  auto kind = ParseEmbedderKind(j["kind"].get<std::string>());
  if (!kind.ok()) return bad("names an unknown kind");
  o.kind = *kind;
  auto str = [&](const char* k, std::string* out) {
    if (j.contains(k) && j[k].is_string()) *out = j[k].get<std::string>();
  };
  auto u64 = [&](const char* k, auto* out) {
    if (j.contains(k) && j[k].is_number_unsigned()) *out = j[k].get<std::remove_pointer_t<decltype(out)>>();
  };
  u64("dim", &o.dim);
  u64("seed", &o.seed);
  str("base_url", &o.base_url);
  str("model", &o.model);
  str("api_key_env", &o.api_key_env);
  u64("batch_size", &o.batch_size);
  u64("timeout_ms", &o.timeout_ms);
  return o;
}

Result<TrainedModelInfo> TrainCorpusModel(EmbedderKind kind, const EmbedderOptions& options,
                                          const CorpusTrainingArgs& args) {
  CorpusTrainingArgs a = args;
  if (options.dim) a.dim = options.dim;
  a.seed = options.seed;
  switch (kind) {
    case EmbedderKind::kCorpusLsa: return TrainLsaModel(a);
    case EmbedderKind::kCorpusFastTextSif: return TrainFastTextSifModel(a);
    default: return Status::InvalidArgument(std::string(EmbedderKindName(kind)) + " is not a corpus model");
  }
}

namespace {

// An injected embedder behind the unique_ptr the factory returns (its owner shares it).
class SharedEmbedder final : public Embedder {
 public:
  explicit SharedEmbedder(std::shared_ptr<const Embedder> e) : e_(std::move(e)) {}
  const EmbedderIdentity& identity() const override { return e_->identity(); }
  Result<std::vector<float>> Embed(std::span<const std::string_view> texts, EmbedPurpose purpose) const override {
    return e_->Embed(texts, purpose);
  }

 private:
  std::shared_ptr<const Embedder> e_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> CreateRemoteEmbedder(const EmbedderOptions& o, uint32_t dim,
                                                       const RemoteEmbedderEnv& env) {
  if (o.kind != EmbedderKind::kOpenAi) return Status::InvalidArgument("not a remote embedder");
  if (env.injected != nullptr && (dim == 0 || env.injected->identity().dim == dim)) {
    return std::unique_ptr<Embedder>(std::make_unique<SharedEmbedder>(env.injected));
  }
  OpenAiEmbedderOptions oo;
  oo.endpoint.base_url = o.base_url;
  oo.endpoint.model = o.model;
  if (env.credentials && !o.api_key_env.empty()) oo.endpoint.api_key = env.credentials(o.api_key_env);
  oo.endpoint.timeout_ms = o.timeout_ms;
  oo.endpoint.clock = env.clock;
  oo.dimension = dim;
  oo.batch_size = o.batch_size;
  ATTEST_ASSIGN_OR_RETURN(auto e, OpenAiEmbedder::Create(oo));
  return std::unique_ptr<Embedder>(std::move(e));
}

Result<std::unique_ptr<Embedder>> LoadEmbedder(const EmbedderRecord& rec, const std::filesystem::path& models_dir,
                                               const RemoteEmbedderEnv& env) {
  ATTEST_ASSIGN_OR_RETURN(EmbedderOptions o, ParseEmbedderConfigJson(rec.config_json));
  std::unique_ptr<Embedder> e;
  if (o.kind == EmbedderKind::kCorpusLsa) {
    ATTEST_ASSIGN_OR_RETURN(e, LoadLsaModel(models_dir / rec.model_file));
  } else if (o.kind == EmbedderKind::kCorpusFastTextSif) {
    ATTEST_ASSIGN_OR_RETURN(e, LoadFastTextSifModel(models_dir / rec.model_file));
  } else if (o.kind == EmbedderKind::kOpenAi) {
    RemoteEmbedderEnv http_env = env;
    if (env.injected != nullptr && env.injected->identity().Key() != rec.key) http_env.injected = nullptr;
    ATTEST_ASSIGN_OR_RETURN(e, CreateRemoteEmbedder(o, rec.dim, http_env));
    return e;  // a remote model's version is what the record says; nothing to compare it to
  } else {
    return Status::Corruption("the active embedder has kind none");
  }
  if (e->identity().Key() != rec.key) {
    return Status::Corruption("model " + (models_dir / rec.model_file).string() + " has identity " +
                              e->identity().Key() + "; the catalog expects " + rec.key);
  }
  return e;
}

}  // namespace attest
