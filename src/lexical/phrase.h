// Phrase matching on decoded positions: terms at relative offsets, all in one field.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attest {

// positions[i] holds the sorted positions of phrase term i in one field; rel[i] its relative
// offset in the phrase. True when some p has p + rel[i] in positions[i] for every i.
inline bool PhraseMatchesInField(const std::vector<const std::vector<uint32_t>*>& positions,
                                 const std::vector<int64_t>& rel) {
  const size_t m = positions.size();
  for (size_t i = 0; i < m; ++i) {
    if (positions[i]->empty()) return false;
  }
  // Anchor on the rarest term.
  size_t a = 0;
  for (size_t i = 1; i < m; ++i) {
    if (positions[i]->size() < positions[a]->size()) a = i;
  }
  for (uint32_t x : *positions[a]) {
    const int64_t base = int64_t(x) - rel[a];
    bool ok = true;
    for (size_t i = 0; i < m && ok; ++i) {
      if (i == a) continue;
      const int64_t want = base + rel[i];
      if (want < 0 || want > int64_t(UINT32_MAX)) {
        ok = false;
        break;
      }
      ok = std::binary_search(positions[i]->begin(), positions[i]->end(), static_cast<uint32_t>(want));
    }
    if (ok) return true;
  }
  return false;
}

}  // namespace attest
