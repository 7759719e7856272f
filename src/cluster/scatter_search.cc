#include "cluster/scatter_search.h"

#include <map>

#include "search/shard_merge.h"

namespace attest {
namespace {

Status PastDeadline(const ShardCall& call) {
  if (std::chrono::steady_clock::now() >= call.deadline) return Status::DeadlineExceeded("no time left for the shard");
  return Status::Ok();
}

std::string Degraded(const ShardClient& shard, const Status& s) {
  return "shard_unavailable: " + shard.name() + ": " + s.message();
}

// Puts the shard's tag into each hit's chunk id (a reply's local ids must fit in 48 bits).
Status TagChunkIds(const std::string& shard, SearchResult* r) {
  const uint16_t tag = ShardTag(shard);
  for (SearchHit& h : r->hits) {
    ATTEST_ASSIGN_OR_RETURN(h.chunk_id, ClusterChunkId(tag, h.chunk_id));
  }
  return Status::Ok();
}

enum class Attempt { kDone, kRestart };

Result<Attempt> TryScatter(const ScatterArgs& args, SearchResult* out) {
  const size_t n = args.shards.size();
  // The statistics phase gets half the time left, so a shard that hangs in it leaves the others
  // time to search.
  ShardCall first = args.call;
  if (first.deadline != std::chrono::steady_clock::time_point::max()) {
    const auto now = std::chrono::steady_clock::now();
    if (first.deadline > now) first.deadline = now + (first.deadline - now) / 2;
  }
  std::vector<Result<ShardStatistics>> stats = ForEachShard<ShardStatistics>(n, [&](size_t i) -> Result<ShardStatistics> {
    ATTEST_RETURN_IF_ERROR(PastDeadline(first));
    return args.shards[i]->Statistics(first, args.options);
  });
  ShardStatistics global;
  std::vector<std::string> degraded;
  for (size_t i = 0; i < n; ++i) {
    if (stats[i].ok()) {
      AddStatistics(stats[i].value(), &global);
    } else if (stats[i].status().code() == StatusCode::kInvalidArgument) {
      return stats[i].status();  // the query or filter is wrong, wherever it is asked
    } else {
      degraded.push_back(Degraded(*args.shards[i], stats[i].status()));
    }
  }
  std::vector<Result<SearchResult>> ranked = ForEachShard<SearchResult>(n, [&](size_t i) -> Result<SearchResult> {
    if (!stats[i].ok()) return stats[i].status();
    ATTEST_RETURN_IF_ERROR(PastDeadline(args.call));
    return args.shards[i]->Search(args.call, args.options, global, stats[i].value().snapshot_version);
  });
  std::vector<ShardRanking> rankings;
  std::string snapshot;
  for (size_t i = 0; i < n; ++i) {
    if (!stats[i].ok()) continue;
    if (!ranked[i].ok()) {
      if (ranked[i].status().code() == StatusCode::kNotFound) return Attempt::kRestart;
      if (ranked[i].status().code() == StatusCode::kInvalidArgument) return ranked[i].status();
      degraded.push_back(Degraded(*args.shards[i], ranked[i].status()));
      continue;
    }
    SearchResult part = std::move(ranked[i]).value();
    Status tagged = TagChunkIds(args.shards[i]->name(), &part);
    if (!tagged.ok()) {
      degraded.push_back(Degraded(*args.shards[i], tagged));
      continue;
    }
    if (!snapshot.empty()) snapshot += ',';
    snapshot += args.shards[i]->name() + "@" + std::to_string(stats[i].value().snapshot_version);
    rankings.push_back(ShardRanking{args.shards[i]->name(), std::move(part)});
  }
  if (rankings.empty()) {
    std::string why;
    for (const std::string& d : degraded) why += "; " + d;
    return Status::Unavailable("no shard answered" + why);
  }
  *out = MergeShardRankings(args.options, std::move(rankings));
  out->cluster_snapshot = std::move(snapshot);
  out->degraded.insert(out->degraded.end(), degraded.begin(), degraded.end());
  for (const std::string& d : degraded) out->notices.push_back("partial results: " + d);
  return Attempt::kDone;
}

}  // namespace

Result<ShardStatistics> EngineShard::Statistics(const ShardCall&, const SearchOptions& options) const {
  return engine_->QueryStatistics(options);
}

Result<SearchResult> EngineShard::Search(const ShardCall&, const SearchOptions& options, const ShardStatistics& global,
                                         uint64_t shard_snapshot) const {
  return engine_->ShardSearch(options, global, shard_snapshot);
}

Result<ShardHealth> EngineShard::Health(const ShardCall&) const {
  ShardHealth h;
  h.node = name_;
  h.snapshot = engine_->CurrentSnapshot();
  ATTEST_ASSIGN_OR_RETURN(FreshnessStats f, engine_->Freshness());
  h.committed_at_ms = f.last_commit_unix_ms;
  return h;
}

Result<ShardStatistics> EngineShard::TermStatistics(const ShardCall&, const SearchFilter& filter,
                                                    const std::vector<std::string>& terms) const {
  return engine_->TermStatistics(filter, terms);
}

Result<std::vector<ChunkContent>> EngineShard::Chunks(const ShardCall&, const SearchFilter& filter,
                                                      const std::vector<ChunkId>& ids) const {
  return engine_->ReadChunks(filter, ids);
}

Result<std::vector<CitationState>> EngineShard::Citations(const ShardCall&, const SearchFilter& filter,
                                                          const std::vector<CitedChunk>& cited) const {
  return engine_->CheckCitations(filter, cited);
}

Result<std::vector<SourceInfo>> EngineShard::Sources(const ShardCall&, const SearchFilter& filter,
                                                     const std::vector<std::string>& ids) const {
  return engine_->ReadSources(filter, ids);
}

uint16_t ShardTag(std::string_view shard) {
  uint32_t h = 2166136261u;  // FNV-1a, 32 bits
  for (unsigned char c : shard) {
    h ^= c;
    h *= 16777619u;
  }
  return uint16_t(1 + h % 65535);  // 1..65535: 0 is no shard
}

Result<ChunkId> ClusterChunkId(uint16_t tag, ChunkId local) {
  if (local.get() >> kLocalChunkBits != 0) {
    return Status::Unavailable("chunk id " + std::to_string(local.get()) + " does not fit in 48 bits");
  }
  return ChunkId((uint64_t(tag) << kLocalChunkBits) | local.get());
}

std::pair<uint16_t, ChunkId> SplitClusterChunkId(ChunkId id) {
  return {uint16_t(id.get() >> kLocalChunkBits), ChunkId(id.get() & ((uint64_t{1} << kLocalChunkBits) - 1))};
}

Status CheckShardTags(const std::vector<const ShardClient*>& shards) {
  std::map<uint16_t, std::string> seen;
  for (const ShardClient* s : shards) {
    auto [it, fresh] = seen.emplace(ShardTag(s->name()), s->name());
    if (!fresh) {
      if (it->second == s->name()) return Status::InvalidArgument("shard '" + s->name() + "' is given twice");
      return Status::InvalidArgument("shards '" + it->second + "' and '" + s->name() +
                                     "' have the same chunk id tag; rename one");
    }
  }
  return Status::Ok();
}

Result<DocumentInfo> EngineShard::Document(const ShardCall&, const SearchFilter& filter, const std::string& id) const {
  return engine_->GetDocument(filter, id);
}

Result<DocumentListing> EngineShard::Documents(const ShardCall&, const ListDocumentsOptions& options) const {
  return engine_->ListDocuments(options);
}

void AddStatistics(const ShardStatistics& part, ShardStatistics* sum) {
  sum->snapshot_version = 0;
  sum->num_docs += part.num_docs;
  for (size_t f = 0; f < sum->total_len.size(); ++f) sum->total_len[f] += part.total_len[f];
  for (const auto& [term, df] : part.doc_freq) sum->doc_freq[term] += df;
}

Result<SearchResult> ScatterSearch(const ScatterArgs& args) {
  if (args.shards.empty()) return Status::Unavailable("the cluster has no shard to search");
  const auto t0 = std::chrono::steady_clock::now();
  SearchResult out;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ATTEST_ASSIGN_OR_RETURN(Attempt a, TryScatter(args, &out));
    if (a == Attempt::kDone) {
      out.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return out;
    }
  }
  return Status::Unavailable("a shard released its snapshot twice between the phases of one search");
}

}  // namespace attest
