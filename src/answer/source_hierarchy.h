// The source hierarchy: how much a source's kind is trusted when sources disagree or evidence is
// thin (docs/answer.md, "Source hierarchy"). A document's `source_type` maps to an authority tier;
// higher tiers win conflicts and only some tiers can carry an answer on their own.
//
//   tier 4  official, system_of_record, docs           the project's / organisation's own record
//   tier 3  release_notes                               official, but about one version
//   tier 2  vendor_blog, wiki, ticket                    informed, secondary
//   tier 1  community, chat, forum, blog                 anyone may have written it
//   tier 2  anything else (unknown types)                neutral
//
// Thread-safety: immutable after construction.
#pragma once

#include <map>
#include <string>

#include "attest/status.h"

namespace attest {

struct SourceTier {
  int rank = 2;           // higher = more authoritative
  std::string name;       // "official", "release_notes", "secondary", "community"
  double weight = 0.7;    // multiplies the passage score in ranking
  bool can_answer_alone = true;  // false: evidence only of this tier leads to abstention
};

class SourceHierarchy {
 public:
  static SourceHierarchy Defaults();
  // {"<source_type>": {"rank": 4, "name": "official", "weight": 1.0, "can_answer_alone": true}, ...};
  // types not listed keep their default. Strict: unknown keys or wrong types fail naming them.
  static Result<SourceHierarchy> FromJson(const std::string& json);

  const SourceTier& TierOf(const std::string& source_type) const;

 private:
  std::map<std::string, SourceTier> tiers_;
  SourceTier unknown_;
};

}  // namespace attest
