// The in-memory state one snapshot version publishes: its segment views (with the deletions
// visible at that version) and a searcher over them. Built once per commit or merge and shared,
// immutable, by every snapshot pinned while it was current.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "common/strong_id.h"
#include "lexical/lexical_searcher.h"
#include "lexical/segment.h"
#include "store/records.h"
#include "store/segment_file.h"

namespace attest {

struct StoreState {
  SnapshotVersion version;
  std::vector<SegmentView> views;                               // ordered by segment id
  std::map<SegmentId, std::shared_ptr<SegmentFile>> files;      // the files behind `views`
  std::unique_ptr<LexicalSearcher> searcher;                    // over `views`
  std::map<std::string, EmbedderRecord> embedders;              // per tenant, active at `version`
  std::map<uint32_t, uint64_t> log_positions;                   // change log: vshard -> sequence applied

  // Builds the searcher over `views`; call once the views are final.
  void Seal() { searcher = std::make_unique<LexicalSearcher>(views); }
};

}  // namespace attest
