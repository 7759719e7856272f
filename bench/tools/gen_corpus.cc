// Deterministic synthetic corpus for the comparison benchmark (BEIR layout).
//
//   gen_corpus --out DIR [--chunks 1000000] [--queries 1000] [--seed 42] [--vocab 200000]
//
// Vocabulary: `--vocab` distinct pronounceable lowercase words built from syllables
// (onset + vowel + optional coda, 1-4 syllables), none equal to one of the 33 stopwords; sorted so
// that frequent ranks get the shorter words (Zipf's law of abbreviation), ties in random order.
// Words are drawn with Zipf's law, P(rank r) proportional to 1 / r^s, s = 1.0 (--zipf).
// Chunk: a title of 3-8 words, and a body of 80-160 words (uniform, mean 120) in sentences of
// 6-20 words, each capitalized and ended with a period. metadata.acl: the chunks are put in a
// seeded random order and chunk at position p gets group "g%02d" of p mod 100, so every group -
// including the one the benchmark filters on (default g42) - admits exactly 1% of the chunks
// (when --chunks is a multiple of 100; otherwise floor or ceil).
// Queries: 2-5 distinct terms whose vocabulary ranks are drawn log-uniformly from [1000, 50000]
// (--query-min-rank/--query-max-rank): mid-frequency terms. With s = 1 and 120 tokens per chunk
// over 1M chunks, rank 1000 occurs ~9,400 times and rank 50,000 ~190 times, so each term matches
// ~0.02%-1% of the chunks: no stopword-like terms that make every engine scan everything, no
// hapaxes that make the query trivial; log-uniform gives each decade of frequency equal weight.
// Writes DIR/corpus.jsonl, DIR/queries.jsonl and DIR/meta.json (counts, raw text bytes, settings).
// The random generator is splitmix64 with explicit arithmetic, so output is identical on every
// platform and standard library for the same arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/corpus_reader.h"

namespace {

namespace fs = std::filesystem;

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>(Uniform() * static_cast<double>(n)); }
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }  // inclusive

 private:
  uint64_t s_;
};

std::vector<std::string> MakeVocabulary(size_t n, Rng& rng) {
  static const char* kOnsets[] = {"b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",  "n",
                                  "p",  "r",  "s",  "t",  "v",  "w",  "z",  "br", "cl", "dr", "fl",
                                  "gr", "pl", "st", "tr", "ch", "sh", "th", "kr", "sp", "v"};
  static const char* kVowels[] = {"a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y"};
  static const char* kCodas[] = {"", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk", "x"};
  const std::unordered_set<std::string> stop(attest::bench::LuceneEnglishStopwords().begin(),
                                             attest::bench::LuceneEnglishStopwords().end());
  std::unordered_set<std::string> seen;
  std::vector<std::pair<uint64_t, std::string>> keyed;  // (random tie-break, word)
  keyed.reserve(n);
  while (keyed.size() < n) {
    // Syllable counts 1..4 with weights 1:4:4:2.
    const uint64_t r = rng.Below(11);
    const int syllables = r < 1 ? 1 : r < 5 ? 2 : r < 9 ? 3 : 4;
    std::string w;
    for (int s = 0; s < syllables; ++s) {
      w += kOnsets[rng.Below(std::size(kOnsets))];
      w += kVowels[rng.Below(std::size(kVowels))];
      w += kCodas[rng.Below(std::size(kCodas))];
    }
    if (stop.count(w) || !seen.insert(w).second) continue;
    keyed.emplace_back(rng.Next(), std::move(w));
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.second.size() != b.second.size() ? a.second.size() < b.second.size() : a.first < b.first;
  });
  std::vector<std::string> out;
  out.reserve(n);
  for (auto& [k, w] : keyed) out.push_back(std::move(w));
  return out;
}

// Inverse-CDF sampler of ranks 0..n-1 with P(r) proportional to 1/(r+1)^s.
class ZipfSampler {
 public:
  ZipfSampler(size_t n, double s) : cdf_(n) {
    double sum = 0;
    for (size_t r = 0; r < n; ++r) cdf_[r] = (sum += 1.0 / std::pow(static_cast<double>(r + 1), s));
    for (double& c : cdf_) c /= sum;
    cdf_.back() = 1.0;
  }
  size_t Sample(Rng& rng) const {
    return static_cast<size_t>(std::upper_bound(cdf_.begin(), cdf_.end(), rng.Uniform()) - cdf_.begin());
  }

 private:
  std::vector<double> cdf_;
};

