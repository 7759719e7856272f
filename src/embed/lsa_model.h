// LSA (latent semantic analysis) embedder trained on the user's own corpus: the default vector leg,
// needing no network and no downloaded weights. It is a corpus statistics model, not a pretrained
// semantic model: it knows only the words of the corpus it was trained on, and relates them by
// co-occurrence in that corpus.
//
// Training (Deerwester et al. 1990, with the usual TF-IDF weighting):
//   1. terms of each text from attest's Analyzer (stemmed, stopwords removed, identifiers whole and
//      in parts), the same analysis as the lexical index;
//   2. vocabulary: terms in >= min_df texts and in <= max_df_share of them; if more remain than the
//      cap (max_vocabulary, and what fits in max_model_bytes), the most frequent by document
//      frequency are kept (ties by term); stored in term order;
//   3. TF-IDF matrix A (texts x terms): w = (1 + ln tf) * idf, idf = ln((1 + N) / (1 + df)) + 1
//      (scikit-learn's smoothed idf), each row L2-normalized;
//   4. truncated SVD A ~= U S V^T of rank `dim` by randomized SVD (embed/randomized_svd.h), over
//      at most max_svd_texts rows of A evenly spaced in corpus order.
// Embedding a text: its TF-IDF vector x (same weighting) folded into the latent space,
// e = x V S^p, then L2-normalized; p = sigma_power (0: plain projection onto the term-space
// singular vectors; -1: the classic fold-in V S^-1). Texts without a known term give a zero vector.
// Queries and documents are embedded alike.
//
// Model file (little-endian), layout documented in docs/embedders.md:
//   "ATLSAMD1" | u32 format_version=1 | u32 dim | u32 vocabulary | u32 rank | f32 sigma_power |
//   u64 texts | u64 tokens | f32 singular_values[dim] | vocabulary x (u16 len, bytes, f32 idf) |
//   f32 projection[vocabulary x dim] (row = term, unscaled V) | u32 CRC-32C of all preceding bytes.
// Identity: name "lsa-corpus", dim, version = first 16 hex digits of SHA-256 of the file content.
// Same corpus + seed + options -> byte-identical file, whatever the thread count.
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

inline constexpr char kLsaModelName[] = "lsa-corpus";
inline constexpr uint32_t kLsaDefaultDim = 256;

struct LsaOptions {
  uint32_t min_df = 2;
  double max_df_share = 0.5;             // drop terms found in more than this share of the texts
  uint32_t max_vocabulary = 200000;      // further capped so the file stays <= max_model_bytes
  uint64_t max_model_bytes = 100000000;  // 100 MB (decimal)
  uint32_t oversampling = 10;
  uint32_t power_iterations = 4;
  // The SVD reads at most this many texts, evenly spaced in corpus order (vocabulary and IDF still
  // come from every text): its cost grows with the texts, the term-space singular vectors do not
  // need them all. Corpora up to this size train exactly as before. 0 = every text.
  uint64_t max_svd_texts = 200000;
  float sigma_power = 0.0f;              // e = x V S^p; see the header comment (measured in docs)
};

Result<TrainedModelInfo> TrainLsaModel(const CorpusTrainingArgs& args, const LsaOptions& options = {});

// Same as TrainLsaModel, and also returns the embedder built from the in-memory model (used by
// tests and tools to compare against a reload). `info` may be null.
Result<std::unique_ptr<Embedder>> TrainLsaEmbedder(const CorpusTrainingArgs& args, const LsaOptions& options,
                                                   TrainedModelInfo* info);

// Loads a model file; a malformed file gives kCorruption (or kUnsupported for a newer format version)
// naming the file.
Result<std::unique_ptr<Embedder>> LoadLsaModel(const std::filesystem::path& path);

}  // namespace attest
