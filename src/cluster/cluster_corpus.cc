#include "cluster/cluster_corpus.h"

#include "cluster/scatter_documents.h"
#include "ingest/provenance.h"

namespace attest {
namespace {

// Statistics of analyzed terms summed over the shards, asked for once per term.
class ClusterTermStats final : public CorpusTermStats {
 public:
  ClusterTermStats(const ClusterCorpus* corpus, SearchFilter who) : corpus_(corpus), who_(std::move(who)) {}

  uint64_t DocFreq(const std::string& term) const override {
    {
      MutexLock lock(mu_);
      auto it = df_.find(term);
      if (it != df_.end()) return it->second;
    }
    Fetch({term});
    MutexLock lock(mu_);
    return df_[term];
  }

  uint64_t NumDocs() const override {
    {
      MutexLock lock(mu_);
      if (num_docs_) return *num_docs_;
    }
    Fetch({});
    MutexLock lock(mu_);
    return num_docs_.value_or(0);
  }

  void Prefetch(std::span<const std::string> terms) const override {
    std::vector<std::string> missing;
    {
      MutexLock lock(mu_);
      for (const std::string& t : terms) {
        if (!df_.count(t)) missing.push_back(t);
      }
    }
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    if (!missing.empty() || !HaveNumDocs()) Fetch(missing);
  }

 private:
  bool HaveNumDocs() const {
    MutexLock lock(mu_);
    return num_docs_.has_value();
  }

  void Fetch(const std::vector<std::string>& terms) const {
    const std::vector<const ShardClient*>& shards = corpus_->shards();
    const ShardCall call = corpus_->Call();
    std::vector<Result<ShardStatistics>> parts = ForEachShard<ShardStatistics>(
        shards.size(), [&](size_t i) { return shards[i]->TermStatistics(call, who_, terms); });
    ShardStatistics sum;
    bool any = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i].ok()) {
        corpus_->NoteDegraded(shards[i]->name(), parts[i].status());
        continue;
      }
      any = true;
      sum.num_docs += parts[i]->num_docs;
      for (const std::string& t : terms) {
        auto it = parts[i]->doc_freq.find(t);
        if (it != parts[i]->doc_freq.end()) sum.doc_freq[t] += it->second;
      }
    }
    MutexLock lock(mu_);
    if (any && !num_docs_) num_docs_ = sum.num_docs;
    for (const std::string& t : terms) df_[t] = sum.doc_freq[t];
  }

  const ClusterCorpus* corpus_;
  SearchFilter who_;
  mutable Mutex mu_;
  mutable std::map<std::string, uint64_t> df_ GUARDED_BY(mu_);
  mutable std::optional<uint64_t> num_docs_ GUARDED_BY(mu_);
};

}  // namespace

ShardCall ClusterCorpus::Call() const {
  ShardCall call;
  call.request_id = args_.request_id;
  call.caller = args_.caller;
  call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(args_.call_deadline_ms);
  return call;
}

void ClusterCorpus::NoteDegraded(const std::string& shard, const Status& why) const {
  MutexLock lock(mu_);
  degraded_.emplace(shard, why.ToString());
}

std::vector<std::string> ClusterCorpus::degraded() const {
  MutexLock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [shard, why] : degraded_) out.push_back("shard_unavailable: " + shard + ": " + why);
  return out;
}

std::string ClusterCorpus::cluster_snapshot() const {
  MutexLock lock(mu_);
  return cluster_snapshot_;
}

Result<int64_t> ClusterCorpus::CommittedAtUnixMs() const {
  {
    MutexLock lock(mu_);
    if (committed_) return *committed_;
  }
  const ShardCall call = Call();
  std::vector<Result<ShardHealth>> health =
      ForEachShard<ShardHealth>(args_.shards.size(), [&](size_t i) { return args_.shards[i]->Health(call); });
  int64_t newest = 0;
  for (size_t i = 0; i < health.size(); ++i) {
    if (!health[i].ok()) {
      NoteDegraded(args_.shards[i]->name(), health[i].status());
      continue;
    }
    newest = std::max(newest, health[i]->committed_at_ms);
  }
  MutexLock lock(mu_);
  committed_ = newest;
  return newest;
}

Result<SearchResult> ClusterCorpus::Search(const Analyzer&, const SearchOptions& options, const VectorLegInput&) const {
  ScatterArgs args;
  args.shards = args_.shards;
  args.options = options;
  args.options.mode = SearchMode::kBm25;  // a cluster searches BM25 only (each node's vector model is its own)
  args.call = Call();
  ATTEST_ASSIGN_OR_RETURN(SearchResult r, ScatterSearch(args));
  MutexLock lock(mu_);
  cluster_snapshot_ = r.cluster_snapshot;
  return r;
}

