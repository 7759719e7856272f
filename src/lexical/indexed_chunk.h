// What the segment writer consumes for one chunk: analyzed fields plus filter attributes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/strong_id.h"
#include "text/token.h"

namespace attest {

// kTerm holds the chunk's defining terms: the subjects of its definition and table-row spans
// (text/chunker.h), the names the chunk defines rather than mentions.
enum class Field : uint8_t { kTitle = 0, kSection = 1, kBody = 2, kTerm = 3 };
inline constexpr int kNumFields = 4;

struct AnalyzedField {
  std::vector<Token> tokens;
  uint32_t length = 0;  // positions consumed (BM25 document length of this field)
};

// Attributes that filters test inside the traversal. Strings are dictionary-encoded per segment.
struct ChunkAttributes {
  std::string tenant;                    // empty = the default tenant ""
  std::vector<std::string> acl_groups;   // empty = public (admitted for every caller)
  std::string access_label;              // "" = unlabelled: the lowest access level
  std::string source_type;
  std::string site;
  std::string version;
  int32_t date = kNoDate;                // days since epoch: published, else updated; kNoDate if unknown
  static constexpr int32_t kNoDate = INT32_MIN;
};

struct IndexedChunk {
  ChunkId id;
  uint64_t doc = 0;  // the store's document number of the chunk (DocNum), 0 when there is none
  std::array<AnalyzedField, kNumFields> fields;
  ChunkAttributes attrs;
};

}  // namespace attest
