// Engine::ApplyChanges without the engine (docs/cluster.md, "Applying the log"): turns a
// ChangeBatch into the one WriteBatch that applies it. Parsing and analysis happen in
// PrepareChanges (before the engine's write lock); AddDrops runs under it, against the latest
// snapshot, so that no write lands between listing a dropped shard's documents and the commit.
//
// Thread-safety: pure functions over their arguments.
#pragma once

#include <string>
#include <vector>

#include "attest/engine.h"
#include "index/document_indexer.h"
#include "store/store.h"

namespace attest {

struct PreparedChanges {
  WriteBatch batch;
  ApplyChangesReport report;  // `rejected` filled
};

// Coalesces `changes` (the last change of a document wins), parses and prepares the upserts, and
// copies the positions. kInvalidArgument for a malformed batch.
Result<PreparedChanges> PrepareChanges(const ChangeBatch& changes, const DocumentIndexer& indexer,
                                       const std::vector<std::string>& access_levels);

// Adds the deletes of every live document of `drop_vshards` (and forgets their positions; drops
// upserts of theirs); returns how many documents that deletes.
Result<uint32_t> AddDrops(const ChangeBatch& changes, const Snapshot& latest, PreparedChanges* out);

}  // namespace attest
