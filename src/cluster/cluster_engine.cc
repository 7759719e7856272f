#include "cluster/cluster_engine.h"

#include <atomic>
#include <random>

#include <spdlog/spdlog.h>

#include "answer/answer_config.h"
#include "answer/answer_pipeline.h"
#include "answer/live_fetch.h"
#include "attest/answer.h"
#include "cluster/cluster_corpus.h"
#include "cluster/cluster_ingest.h"
#include "cluster/change_codec.h"
#include "cluster/scatter_documents.h"
#include "common/checksum.h"
#include "index/document_api.h"

namespace attest {
namespace {

Status NotOnACoordinator(const std::string& what) {
  return Status::Unsupported(what + " is not available on a cluster coordinator yet (docs/cluster.md, \"Coordinators\")");
}

class ClusterEngine final : public Engine {
 public:
  ClusterEngine(ClusterEngineOptions options, std::shared_ptr<const ShardSet> set)
      : options_(std::move(options)), clock_(options_.clock ? options_.clock : RealClock()), set_(std::move(set)) {}

  // Files are appended to the change log as `attest ingest --cluster` appends them (cluster_ingest.h;
  // HTML, Markdown and text), with the watcher's callbacks; the report counts appends as added and
  // acknowledged duplicates as unchanged, and its snapshot_version is the log's last sequence.
  Result<IngestReport> Ingest(const IngestOptions& io) override {
    if (!options_.log) return NotOnACoordinator("ingesting files (no change log is configured)");
    const auto t0 = std::chrono::steady_clock::now();
    ClusterIngestOptions co;
    co.paths = io.paths;
    co.root = io.root;
    co.files = io.files;
    co.defaults.tenant = io.tenant;
    co.defaults.acl_groups = io.acl_groups;
    co.defaults.access_label = io.access_label;
    co.defaults.source_type = io.source_type;
    co.defaults.version = io.version;
    co.defaults.site = io.site;
    co.defaults.license = io.license;
    co.access_levels = options_.access_levels;
    co.before_append = io.before_commit;
    co.on_document = io.on_document;
    if (io.on_commit) co.on_ack = [&io](const std::string& id, uint64_t, bool) { io.on_commit({id}); };
    ATTEST_ASSIGN_OR_RETURN(ClusterIngestReport r, AppendSources(*options_.log, co));
    IngestReport report;
    report.files = r.files;
    report.documents_seen = r.appended + r.duplicates + r.stale;
    report.added = r.appended;
    report.unchanged = r.duplicates;
    report.snapshot_version = r.last_sequence;
    report.issues = std::move(r.issues);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    last_sequence_.store(std::max(last_sequence_.load(), r.last_sequence));
    return report;
  }

  Result<SearchResult> Search(const SearchOptions& given) const override {
    ATTEST_ASSIGN_OR_RETURN(const Pinned pinned, PinShards());
    ScatterArgs args;
    args.shards = pinned.raw;
    args.options = given;
    std::vector<std::string> notices;
    if (args.options.mode == SearchMode::kAuto) {
      args.options.mode = SearchMode::kBm25;
      notices.push_back("a cluster searches BM25 only");
    }
    args.call.request_id = NextRequestId();
    args.call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.search_deadline_ms);
    ATTEST_ASSIGN_OR_RETURN(SearchResult r, Unavailable503(ScatterSearch(args), "search " + args.call.request_id));
    r.notices.insert(r.notices.begin(), notices.begin(), notices.end());
    return r;
  }

  Result<uint64_t> Delete(const std::string& tenant, const std::string& id) override {
    if (!options_.log) return NotOnACoordinator("writing (no change log is configured)");
    DocumentChange c;
    c.kind = DocumentChange::Kind::kDelete;
    c.tenant = tenant;
    c.id = id;
    c.payload = EncodeDelete(tenant, id);
    c.idempotency_key = Sha256Hex(c.payload);
    c.source_version = AcceptedAtMs();
    ATTEST_ASSIGN_OR_RETURN(AppendAck ack, Append(c));
    last_sequence_.store(std::max(last_sequence_.load(), ack.sequence));
    return uint64_t{1};  // accepted: the shards apply it from the log (a missing document stays missing)
  }

