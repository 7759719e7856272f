// The coordinator's engine (`attest serve --cluster`; docs/cluster.md, "Coordinators"): an Engine
// with no store of its own. Searches are scattered over the shard nodes with global statistics
// (scatter_search.h); document writes are appended to the change log (change_log.h), acknowledged
// with their stream sequence once the stream has them, and reach the shards through it. An API
// write's source version is the time the coordinator accepted it; a stream that does not
// acknowledge within write_deadline_ms (tried again meanwhile, with the same idempotency key) is
// kBusy (503), a write older than what the log holds kAlreadyExists (409). What a
// coordinator cannot do yet answers kUnsupported naming it (the HTTP API answers 501): answers,
// citations, ingestion from files (use `attest ingest --cluster`). Documents are read and listed
// over every shard (scatter_documents.h).
//
// Thread-safety: as Engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attest/clock.h"
#include "attest/engine.h"
#include "cluster/change_log.h"
#include "cluster/scatter_search.h"
#include "cluster/shard_set.h"

namespace attest {

struct ClusterEngineOptions {
  std::vector<std::shared_ptr<const ShardClient>> shards;  // a fixed list; or
  std::shared_ptr<const ShardSet> shard_set;                // one that changes (nodes from the shard map)
  std::shared_ptr<ChangeLog> log;      // null: the coordinator refuses writes
  uint32_t search_deadline_ms = 10000;  // the time a search may take across the shards
  // How long one document's append may be tried again while the stream does not acknowledge
  // (a NATS server down, a stream leader being elected); then the write is kBusy (503).
  uint32_t write_deadline_ms = 10000;
  const Clock* clock = nullptr;         // stamps API writes' source versions; null: the real clock
  // No shards: an engine that only appends writes to `log` (`attest crawl --cluster`); every read
  // is kUnavailable naming that.
  bool write_only = false;
  // The configured access levels (EngineOptions::access_levels): Ingest checks a label against them.
  std::vector<std::string> access_levels = EngineOptions{}.access_levels;
};

Result<std::unique_ptr<Engine>> OpenClusterEngine(ClusterEngineOptions options);

}  // namespace attest
