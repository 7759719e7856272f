// The filter both retrieval legs apply to chunks: who may read them (tenant, groups, access label)
// and the metadata a caller chose (source type, site, version, date range). The lexical leg applies
// it inside the postings traversal (lexical/segment_filter.h), the vector leg inside the index search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attest {

// Restrictions applied inside the traversal, before the top-k cut. Empty vectors mean "any".
struct ChunkFilter {
  std::optional<std::string> tenant;         // chunk tenant must equal this
  std::optional<std::vector<std::string>> groups;  // when set: chunk's ACL is empty (public) or intersects these
  std::optional<std::vector<std::string>> labels;  // when set: chunk's access label is one of these
  std::vector<std::string> source_types;
  std::vector<std::string> sites;
  std::vector<std::string> versions;
  std::optional<int32_t> date_from;           // inclusive, days since epoch; chunks with no date fail
  std::optional<int32_t> date_to;             // inclusive
  bool empty() const {
    return !tenant && !groups && !labels && source_types.empty() && sites.empty() && versions.empty() &&
           !date_from && !date_to;
  }
  // Only the predicates that decide what a caller may read (tenant, groups, labels): collection
  // statistics are computed over these, never over the metadata filters a caller chose.
  ChunkFilter Visibility() const {
    ChunkFilter v;
    v.tenant = tenant;
    v.groups = groups;
    v.labels = labels;
    return v;
  }
};

}  // namespace attest