  Result<EngineStats> Stats() const override { return EngineStats{}; }
  Result<ReembedReport> Reembed() override { return NotOnACoordinator("re-embedding"); }
  Status WaitForVectors() override { return Status::Ok(); }
  Status RefreshVectors() override { return NotOnACoordinator("the vector leg"); }
  // The answer pipeline of one process over the shards (cluster_corpus.h): BM25 retrieval, the
  // built-in planner, reranking features, extractive writer and checks, with the defaults of the
  // answer configuration. Live fetch and the vector leg are a single process's.
  Result<AnswerResult> Ask(const AskOptions& options) const override {
    ATTEST_ASSIGN_OR_RETURN(const Pinned pinned, PinShards());
    ClusterCorpusArgs ca;
    ca.shards = pinned.raw;
    ca.request_id = NextRequestId();
    const std::string request_id = ca.request_id;
    ca.caller = options.filter.tenant;
    ca.call_deadline_ms = options_.search_deadline_ms;
    ClusterCorpus corpus(std::move(ca));
    AnswerContext ctx;
    ctx.corpus = &corpus;
    ctx.analyzer = &analyzer_;
    ctx.config = &answer_config_;
    ctx.clock = options_.clock;
    Result<AnswerResult> r = RunAnswer(ctx, options);
    if (!r.ok()) return Unavailable503(std::move(r), "answer " + request_id);
    AnswerResult out = std::move(r).value();
    for (std::string& d : corpus.degraded()) out.degraded.push_back(std::move(d));
    out.cluster_snapshot = corpus.cluster_snapshot();
    SealManifest(options, &out);  // again, naming the shards' snapshots
    FillFreshness(corpus, options.filter, WallMs(), &out);
    return out;
  }

  // Every document is checked as one store checks it before anything is appended; then each is
  // appended with the SHA-256 of its payload as the idempotency key (a retried request is a
  // duplicate of the first). The report's snapshot_version is the change log's sequence of the
  // last write: the shards hold the documents once their positions reach it.
  Result<PutDocumentsReport> PutDocuments(const std::vector<DocumentSpec>& docs) override {
    if (!options_.log) return NotOnACoordinator("writing (no change log is configured)");
    for (const DocumentSpec& d : docs) {
      Result<ParsedDocument> parsed = ParseDocumentSpec(d);
      if (!parsed.ok()) return parsed.status();
    }
    PutDocumentsReport report;
    for (const DocumentSpec& d : docs) {
      DocumentChange c;
      c.kind = DocumentChange::Kind::kUpsert;
      c.tenant = d.tenant;
      c.id = d.id;
      c.payload = EncodeUpsert(d);
      c.idempotency_key = Sha256Hex(c.payload);
      c.source_version = AcceptedAtMs();
      ATTEST_ASSIGN_OR_RETURN(AppendAck ack, Append(c));
      report.snapshot_version = std::max(report.snapshot_version, ack.sequence);
      if (ack.duplicate) {
        ++report.unchanged;
      } else {
        ++report.added;
      }
    }
    last_sequence_.store(std::max(last_sequence_.load(), report.snapshot_version));
    return report;
  }

