// Embedders turn text into dense vectors for the vector leg.
//
// Every embedder has an identity (name, dimension, version). Vectors carry the identity of the
// embedder that made them: the store keeps one vector file per (segment, identity) and never mixes
// vectors of different identities in one index; when the embedder changes, `attest reembed`
// rebuilds them. Query embeddings are cached by (text, identity).
//
// Implementations:
//   - corpus-trained models (src/embed/lsa_*, src/embed/fasttext_sif_*): learned from the user's own
//     ingested text, deterministic for a seed; no pretrained weights, no network;
//   - OpenAI-compatible HTTP client (src/embed/openai_embedder.*): POST {base}/v1/embeddings.
//
// Thread-safety: Embed() may be called concurrently from several threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

struct EmbedderIdentity {
  std::string name;     // e.g. "lsa-corpus", "fasttext-sif-corpus", "openai:nomic-embed-text"
  uint32_t dim = 0;
  std::string version;  // corpus models: hash of the model content; remote: configured model version
  // A stable 16-hex-digit key of (name, dim, version), used in file names and cache keys.
  std::string Key() const;
  bool operator==(const EmbedderIdentity&) const = default;
};

enum class EmbedPurpose { kDocument, kQuery };

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual const EmbedderIdentity& identity() const = 0;
  // Embeds each text. Returns texts.size() * identity().dim floats, row-major; every row has unit
  // L2 norm, or is all zeros when the text has nothing the model knows (no error in that case).
  virtual Result<std::vector<float>> Embed(std::span<const std::string_view> texts,
                                           EmbedPurpose purpose) const = 0;
};

// Streams every training text once per call (a trainer may call it several times, e.g. one pass
// to count, one to build). A non-OK Status returned by `visit` stops the stream and is returned.
using CorpusStream = std::function<Status(const std::function<Status(std::string_view text)>& visit)>;

struct CorpusTrainingArgs {
  CorpusStream corpus;
  std::filesystem::path model_path;  // written atomically (temp file, fsync, rename)
  uint32_t dim = 0;                  // 0 = the trainer's default
  uint64_t seed = 42;                // same corpus + seed + options -> byte-identical model
  unsigned threads = 0;              // 0 = hardware concurrency
};

struct TrainedModelInfo {
  EmbedderIdentity identity;
  uint64_t texts = 0;
  uint64_t tokens = 0;
  uint64_t vocabulary = 0;
  uint64_t model_bytes = 0;
  double seconds = 0;
};

// L2-normalizes `v` in place; leaves an all-zero vector as it is.
void NormalizeL2(std::span<float> v);

}  // namespace attest
