// Engine: the composition root behind the public API. Wires the analyzer, ingestion (src/index),
// the store, the vector leg (src/vector), the search runner and the answer pipeline together.
#include "attest/engine.h"

#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "answer/answer_config.h"
#include "answer/answer_pipeline.h"
#include "answer/live_fetch.h"
#include "answer/live_page.h"
#include "answer/tiering.h"
#include "attest/answer.h"
#include "common/thread_annotations.h"
#include "engine/change_apply.h"
#include "index/document_api.h"
#include "index/document_indexer.h"
#include "index/ingest_pipeline.h"
#include "vector/vector_leg.h"
#include "llm/chat_client.h"
#include "rerank/http_reranker.h"
#include "rerank/rerank_batcher.h"
#include "rerank/tei_pair_scorer.h"
#include "verify/llm_judge.h"
#include "write/llm_writer.h"
#include "search/search_runner.h"
#include "search/shard_merge.h"
#include "store/recent_pins.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {
namespace {

// RerankOptions::batch_pairs > 0: the pairs of concurrent answers pooled into calls to TEI's
// POST /predict (docs/rerank.md, "Batching across requests").
Result<std::shared_ptr<const Reranker>> BatchingReranker(const RerankOptions& o, std::string api_key,
                                                         const Clock* clock) {
  ATTEST_ASSIGN_OR_RETURN(RerankApi api, ParseRerankApi(o.api));
  if (api != RerankApi::kTei) {
    return Status::InvalidArgument("rerank batching needs the tei API (its POST /predict scores pairs of "
                                   "different queries in one call), not " + o.api);
  }
  TeiPairScorerOptions so;
  so.endpoint.base_url = o.base_url;
  so.endpoint.model = o.model;
  so.endpoint.api_key = std::move(api_key);
  so.endpoint.timeout_ms = o.timeout_ms;
  so.endpoint.clock = clock;
  so.max_pairs = o.batch_pairs;
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const PairScorer> scorer, TeiPairScorer::Create(so));
  RerankBatcherOptions bo;
  bo.max_pairs = o.batch_pairs;
  bo.window = std::chrono::milliseconds(o.batch_window_ms);
  bo.deadline_fraction = o.batch_deadline_fraction;
  bo.max_concurrent_calls = o.batch_max_calls;
  bo.clock = clock;
  bo.observer = o.batch_observer;
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Reranker> batcher, RerankBatcher::Create(std::move(scorer), bo));
  return batcher;
}

class EngineImpl final : public Engine {
 public:
  explicit EngineImpl(const EngineOptions& options)
      : options_(options), indexer_(analyzer_, ChunkerOptions{}) {}

  Status Init() {
    // The answer pipeline's configuration, parsed once here rather than on every answer.
    ATTEST_ASSIGN_OR_RETURN(answer_config_,
                            AnswerConfig::FromJson(options_.planner_config_json, options_.source_hierarchy_json));
    ATTEST_ASSIGN_OR_RETURN(tier_policy_, TierPolicyFromJson(options_.tier_profile_json));
    StoreOptions so;
    so.dir = options_.data_dir;
    so.read_only = options_.read_only;
    // DocumentIndexer::Reindex is thread-safe (the Analyzer keeps per-thread state).
    so.reindex = [this](const ChunkRecord& c, const DocumentRecord& d) { return indexer_.Reindex(c, d); };
    so.merge_threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    so.fault_hook = options_.fault_hook;
    ATTEST_ASSIGN_OR_RETURN(store_, Store::Open(so));
    vectors_ = std::make_unique<VectorLeg>(store_.get(), options_);
    // A long-running writer (the server) does not wait for the next write to build the vector files
    // a killed process left missing, or to train the models of tenants that have none (a store just
    // upgraded): the vector policy runs once at open, in the background.
    if (!options_.read_only && options_.background_vectors) {
      ATTEST_RETURN_IF_ERROR(vectors_->AfterIngest());
    }
    ATTEST_RETURN_IF_ERROR(BuildModelClients());
    if (options_.live_fetch.fetcher != nullptr) {
      live_ = std::make_unique<LiveFetcher>(options_.live_fetch, options_.clock);
    }
    return Status::Ok();
  }