  // Asked of every shard (scatter_documents.h); no shard answering is the index unavailable.
  Result<DocumentInfo> GetDocument(const SearchFilter& filter, const std::string& id) const override {
    ATTEST_ASSIGN_OR_RETURN(const Pinned pinned, PinShards());
    return Unavailable503(ScatterGetDocument(DocumentArgs(pinned), filter, id), "document " + id);
  }
  Result<DocumentListing> ListDocuments(const ListDocumentsOptions& options) const override {
    if (options.limit == 0 || options.limit > 1000) return Status::InvalidArgument("limit must be 1..1000");
    ATTEST_ASSIGN_OR_RETURN(const Pinned pinned, PinShards());
    return Unavailable503(ScatterListDocuments(DocumentArgs(pinned), options), "listing");
  }
  // Each cited chunk is asked of the shard its id's tag names. A chunk of no current shard (its
  // node left the cluster) is kDeleted: its text cannot be shown again.
  Result<std::vector<CitationState>> CheckCitations(const SearchFilter& who,
                                                    const std::vector<CitedChunk>& cited) const override {
    ATTEST_ASSIGN_OR_RETURN(const Pinned pinned, PinShards());
    std::map<uint16_t, size_t> shard_of_tag;
    for (size_t i = 0; i < pinned.raw.size(); ++i) shard_of_tag[ShardTag(pinned.raw[i]->name())] = i;
    std::vector<std::vector<CitedChunk>> asked(pinned.raw.size());
    std::vector<std::vector<size_t>> where(pinned.raw.size());
    std::vector<CitationState> out(cited.size(), CitationState::kDeleted);
    for (size_t c = 0; c < cited.size(); ++c) {
      const auto [tag, local] = SplitClusterChunkId(cited[c].chunk_id);
      auto it = shard_of_tag.find(tag);
      if (it == shard_of_tag.end()) continue;
      asked[it->second].push_back(CitedChunk{cited[c].doc_id, local});
      where[it->second].push_back(c);
    }
    ShardCall call;
    call.request_id = NextRequestId();
    call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.search_deadline_ms);
    std::vector<Result<std::vector<CitationState>>> replies = ForEachShard<std::vector<CitationState>>(
        pinned.raw.size(), [&](size_t i) -> Result<std::vector<CitationState>> {
          if (asked[i].empty()) return std::vector<CitationState>{};
          return pinned.raw[i]->Citations(call, who, asked[i]);
        });
    for (size_t i = 0; i < replies.size(); ++i) {
      if (!replies[i].ok()) {
        return Unavailable503(Result<std::vector<CitationState>>(Status::Unavailable(
                                  pinned.raw[i]->name() + ": " + replies[i].status().message())),
                              "citations");
      }
      if (replies[i]->size() != asked[i].size()) {
        return Unavailable503(Result<std::vector<CitationState>>(Status::Unavailable(
                                  pinned.raw[i]->name() + ": answered " + std::to_string(replies[i]->size()) +
                                  " citation states for " + std::to_string(asked[i].size()))),
                              "citations");
      }
      for (size_t k = 0; k < where[i].size(); ++k) out[where[i][k]] = (*replies[i])[k];
    }
    return out;
  }
  Result<ApplyChangesReport> ApplyChanges(const ChangeBatch&) override {
    return NotOnACoordinator("applying the change log (shard nodes do)");
  }
  std::map<uint32_t, uint64_t> LogPositions() const override { return {}; }
  // The change log's sequence of the last write this coordinator made (0 before any): the service
  // keys nothing on it in cluster mode (its caches are off).
  uint64_t CurrentSnapshot() const override { return last_sequence_.load(); }
  Status CheckVectorLeg(const std::optional<std::string>&) const override {
    return Status::Unsupported("a cluster searches BM25 only");
  }
  std::pair<uint64_t, uint64_t> EmbeddingCacheCounts() const override { return {0, 0}; }
  Result<FreshnessStats> Freshness() const override { return FreshnessStats{}; }
  Result<ShardStatistics> QueryStatistics(const SearchOptions&) const override {
    return NotOnACoordinator("shard statistics");
  }
  Result<SearchResult> ShardSearch(const SearchOptions&, const ShardStatistics&, uint64_t) const override {
    return NotOnACoordinator("a shard search");
  }
  Result<ShardStatistics> TermStatistics(const SearchFilter&, const std::vector<std::string>&) const override {
    return NotOnACoordinator("shard term statistics");
  }
  Result<std::vector<ChunkContent>> ReadChunks(const SearchFilter&, const std::vector<ChunkId>&) const override {
    return NotOnACoordinator("reading a shard's chunks");
  }
  Result<std::vector<SourceInfo>> ReadSources(const SearchFilter&, const std::vector<std::string>&) const override {
    return NotOnACoordinator("reading a shard's source rows");
  }

 private:
  // Shards that did not answer make the index unavailable (503 "unavailable"), not a model
  // server's error: logged with what each said, reported as busy.
  template <typename T>
  static Result<T> Unavailable503(Result<T> r, const std::string& what) {
    if (r.ok() || r.status().code() != StatusCode::kUnavailable) return r;
    spdlog::warn("{}: {}", what, r.status().ToString());
    return Status::Busy(r.status().message());
  }