void AppendWords(const std::vector<std::string>& vocab, const ZipfSampler& zipf, Rng& rng, size_t count,
                 bool sentences, std::string* out, uint64_t* tokens) {
  size_t until_period = sentences ? rng.Between(6, 20) : SIZE_MAX;
  bool capitalize = true;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out->push_back(' ');
    const size_t start = out->size();
    *out += vocab[zipf.Sample(rng)];
    if (capitalize) (*out)[start] = static_cast<char>((*out)[start] - 'a' + 'A');
    capitalize = false;
    ++*tokens;
    if (--until_period == 0 || (sentences && i + 1 == count)) {
      out->push_back('.');
      until_period = rng.Between(6, 20);
      capitalize = sentences;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Deterministic Zipfian BEIR-style corpus for the comparison benchmark"};
  fs::path out_dir;
  uint64_t chunks = 1000000, queries = 1000, seed = 42;
  size_t vocab_size = 200000, min_rank = 1000, max_rank = 50000;
  double zipf_s = 1.0;
  std::string acl_group = "g42";
  app.add_option("--out", out_dir, "output directory")->required();
  app.add_option("--chunks", chunks, "number of chunks")->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--queries", queries, "number of queries")->check(CLI::Range(uint64_t{1}, uint64_t{1000000}));
  app.add_option("--seed", seed, "random seed");
  app.add_option("--vocab", vocab_size, "vocabulary size")->check(CLI::Range(size_t{1000}, size_t{5000000}));
  app.add_option("--zipf", zipf_s, "Zipf exponent s")->check(CLI::Range(0.1, 3.0));
  app.add_option("--query-min-rank", min_rank, "lowest vocabulary rank (1-based) for query terms");
  app.add_option("--query-max-rank", max_rank, "highest vocabulary rank (1-based) for query terms");
  app.add_option("--acl-group", acl_group, "the group the benchmark filters on (recorded in meta.json)");
  CLI11_PARSE(app, argc, argv);
  if (min_rank < 1 || min_rank >= max_rank || max_rank > vocab_size) {
    std::fprintf(stderr, "gen_corpus: need 1 <= --query-min-rank < --query-max-rank <= --vocab\n");
    return 1;
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "gen_corpus: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  Rng rng(seed);
  const std::vector<std::string> vocab = MakeVocabulary(vocab_size, rng);
  const ZipfSampler zipf(vocab_size, zipf_s);

  // Group of each chunk: position in a seeded permutation, mod 100.
  std::vector<uint32_t> perm(chunks);
  std::iota(perm.begin(), perm.end(), 0u);
  for (uint64_t i = chunks; i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(i)]);
  std::vector<uint8_t> group(chunks);
  for (uint64_t p = 0; p < chunks; ++p) group[perm[p]] = static_cast<uint8_t>(p % 100);
  std::vector<uint32_t>().swap(perm);

  const fs::path corpus_path = out_dir / "corpus.jsonl";
  std::FILE* f = std::fopen(corpus_path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "gen_corpus: cannot write %s\n", corpus_path.c_str());
    return 1;
  }
  uint64_t raw_bytes = 0, tokens = 0, chosen_docs = 0;
  std::string line, title, body;
  char acl[8];
  for (uint64_t c = 0; c < chunks; ++c) {
    title.clear();
    body.clear();
    AppendWords(vocab, zipf, rng, rng.Between(3, 8), /*sentences=*/false, &title, &tokens);
    AppendWords(vocab, zipf, rng, rng.Between(80, 160), /*sentences=*/true, &body, &tokens);
    std::snprintf(acl, sizeof acl, "g%02u", static_cast<unsigned>(group[c]));
    if (acl_group == acl) ++chosen_docs;
    raw_bytes += title.size() + body.size();
    line = "{\"_id\": \"d" + std::to_string(c) + "\", \"title\": \"" + title + "\", \"text\": \"" + body +
           "\", \"metadata\": {\"acl\": \"" + acl + "\"}}\n";
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size()) {
      std::fprintf(stderr, "gen_corpus: write error on %s\n", corpus_path.c_str());
      std::fclose(f);
      return 1;
    }
  }
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "gen_corpus: write error on %s\n", corpus_path.c_str());
    return 1;
  }

  const fs::path queries_path = out_dir / "queries.jsonl";
  std::ofstream qf(queries_path, std::ios::binary | std::ios::trunc);
  const double lo = std::log(static_cast<double>(min_rank)), hi = std::log(static_cast<double>(max_rank));
  for (uint64_t q = 0; q < queries; ++q) {
    const uint64_t n = rng.Between(2, 5);
    std::vector<size_t> ranks;
    while (ranks.size() < n) {
      const size_t r = std::clamp<size_t>(static_cast<size_t>(std::exp(lo + rng.Uniform() * (hi - lo))), min_rank,
                                          max_rank);
      if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
    }
    std::string text;
    for (size_t r : ranks) text += (text.empty() ? "" : " ") + vocab[r - 1];
    qf << "{\"_id\": \"q" << q << "\", \"text\": \"" << text << "\", \"metadata\": {}}\n";
  }
  qf.close();
  if (!qf) {
    std::fprintf(stderr, "gen_corpus: cannot write %s\n", queries_path.c_str());
    return 1;
  }

  nlohmann::json meta = {{"chunks", chunks},
                         {"queries", queries},
                         {"seed", seed},
                         {"vocab", vocab_size},
                         {"zipf_s", zipf_s},
                         {"tokens", tokens},
                         {"raw_text_bytes", raw_bytes},
                         {"corpus_file_bytes", fs::file_size(corpus_path)},
                         {"query_rank_range", {min_rank, max_rank}},
                         {"acl_groups", 100},
                         {"acl_group", acl_group},
                         {"acl_group_docs", chosen_docs}};
  std::ofstream mf(out_dir / "meta.json", std::ios::trunc);
  mf << meta.dump(2) << '\n';
  mf.close();
  std::fprintf(stderr, "gen_corpus: %llu chunks, %llu tokens, %.1f MB raw text, %llu queries, %s admits %llu chunks\n",
               static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(tokens),
               static_cast<double>(raw_bytes) / 1e6, static_cast<unsigned long long>(queries), acl_group.c_str(),
               static_cast<unsigned long long>(chosen_docs));
  return mf ? 0 : 1;
}