  // The injected model clients (EngineOptions::models), else the HTTP clients the options describe.
  Status BuildModelClients() {
    auto key = [this](const std::string& variable) {
      return options_.credentials && !variable.empty() ? options_.credentials(variable) : std::string();
    };
    reranker_ = options_.models.reranker;
    if (reranker_ == nullptr && !options_.rerank.base_url.empty() && options_.rerank.batch_pairs > 0) {
      ATTEST_ASSIGN_OR_RETURN(reranker_,
                              BatchingReranker(options_.rerank, key(options_.rerank.api_key_env), options_.clock));
    } else if (reranker_ == nullptr && !options_.rerank.base_url.empty()) {
      HttpRerankerOptions ro;
      ro.endpoint.base_url = options_.rerank.base_url;
      ro.endpoint.model = options_.rerank.model;
      ro.endpoint.api_key = key(options_.rerank.api_key_env);
      ro.endpoint.timeout_ms = options_.rerank.timeout_ms;
      ro.endpoint.clock = options_.clock;
      ATTEST_ASSIGN_OR_RETURN(ro.api, ParseRerankApi(options_.rerank.api));
      ATTEST_ASSIGN_OR_RETURN(reranker_, HttpReranker::Create(ro));
    }
    ATTEST_ASSIGN_OR_RETURN(chat_, ChatOf(options_.models.chat, options_.llm, key));
    ATTEST_RETURN_IF_ERROR(BuildPlannerModel(key));
    if (chat_ != nullptr) {
      LlmWriterOptions wo;
      wo.max_tokens = options_.llm.max_tokens;
      llm_writer_ = std::make_unique<LlmWriter>(*chat_, wo);
      judge_ = std::make_unique<LlmJudge>(*chat_);
      // The large tier routes only beside a small one (docs/models.md, "Tiering and escalation").
      ATTEST_ASSIGN_OR_RETURN(chat_large_, ChatOf(options_.models.chat_large, options_.llm_large, key));
      if (chat_large_ != nullptr) {
        wo.max_tokens = options_.llm_large.max_tokens;
        llm_writer_large_ = std::make_unique<LlmWriter>(*chat_large_, wo);
      }
    }
    return Status::Ok();
  }