  // The shard list current when a request starts, kept (with its clients) until it ends.
  struct Pinned {
    std::shared_ptr<const ShardSet::List> list;
    std::vector<const ShardClient*> raw;
  };
  // kUnavailable for a write-only engine (it has no shards to read).
  Result<Pinned> PinShards() const {
    if (!set_) return Status::Unavailable("this engine only appends to the change log: it reads no shards");
    Pinned p;
    p.list = set_->Current();
    for (const auto& s : *p.list) p.raw.push_back(s.get());
    return p;
  }

  DocumentScatterArgs DocumentArgs(const Pinned& pinned) const {
    DocumentScatterArgs a;
    a.shards = pinned.raw;
    a.call.request_id = NextRequestId();
    a.call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.search_deadline_ms);
    return a;
  }

  // A write through the API has no version of its own source: it is as new as the moment the
  // coordinator accepts it (milliseconds since the epoch), so it replaces what `attest ingest
  // --cluster` wrote from a file modified earlier, and a file modified later replaces it.
  uint64_t AcceptedAtMs() const {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock_->WallNow().time_since_epoch()).count();
    return ms > 0 ? uint64_t(ms) : 0;
  }

  // The log's failures as the caller should see them: a stream that did not acknowledge is the
  // index being unavailable (503, retry: the same request carries the same idempotency keys, so
  // what was appended before the failure is not appended twice), never a model server's error.
  // A stream that does not acknowledge (a server down, a leader being elected: seconds) is tried
  // again with the same change, hence the same idempotency key, until write_deadline_ms has
  // passed since the first attempt; the backoff doubles from 100 ms to 1 s.
  Result<AppendAck> Append(const DocumentChange& c) const {
    const auto start = clock_->Now();
    std::chrono::milliseconds backoff(100);
    for (;;) {
      Result<AppendAck> ack = options_.log->Append(c);
      if (ack.ok()) return ack;
      const StatusCode code = ack.status().code();
      if (code != StatusCode::kUnavailable && code != StatusCode::kDeadlineExceeded) {
        return ack.status();  // kInvalidArgument, or kAlreadyExists for a stale write (409)
      }
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(clock_->Now() - start);
      if (spent + backoff > std::chrono::milliseconds(options_.write_deadline_ms)) {
        spdlog::warn("change log: write of '{}' not acknowledged within {} ms: {}", c.id, options_.write_deadline_ms,
                     ack.status().ToString());
        return Status::Busy("the change log did not acknowledge the write of '" + c.id + "'");
      }
      clock_->SleepFor(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
    }
  }

  std::string NextRequestId() const {
    thread_local std::mt19937_64 rng(std::random_device{}());
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(rng()));
    return buf;
  }

  int64_t WallMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_->WallNow().time_since_epoch()).count();
  }

  ClusterEngineOptions options_;
  const Clock* clock_;
  Analyzer analyzer_;
  AnswerConfig answer_config_;
  std::shared_ptr<const ShardSet> set_;
  mutable std::atomic<uint64_t> last_sequence_{0};
};

}  // namespace

Result<std::unique_ptr<Engine>> OpenClusterEngine(ClusterEngineOptions options) {
  if (options.search_deadline_ms == 0) return Status::InvalidArgument("search_deadline_ms must be positive");
  std::shared_ptr<const ShardSet> set = options.shard_set;
  if (options.write_only) {
    if (!options.log) return Status::InvalidArgument("a write-only cluster engine needs a change log");
    if (set || !options.shards.empty()) return Status::InvalidArgument("a write-only cluster engine takes no shards");
  } else if (!set) {
    ATTEST_ASSIGN_OR_RETURN(set, ShardSet::Make(options.shards));
  } else if (!options.shards.empty()) {
    return Status::InvalidArgument("a cluster coordinator takes shards or a shard set, not both");
  }
  return std::unique_ptr<Engine>(new ClusterEngine(std::move(options), std::move(set)));
}

}  // namespace attest
