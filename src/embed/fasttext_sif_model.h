// fastText skipgram word vectors trained on the user's own corpus, combined into text vectors by SIF
// ("smooth inverse frequency", Arora, Liang, Ma, "A simple but tough-to-beat baseline for sentence
// embeddings", ICLR 2017). Like LSA it is a corpus statistics model, not a pretrained one.
//
// Training: texts are tokenized by attest's Analyzer without stemming and without stopword removal
// (case-folded words; identifiers whole, not split), written one text per line to a temporary file,
// and fed to libfasttext 0.9.2's skipgram (Bojanowski et al. 2017). Then:
//   p(w)  = count(w) / total tokens over the model vocabulary (words with count >= min_count);
//   v(s)  = sum_{w in s} a / (a + p(w)) * vec(w) / |s|, a = sif_a (1e-3), unknown words skipped;
//   u     = first principal component (right singular vector) of the training texts' v(s)
//           (computed by power iteration, seeded, over the texts' vectors);
//   e(s)  = v(s) - (v(s) . u) u, L2-normalized. Texts without a known word give a zero vector.
// Out-of-vocabulary words are not embedded (subword buckets are not stored): the model file holds
// only whole-word vectors, which keeps it small (vocabulary x dim x 4 bytes).
//
// Determinism: fastText's hogwild SGD is reproducible only on one thread; with threads > 1 the
// model depends on scheduling. `FastTextSifOptions::deterministic` (default true) forces thread=1,
// trading speed for byte-identical models; the tool/engine may turn it off to train faster.
//
// Model file (little-endian), layout in docs/embedders.md:
//   "ATFTSIF1" | u32 format_version=1 | u32 dim | u32 vocabulary | f32 sif_a | u64 texts | u64 tokens |
//   f32 principal_component[dim] | vocabulary x (u16 len, bytes, u64 count) |
//   f32 vectors[vocabulary x dim] | u32 CRC-32C of all preceding bytes.
// Identity: name "fasttext-sif-corpus", dim, version = first 16 hex of SHA-256 of the file content.
//
// Thread-safety: Train/Load are free functions; the returned Embedder is immutable and its Embed()
// may be called concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "attest/status.h"
#include "embed/embedder.h"

namespace attest {

inline constexpr char kFastTextSifModelName[] = "fasttext-sif-corpus";
inline constexpr uint32_t kFastTextSifDefaultDim = 100;

struct FastTextSifOptions {
  uint32_t epochs = 10;
  uint32_t min_count = 2;
  uint32_t window = 5;
  uint32_t negatives = 5;
  uint32_t buckets = 200000;   // subword hash buckets during training (not stored)
  uint32_t min_n = 3, max_n = 6;
  double learning_rate = 0.05;
  float sif_a = 1e-3f;
  bool deterministic = true;   // train on one thread (see the header comment)
  uint64_t max_model_bytes = 100000000;  // 100 MB (decimal)
};

Result<TrainedModelInfo> TrainFastTextSifModel(const CorpusTrainingArgs& args, const FastTextSifOptions& options = {});
Result<std::unique_ptr<Embedder>> TrainFastTextSifEmbedder(const CorpusTrainingArgs& args,
                                                           const FastTextSifOptions& options, TrainedModelInfo* info);
Result<std::unique_ptr<Embedder>> LoadFastTextSifModel(const std::filesystem::path& path);

}  // namespace attest
