// Reading and listing documents over a cluster's shards (docs/cluster.md, "Coordinators"), so
// GET /v1/documents/{id} and GET /v1/documents work on a coordinator as in one process.
//
// - A document lives on the node that owns its virtual shard, but during a move it may briefly be
//   on two and a coordinator does not read the map: every shard is asked at once and the first in
//   shard order that has it answers. Its chunk ids are tagged with that shard (ClusterChunkId), as
//   in search results. No shard having it is kNotFound; no shard having it while some failed is
//   kUnavailable naming them (the document may be on one of those).
// - A listing page is keyset-paged by id in every store, so the coordinator asks every shard for
//   the same page (`limit` ids after `after_id`), merges them by id and keeps the first `limit`:
//   exactly the page one store holding every document would give. Any shard failing fails the
//   listing (a page without one node's documents would skip them silently). `total` is the sum;
//   `snapshot_version` is 0 (a cluster has no single snapshot).
//
// Thread-safety: may run concurrently; clients must be thread-safe.
#pragma once

#include <string>
#include <vector>

#include "cluster/scatter_search.h"

namespace attest {

struct DocumentScatterArgs {
  std::vector<const ShardClient*> shards;
  ShardCall call;
};

Result<DocumentInfo> ScatterGetDocument(const DocumentScatterArgs& args, const SearchFilter& filter,
                                        const std::string& id);
Result<DocumentListing> ScatterListDocuments(const DocumentScatterArgs& args, const ListDocumentsOptions& options);

}  // namespace attest