  // The injected chat model, else an HTTP client of `o`, else none (empty base_url).
  Result<std::shared_ptr<const ChatModel>> ChatOf(std::shared_ptr<const ChatModel> injected, const LlmOptions& o,
                                                  const std::function<std::string(const std::string&)>& key) {
    if (injected != nullptr || o.base_url.empty()) return injected;
    ChatClientOptions co;
    co.endpoint.base_url = o.base_url;
    co.endpoint.model = o.model;
    co.endpoint.api_key = key(o.api_key_env);
    co.endpoint.timeout_ms = o.timeout_ms;
    co.endpoint.clock = options_.clock;
    co.max_tokens = o.max_tokens;
    ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const ChatModel> chat, ChatClient::Create(co));
    return chat;
  }

  // The model planner's client: one attempt within the planner's timeout (a planner that waits or
  // retries would cost the answer its latency; its failure costs only the model's plan).
  Status BuildPlannerModel(const std::function<std::string(const std::string&)>& key) {
    const PlannerModelOptions& po = options_.planner_model;
    if (po.max_subqueries < 1 || po.max_subqueries > 16) {
      return Status::InvalidArgument("planner model: max_subqueries must be between 1 and 16");
    }
    if (po.timeout_ms < 1) return Status::InvalidArgument("planner model: timeout_ms must be at least 1");
    planner_limits_.timeout_ms = po.timeout_ms;
    planner_limits_.max_subqueries = po.max_subqueries;
    planner_ = options_.models.planner;
    if (planner_ != nullptr || po.base_url.empty()) return Status::Ok();
    if (po.model.empty()) return Status::InvalidArgument("planner model: base_url needs a model");
    ChatClientOptions co;
    co.endpoint.base_url = po.base_url;
    co.endpoint.model = po.model;
    co.endpoint.api_key = key(po.api_key_env);
    co.endpoint.timeout_ms = po.timeout_ms;
    co.endpoint.connect_timeout_ms = std::min<int64_t>(po.timeout_ms, co.endpoint.connect_timeout_ms);
    co.endpoint.max_retries = 0;
    co.endpoint.clock = options_.clock;
    co.max_tokens = planner_limits_.max_tokens;
    ATTEST_ASSIGN_OR_RETURN(planner_, ChatClient::Create(co));
    return Status::Ok();
  }

  Result<IngestReport> Ingest(const IngestOptions& options) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    if (options.batch_documents == 0) return Status::InvalidArgument("batch_documents must be at least 1");
    ATTEST_RETURN_IF_ERROR(CheckAccessLabel(options_.access_levels, options.access_label));
    IngestPipelineArgs args;
    args.indexer = &indexer_;
    args.store = store_.get();
    args.threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    ATTEST_ASSIGN_OR_RETURN(IngestReport report, RunIngestPipeline(args, options));
    const Clock* clock = options_.clock != nullptr ? options_.clock : RealClock();
    const auto t0 = clock->Now();
    Status v = vectors_->AfterIngest();
    report.vector_seconds = std::chrono::duration<double>(clock->Now() - t0).count();
    if (!v.ok()) {
      // The documents are committed; only their vectors are missing. Say so, do not fail.
      report.issues.push_back(IngestIssue{"(vector leg)", 0, "vectors not updated: " + v.ToString()});
    }
    std::shared_ptr<const Snapshot> snap = store_->Pin();
    if (const EmbedderRecord* e = snap->embedder(options.tenant)) {
      report.embedder = e->name + " " + std::to_string(e->dim) + " " + e->version;
    }
    return report;
  }

  Result<SearchResult> Search(const SearchOptions& given) const override {
    SearchOptions options = given;
    ResolveClearance(options_.access_levels, &options.filter);
    std::shared_ptr<const Snapshot> snap = store_->Pin();
    VectorLegInput vin;
    std::shared_ptr<const VectorView> view;
    if (options.mode != SearchMode::kBm25) {
      auto v = vectors_->ViewOf(*snap, options.filter.tenant);
      if (!v.ok()) {
        if (options.mode != SearchMode::kAuto) return v.status().WithContext("vector leg");
        vin.unavailable = v.status().message();
      } else {
        view = std::move(v).value();
      }
    }
    vin.view = view.get();
    vin.embed_query = [this, &view](const std::string& text) { return vectors_->EmbedQuery(*view, text); };
    vin.pool = &pool_;
    return RunSearch(*snap, analyzer_, options, vin);
  }

  Result<ShardStatistics> QueryStatistics(const SearchOptions& given) const override {
    SearchOptions options = given;
    ResolveClearance(options_.access_levels, &options.filter);
    std::shared_ptr<const Snapshot> snap = store_->Pin();
    ATTEST_ASSIGN_OR_RETURN(CorpusCounts counts, QueryCounts(*snap, analyzer_, options));
    ShardStatistics out;
    out.snapshot_version = snap->version().get();
    out.num_docs = counts.num_docs;
    out.total_len = counts.total_len;
    out.doc_freq.insert(counts.doc_freq.begin(), counts.doc_freq.end());
    shard_pins_.Keep(std::move(snap));
    return out;
  }

  Result<SearchResult> ShardSearch(const SearchOptions& given, const ShardStatistics& global,
                                   uint64_t shard_snapshot) const override {
    SearchOptions options = given;
    if (options.mode == SearchMode::kVector || options.mode == SearchMode::kHybrid) {
      return Status::InvalidArgument(std::string("mode: a cluster searches BM25 only, not ") +
                                     SearchModeName(options.mode));
    }
    options.mode = SearchMode::kBm25;
    ResolveClearance(options_.access_levels, &options.filter);
    std::shared_ptr<const Snapshot> snap = shard_pins_.Find(shard_snapshot);
    if (!snap) {
      return Status::NotFound("snapshot " + std::to_string(shard_snapshot) + " of this shard is no longer pinned");
    }
    CorpusCounts counts;
    counts.num_docs = global.num_docs;
    counts.total_len = global.total_len;
    counts.doc_freq.insert(global.doc_freq.begin(), global.doc_freq.end());
    return RunSearch(*snap, analyzer_, options, VectorLegInput{}, ShardScoring{.global = &counts, .raw_ranking = true});
  }

  SearchFilter Resolved(SearchFilter who) const {  // the clearance resolved into labels
    ResolveClearance(options_.access_levels, &who);
    return who;
  }

  Result<ShardStatistics> TermStatistics(const SearchFilter& who, const std::vector<std::string>& terms) const override {
    return TermStatisticsOf(*store_->Pin(), Resolved(who), terms);
  }

  Result<std::vector<ChunkContent>> ReadChunks(const SearchFilter& who, const std::vector<ChunkId>& ids) const override {
    ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, ReadableChunks(*store_->Pin(), Resolved(who), ids));
    std::vector<ChunkContent> out;
    for (const ChunkRecord& c : chunks) out.push_back(ContentOfChunk(c));
    return out;
  }

  Result<std::vector<SourceInfo>> ReadSources(const SearchFilter& who, const std::vector<std::string>& ids) const override {
    std::vector<SourceInfo> out;
    for (auto& [id, row] : ReadableSources(*store_->Pin(), Resolved(who), ids)) {
      row.fetched_at_ms = FetchedAtMs(row, who.tenant, id, live_.get());  // a live fetch's confirmation moves it
      out.push_back(InfoOfSource(id, row));
    }
    return out;
  }

  Result<AnswerResult> Ask(const AskOptions& given) const override {
    AskOptions options = given;
    ResolveClearance(options_.access_levels, &options.filter);
    // Live fetch first (docs/answer.md, "Live fetch"): it may put refreshed pages, so the answer
    // pins the snapshot after it.
    LiveFetchOutcome live;
    if (live_ != nullptr && options.live_fetch) {
      const Clock* clock = options_.clock != nullptr ? options_.clock : RealClock();
      const auto t0 = clock->Now();
      std::shared_ptr<const Snapshot> before = store_->Pin();
      SnapshotAnswerCorpus before_corpus(before.get());
      AnswerContext plan_ctx;
      plan_ctx.corpus = &before_corpus;
      plan_ctx.analyzer = &analyzer_;
      plan_ctx.config = &answer_config_;
      live = live_->Run(plan_ctx, options, [this, &options](const std::vector<ArrivedPage>& pages) {
        return RefreshPages(options.filter, pages);
      });
      if (options.deadline_ms > 0) {  // what live fetch spent (its planning included) is gone
        const int64_t spent = std::chrono::duration_cast<std::chrono::milliseconds>(clock->Now() - t0).count();
        options.deadline_ms = static_cast<uint32_t>(std::max<int64_t>(1, int64_t{options.deadline_ms} - spent));
      }
    }
    std::shared_ptr<const Snapshot> snap = store_->Pin();  // every round of this answer reads it
    VectorLegInput vin;
    std::shared_ptr<const VectorView> view;
    auto v = vectors_->ViewOf(*snap, options.filter.tenant);
    if (v.ok()) {
      view = std::move(v).value();
    } else {
      vin.unavailable = v.status().message();
    }
    vin.view = view.get();
    vin.embed_query = [this, &view](const std::string& text) { return vectors_->EmbedQuery(*view, text); };
    vin.pool = &pool_;
    SnapshotAnswerCorpus corpus(snap.get());
    AnswerContext ctx;
    ctx.corpus = &corpus;
    ctx.analyzer = &analyzer_;
    ctx.vector = vin;
    ctx.llm_writer = llm_writer_.get();
    ctx.judge = judge_.get();
    ctx.reranker = reranker_.get();
    ctx.live = live_.get();
    ctx.config = &answer_config_;
    ctx.planner = planner_.get();
    ctx.planner_limits = planner_limits_;
    ctx.clock = options_.clock;
    ctx.prices = &options_.prices;
    ctx.llm_writer_large = llm_writer_large_.get();
    ctx.tiers = &tier_policy_;
    ctx.planner_price = {options_.planner_model.prompt_price_per_mtok, options_.planner_model.completion_price_per_mtok};
    ctx.small_price = {options_.llm.prompt_price_per_mtok, options_.llm.completion_price_per_mtok};
    ctx.large_price = {options_.llm_large.prompt_price_per_mtok, options_.llm_large.completion_price_per_mtok};
    ATTEST_ASSIGN_OR_RETURN(AnswerResult r, RunAnswer(ctx, options));
    if (!vin.unavailable.empty()) r.degraded.insert(r.degraded.begin(), "vector_leg_unavailable: " + vin.unavailable);
    r.live_fetch = std::move(live.report);
    r.degraded.insert(r.degraded.end(), live.notices.begin(), live.notices.end());
    const Clock* clock = options_.clock != nullptr ? options_.clock : RealClock();
    FillFreshness(corpus, options.filter,
                  std::chrono::duration_cast<std::chrono::milliseconds>(clock->WallNow().time_since_epoch()).count(),
                  &r);
    if (r.live_fetch.attempted > 0) {
      StageCost& fetch = r.stage_costs["live_fetch"];
      fetch.fetches = r.live_fetch.attempted;
      fetch.cost = double(r.live_fetch.attempted) * options_.prices.per_fetch;
    }
    r.cost = TotalCost(r.stage_costs);  // every stage present, a research stage included (docs/cost.md)
    return r;
  }

  Result<uint64_t> Delete(const std::string& tenant, const std::string& id) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    MutexLock lock(write_mu_);
    WriteBatch batch;
    batch.deletes.push_back({tenant, id});
    ATTEST_ASSIGN_OR_RETURN(CommitResult cr, store_->Commit(std::move(batch)));
    if (cr.deleted == 0) {
      return Status::NotFound("no document '" + id + "'" + (tenant.empty() ? "" : " in tenant '" + tenant + "'"));
    }
    return cr.version.get();
  }

  Result<EngineStats> Stats() const override {
    ATTEST_ASSIGN_OR_RETURN(StoreStats s, store_->Pin()->Stats());
    EngineStats out;
    out.snapshot_version = s.version.get();
    out.documents = s.documents;
    out.chunks = s.chunks;
    out.segments = s.segments;
    out.segment_bytes = s.segment_bytes;
    out.catalog_bytes = s.catalog_bytes;
    out.source_bytes = s.source_bytes;
    vectors_->FillStats(*store_->Pin(), &out);
    return out;
  }

  Result<ReembedReport> Reembed() override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    return vectors_->Reembed(options_.embedder);
  }

  Status WaitForVectors() override { return vectors_->Wait(); }

  Status RefreshVectors() override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    ATTEST_RETURN_IF_ERROR(vectors_->AfterIngest());
    return options_.background_vectors ? Status::Ok() : vectors_->Wait();
  }

  Result<PutDocumentsReport> PutDocuments(const std::vector<DocumentSpec>& docs) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    if (docs.empty()) return Status::InvalidArgument("no documents");
    // Parsing and analysis run before the write lock: a slow document (a large page, one near the
    // HTML limits) delays only its own request, never other tenants' writes.
    WriteBatch batch;
    PutDocumentsReport report;
    for (size_t i = 0; i < docs.size(); ++i) {
      const DocumentSpec& spec = docs[i];
      auto parsed = ParseDocumentSpec(spec);
      if (!parsed.ok()) return parsed.status().WithContext("document " + std::to_string(i) + " ('" + spec.id + "')");
      Status label = CheckAccessLabel(options_.access_levels, spec.access_label);
      if (!label.ok()) return label.WithContext("document " + std::to_string(i) + " ('" + spec.id + "')");
      DocumentDefaults defaults;
      defaults.tenant = spec.tenant;
      defaults.acl_groups = spec.acl_groups;
      defaults.access_label = spec.access_label;
      batch.upserts.push_back(indexer_.Prepare(*parsed, defaults, spec.text.size()));
    }
    MutexLock lock(write_mu_);
    // The versions these documents replace, read under the lock so that no other write lands between
    // this read and the commit (the caller drops cached answers that cite them).
    std::shared_ptr<const Snapshot> before = store_->Pin();
    for (const PreparedDocument& prepared : batch.upserts) {
      auto old = before->FindDocument(DocumentKey{prepared.record.tenant, prepared.record.id});
      if (old.ok() && old->sha256 != prepared.record.sha256) {
        ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, before->ChunksOfDocument(old->num));
        for (const ChunkRecord& c : chunks) report.superseded_chunks.push_back(c.id);
      }
    }
    ATTEST_ASSIGN_OR_RETURN(CommitResult cr, store_->Commit(std::move(batch)));
    report.snapshot_version = cr.version.get();
    report.added = cr.added;
    report.replaced = cr.replaced;
    report.unchanged = cr.unchanged;
    report.chunks = cr.chunks_added;
    if (cr.added + cr.replaced > 0) {
      Status v = vectors_->AfterIngest();
      if (!v.ok()) spdlog::warn("vectors not updated after a document put: {}", v.ToString());
    }
    return report;
  }

  Result<ApplyChangesReport> ApplyChanges(const ChangeBatch& changes) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    // Parsing and analysis before the write lock, as in PutDocuments.
    ATTEST_ASSIGN_OR_RETURN(PreparedChanges prepared, PrepareChanges(changes, indexer_, options_.access_levels));
    MutexLock lock(write_mu_);
    ATTEST_ASSIGN_OR_RETURN(uint32_t dropped, AddDrops(changes, *store_->Pin(), &prepared));
    ATTEST_ASSIGN_OR_RETURN(CommitResult cr, store_->Commit(std::move(prepared.batch)));
    ApplyChangesReport& report = prepared.report;
    report.snapshot_version = cr.version.get();
    report.added = cr.added;
    report.replaced = cr.replaced;
    report.unchanged = cr.unchanged;
    report.dropped = dropped;
    report.deleted = cr.deleted - std::min(cr.deleted, dropped);
    report.not_found = cr.not_found;
    if (dropped > 0) {
      // Shards given up leave their chunks as tombstones, which still count in N and the document
      // frequencies: merged away now, so this node's statistics are those of a store that never
      // held them (docs/cluster.md, "Shard nodes"). A move is rare; the merge rewrites the segments.
      Status c = store_->Compact();
      if (!c.ok()) spdlog::warn("merge after giving up virtual shards: {}", c.ToString());
    }
    if (cr.added + cr.replaced > 0) {
      Status v = vectors_->AfterIngest();
      if (!v.ok()) spdlog::warn("vectors not updated after applying the change log: {}", v.ToString());
    }
    return report;
  }

  std::map<uint32_t, uint64_t> LogPositions() const override { return store_->Pin()->log_positions(); }

  Result<DocumentInfo> GetDocument(const SearchFilter& who, const std::string& id) const override {
    std::shared_ptr<const Snapshot> snap = store_->Pin();
    ATTEST_ASSIGN_OR_RETURN(DocumentInfo info, ReadDocument(*snap, Resolved(who), id));
    if (live_ != nullptr) {
      // A live fetch that found the page unchanged moved its fetched_at (answer/live_fetch.h).
      if (auto rec = snap->FindDocument(DocumentKey{info.tenant, info.id}); rec.ok()) {
        info.fetched_at = FormatUtcTimestamp(FetchedAtMs(SourceRowOf(*snap, *rec), info.tenant, info.id, live_.get()));
      }
    }
    return info;
  }

  Result<DocumentListing> ListDocuments(const ListDocumentsOptions& options) const override {
    return attest::ListDocuments(*store_->Pin(), options);
  }

  Result<std::vector<CitationState>> CheckCitations(const SearchFilter& who,
                                                    const std::vector<CitedChunk>& cited) const override {
    return CitationStates(*store_->Pin(), Resolved(who), cited);
  }

  uint64_t CurrentSnapshot() const override { return store_->Pin()->version().get(); }

  Status CheckVectorLeg(const std::optional<std::string>& tenant) const override {
    return vectors_->Check(*store_->Pin(), tenant);
  }

  std::pair<uint64_t, uint64_t> EmbeddingCacheCounts() const override {
    return {vectors_->query_cache().hits(), vectors_->query_cache().misses()};
  }

  Result<FreshnessStats> Freshness() const override {
    FreshnessStats out;
    ATTEST_ASSIGN_OR_RETURN(out.last_commit_unix_ms, store_->Pin()->CommittedAtUnixMs());
    out.live_fetch = live_ != nullptr;
    if (live_ != nullptr) {
      const PageCacheStats s = live_->cache_stats();
      out.page_cache_hits = s.hits;
      out.page_cache_revalidated = s.revalidated;
      out.page_cache_misses = s.misses;
    }
    return out;
  }

  // Puts the pages live fetch brought back (answer/live_fetch.h): each as a new version of the
  // document it was fetched for, from that document's latest row (identity and access from the row,
  // never from the page), only while `who` still reads it. The rows are read again under the write
  // lock: a document deleted, re-put or re-permissioned meanwhile is left alone ("document_changed").
  RefreshOutcome RefreshPages(const SearchFilter& who, const std::vector<ArrivedPage>& pages) const {
    RefreshOutcome out;
    if (options_.read_only) {
      for (const ArrivedPage& p : pages) out.failed.emplace_back(p.candidate.url, "read_only");
      return out;
    }
    // Parsing and analysis before the lock, as in PutDocuments.
    std::shared_ptr<const Snapshot> latest = store_->Pin();
    WriteBatch batch;
    std::vector<std::pair<DocNum, std::string>> basis;  // per upsert: the row it refreshes, its URL
    for (const ArrivedPage& p : pages) {
      auto rec = latest->FindDocument(DocumentKey{who.tenant, p.candidate.doc_id});
      if (!rec.ok() || !Admits(who, *rec) || rec->url != p.candidate.url) {
        out.failed.emplace_back(p.candidate.url, "document_changed");
        continue;
      }
      auto spec = RefreshSpec(*rec, p.response);
      auto parsed = spec.ok() ? ParseDocumentSpec(*spec) : Result<ParsedDocument>(spec.status());
      if (!parsed.ok()) {
        out.failed.emplace_back(p.candidate.url, parsed.status().message());
        continue;
      }
      DocumentDefaults defaults;
      defaults.tenant = rec->tenant;
      defaults.acl_groups = rec->acl_groups;
      defaults.access_label = rec->access_label;
      batch.upserts.push_back(indexer_.Prepare(*parsed, defaults, spec->text.size()));
      basis.emplace_back(rec->num, p.candidate.url);
    }
    if (batch.upserts.empty()) return out;
    MutexLock lock(write_mu_);
    std::shared_ptr<const Snapshot> before = store_->Pin();
    WriteBatch changed;
    std::vector<std::string> changed_urls;
    for (size_t i = 0; i < batch.upserts.size(); ++i) {
      PreparedDocument& prepared = batch.upserts[i];
      auto now = before->FindDocument(DocumentKey{prepared.record.tenant, prepared.record.id});
      if (!now.ok() || now->num != basis[i].first) {
        out.failed.emplace_back(basis[i].second, "document_changed");
      } else if (now->sha256 == prepared.record.sha256) {
        out.unchanged_ids.push_back(prepared.record.id);
      } else {
        out.refreshed_ids.push_back(prepared.record.id);
        changed_urls.push_back(basis[i].second);
        changed.upserts.push_back(std::move(prepared));
      }
    }
    if (changed.upserts.empty()) return out;
    auto cr = store_->Commit(std::move(changed));
    if (!cr.ok()) {
      for (const std::string& url : changed_urls) out.failed.emplace_back(url, "commit_failed: " + cr.status().message());
      out.refreshed_ids.clear();
      return out;
    }
    Status v = vectors_->AfterIngest();
    if (!v.ok()) spdlog::warn("vectors not updated after a live fetch: {}", v.ToString());
    return out;
  }

 private:
  EngineOptions options_;
  Analyzer analyzer_;
  DocumentIndexer indexer_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<VectorLeg> vectors_;  // destroyed before the store (joins its background work)
  std::shared_ptr<const ChatModel> chat_;  // the LLM writer's model, when configured
  std::unique_ptr<LlmWriter> llm_writer_;
  std::shared_ptr<const ChatModel> chat_large_;  // the writer's large tier, when configured
  std::unique_ptr<LlmWriter> llm_writer_large_;
  TierPolicy tier_policy_;                        // parsed in Init, read-only after
  std::shared_ptr<const ChatModel> planner_;  // the model planner's model, when configured
  ModelPlannerLimits planner_limits_;
  std::unique_ptr<LlmJudge> judge_;
  std::shared_ptr<const Reranker> reranker_;  // optional cross-encoder for answers
  mutable Mutex write_mu_;              // PutDocuments / Delete / live fetch's refresh
  mutable RecentPins shard_pins_;       // snapshots a cluster's coordinator read statistics from
  std::unique_ptr<LiveFetcher> live_;   // null = live fetch off
  AnswerConfig answer_config_;          // parsed in Init, read-only after
  mutable TaskPool pool_{2};            // runs vector legs concurrently with lexical ones
};

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  if (options.data_dir.empty()) return Status::InvalidArgument("data directory is empty");
  auto engine = std::make_unique<EngineImpl>(options);
  ATTEST_RETURN_IF_ERROR(engine->Init());
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace attest