Result<std::vector<ChunkRecord>> ClusterCorpus::GetChunks(const SearchFilter& who, std::span<const ChunkId> ids) const {
  // Group by the shard each id's tag names; ids of no shard of this coordinator are not visible.
  std::map<uint16_t, size_t> shard_of_tag;
  for (size_t i = 0; i < args_.shards.size(); ++i) shard_of_tag[ShardTag(args_.shards[i]->name())] = i;
  std::vector<std::vector<ChunkId>> asked(args_.shards.size());
  for (ChunkId id : ids) {
    const auto [tag, local] = SplitClusterChunkId(id);
    auto it = shard_of_tag.find(tag);
    if (it != shard_of_tag.end()) asked[it->second].push_back(local);
  }
  const ShardCall call = Call();
  std::vector<Result<std::vector<ChunkContent>>> replies =
      ForEachShard<std::vector<ChunkContent>>(args_.shards.size(), [&](size_t i) -> Result<std::vector<ChunkContent>> {
        if (asked[i].empty()) return std::vector<ChunkContent>{};
        return args_.shards[i]->Chunks(call, who, asked[i]);
      });
  std::map<uint64_t, ChunkRecord> found;  // cluster id -> record
  for (size_t i = 0; i < replies.size(); ++i) {
    if (!replies[i].ok()) {
      NoteDegraded(args_.shards[i]->name(), replies[i].status());
      continue;
    }
    const uint16_t tag = ShardTag(args_.shards[i]->name());
    for (const ChunkContent& c : *replies[i]) {
      // Untrusted: a chunk the shard was not asked for, or a malformed one, fails the shard.
      if (std::find(asked[i].begin(), asked[i].end(), c.id) == asked[i].end()) {
        NoteDegraded(args_.shards[i]->name(), Status::Unavailable("answered chunk " + std::to_string(c.id.get()) + ", not asked for"));
        break;
      }
      Result<ChunkRecord> record = ChunkFromContent(c);
      Result<ChunkId> cluster_id = ClusterChunkId(tag, c.id);
      if (!record.ok() || !cluster_id.ok()) {
        NoteDegraded(args_.shards[i]->name(), record.ok() ? cluster_id.status() : record.status());
        break;
      }
      record->id = *cluster_id;
      found.emplace(cluster_id->get(), std::move(record).value());
    }
  }
  std::vector<ChunkRecord> out;
  for (ChunkId id : ids) {
    auto it = found.find(id.get());
    if (it != found.end()) out.push_back(it->second);
  }
  return out;
}

void ClusterCorpus::PrefetchSources(const SearchFilter& who, std::span<const std::string> ids) const {
  std::vector<std::string> missing;
  {
    MutexLock lock(mu_);
    for (const std::string& id : ids) {
      if (!sources_.count({who.tenant, id})) missing.push_back(id);
    }
  }
  if (missing.empty()) return;
  const ShardCall call = Call();
  std::vector<Result<std::vector<SourceInfo>>> replies = ForEachShard<std::vector<SourceInfo>>(
      args_.shards.size(), [&](size_t i) { return args_.shards[i]->Sources(call, who, missing); });
  MutexLock lock(mu_);
  for (size_t i = 0; i < replies.size(); ++i) {  // shard order: the first that has a document answers for it
    if (!replies[i].ok()) continue;  // its documents are read one by one in Source, which names a failure
    for (const SourceInfo& s : *replies[i]) {
      if (std::find(missing.begin(), missing.end(), s.id) == missing.end()) continue;  // not asked for
      sources_.emplace(std::make_pair(who.tenant, s.id), SourceFromInfo(s));
    }
  }
}

std::shared_ptr<const CorpusTermStats> ClusterCorpus::TermStats(const SearchFilter& who) const {
  return std::make_shared<ClusterTermStats>(this, who);
}

Result<SourceRow> ClusterCorpus::Source(const SearchFilter& who, const std::string& id) const {
  {
    MutexLock lock(mu_);
    auto it = sources_.find({who.tenant, id});
    if (it != sources_.end()) return it->second;
  }
  DocumentScatterArgs args;
  args.shards = args_.shards;
  args.call = Call();
  ATTEST_ASSIGN_OR_RETURN(DocumentInfo doc, ScatterGetDocument(args, who, id));
  SourceRow row;
  row.url = doc.url;
  row.license = doc.license;
  row.feed = doc.feed;
  row.published = ParseDate(doc.published);
  row.updated = ParseDate(doc.updated);
  row.fetched_at_ms = ParseUtcTimestamp(doc.fetched_at).value_or(0);
  MutexLock lock(mu_);
  sources_.emplace(std::make_pair(who.tenant, id), row);
  return row;
}

}  // namespace attest
