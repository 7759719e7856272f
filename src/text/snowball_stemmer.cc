#include "text/snowball_stemmer.h"

#include <libstemmer.h>

#include <unordered_map>

namespace attest {
namespace {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Entries kept per thread before the cache is reset; English vocabularies of real corpora fit.
constexpr size_t kMaxCacheEntries = 1 << 18;
// Terms longer than this are stemmed but not cached (they are rare and mostly junk).
constexpr size_t kMaxCachedTermBytes = 40;

struct ThreadStemmer {
  sb_stemmer* stemmer = sb_stemmer_new("english", "UTF_8");
  std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> cache;
  ~ThreadStemmer() {
    if (stemmer != nullptr) sb_stemmer_delete(stemmer);
  }
};

}  // namespace

void StemEnglishInPlace(std::string* term) {
  thread_local ThreadStemmer ts;
  if (ts.stemmer == nullptr || term->empty()) return;
  if (term->size() <= kMaxCachedTermBytes) {
    auto it = ts.cache.find(std::string_view(*term));
    if (it != ts.cache.end()) {
      *term = it->second;
      return;
    }
  }
  const sb_symbol* stem = sb_stemmer_stem(ts.stemmer, reinterpret_cast<const sb_symbol*>(term->data()),
                                          static_cast<int>(term->size()));
  if (stem == nullptr) return;  // out of memory inside libstemmer: keep the unstemmed term
  std::string result(reinterpret_cast<const char*>(stem), static_cast<size_t>(sb_stemmer_length(ts.stemmer)));
  if (term->size() <= kMaxCachedTermBytes) {
    if (ts.cache.size() >= kMaxCacheEntries) ts.cache.clear();
    ts.cache.emplace(*term, result);
  }
  *term = std::move(result);
}

}  // namespace attest
