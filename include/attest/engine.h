// The public API of Attest: open a data directory, ingest sources, search, ask, delete.
// Everything here is plain C++ types; no third-party type leaks through this header.
//
// Thread-safety: an Engine may be shared by threads. Ingest/Delete calls are serialized internally;
// Search runs concurrently with them and reads the snapshot current when it starts.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attest/change_batch.h"
#include "attest/clock.h"
#include "attest/ids.h"
#include "attest/status.h"

namespace attest {

struct AskOptions;    // attest/answer.h
struct AnswerResult;  // attest/answer.h
class Embedder;       // src/embed/embedder.h
class ChatModel;      // src/llm/chat_model.h
class Reranker;       // src/rerank/reranker.h
class CachedFetcher;  // src/crawl/cached_fetcher.h

// Which embedder makes the vector leg's vectors (docs/embedders.md).
enum class EmbedderKind {
  kCorpusLsa,         // default: LSA by randomized SVD, trained on the ingested corpus (no network)
  kCorpusFastTextSif, // fastText skipgram + SIF weighting, trained on the ingested corpus (slower)
  kOpenAi,            // an OpenAI-compatible /v1/embeddings server
  kNone,              // no vector leg
};

struct EmbedderOptions {
  EmbedderKind kind = EmbedderKind::kCorpusLsa;
  uint32_t dim = 0;                 // corpus models: 0 = the model's default
  uint64_t seed = 42;               // corpus models: training is deterministic for a seed
  // Corpus models are trained once the corpus has at least this many chunks, and retrained when it
  // has grown by `retrain_growth` (0.5 = by half) since the model was trained.
  uint64_t min_chunks = 100;
  double retrain_growth = 0.5;
  // OpenAI-compatible server (kOpenAi): base URL, model, and the name of the key's environment
  // variable (stored with the configuration; EngineOptions::credentials turns it into the key).
  std::string base_url;
  std::string model;
  std::string api_key_env = "ATTEST_EMBED_API_KEY";
  uint32_t batch_size = 64;
  uint32_t timeout_ms = 30000;
};

// The vector index kind of each segment (docs/vector_format.md).
enum class VectorIndexType { kHnsw, kFlat, kIvfPq };

// The chat model of the LLM writer (`attest ask --writer llm`): an OpenAI-compatible
// /v1/chat/completions server. Empty base_url = no LLM writer.
struct LlmOptions {
  std::string base_url;
  std::string model;
  std::string api_key_env = "ATTEST_LLM_API_KEY";
  uint32_t timeout_ms = 60000;
  uint32_t max_tokens = 1024;
  double prompt_price_per_mtok = 0;      // cost accounting, from configuration
  double completion_price_per_mtok = 0;
};

// The model planner (docs/planner.md, "The model planner"): an OpenAI-compatible
// /v1/chat/completions server asked once per answer, after the deterministic planner, for a
// rewrite, a classification and sub-queries. Any failure (a timeout included) leaves the
// deterministic plan. Empty base_url (and no ModelClients::planner) = the deterministic planner only.
struct PlannerModelOptions {
  std::string base_url;
  std::string model;
  std::string api_key_env = "ATTEST_PLANNER_API_KEY";
  uint32_t timeout_ms = 2000;     // the whole call (one attempt: the planner is never retried)
  uint32_t max_subqueries = 4;    // sub-queries accepted from the model, 1..16
  double prompt_price_per_mtok = 0;      // cost accounting (CostPrices), from configuration
  double completion_price_per_mtok = 0;
};

// Prices of the work an answer does that is not a chat model's tokens (docs/cost.md), in the
// operator's currency. A chat model's tokens are priced by its own options (LlmOptions,
// PlannerModelOptions). All 0 = cost is not accounted (counts still are).
struct CostPrices {
  double per_search = 0;       // one search of the index (a retrieval round: a sub-query, a hop)
  double per_fetch = 0;        // one live fetch started
  double per_rerank_pair = 0;  // one query-passage pair sent to the cross-encoder
};

// One event of the reranker's micro-batcher (RerankOptions::batch_pairs), for metrics.
struct RerankBatchEvent {
  enum class Kind { kCall, kRequest };
  Kind kind = Kind::kCall;
  size_t pairs = 0;     // kCall: pairs in the call; kRequest: pairs the request sent
  size_t requests = 0;  // kCall: requests with pairs in the call
  double seconds = 0;   // kCall: the call's duration; kRequest: its added wait (arrival to last pair sent)
  bool ok = true;       // the call, or the request, succeeded
  bool bulk = false;    // kRequest: it waited in the bulk queue
};

// An external cross-encoder reranker for the answer pipeline (docs/rerank.md). Empty base_url =
// the built-in passage features only.
struct RerankOptions {
  std::string base_url;
  std::string model;
  std::string api = "jina";        // tei, jina (also llama.cpp, vLLM), cohere, cohere-v2
  std::string api_key_env = "ATTEST_RERANK_API_KEY";
  uint32_t timeout_ms = 10000;
  // Micro-batching across concurrent answers (docs/rerank.md, "Batching across requests"): the
  // pairs of concurrent answers are pooled into calls of at most batch_pairs pairs to TEI's
  // POST /predict (needs api "tei"). 0 = off: one call per answer, as without it.
  uint32_t batch_pairs = 0;
  uint32_t batch_window_ms = 10;          // the longest an answer waits for company
  double batch_deadline_fraction = 0.1;   // ... and at most this fraction of its time left
  uint32_t batch_max_calls = 8;           // backend calls at once
  std::function<void(const RerankBatchEvent&)> batch_observer;  // metrics; optional
};

// Model clients given by the caller instead of the HTTP clients the options describe (tests with
// fakes, programs embedding the library). Each is optional; the interfaces are in the headers named
// above. Their errors should use the model codes of attest/status.h (docs/models.md).
struct ModelClients {
  // Used for the remote embedder (EmbedderKind::kOpenAi) whenever its identity is the one needed.
  std::shared_ptr<const Embedder> embedder;
  // The LLM writer's and judge's model; set, it is used even when llm.base_url is empty.
  std::shared_ptr<const ChatModel> chat;
  // The cross-encoder of answers; set, it is used even when rerank.base_url is empty.
  std::shared_ptr<const Reranker> reranker;
  // The model planner's model; set, it is used even when planner_model.base_url is empty.
  std::shared_ptr<const ChatModel> planner;
  // The writer's large tier (EngineOptions::llm_large); set, it is used even when llm_large.base_url
  // is empty. Ignored without a small one (chat or llm.base_url).
  std::shared_ptr<const ChatModel> chat_large;
};

// Live fetch at question time (docs/answer.md, "Live fetch"): when a question needs current
// information and the newest source the caller may read is older than `max_age_seconds`, the pages
// of the tenant's version feed and of the top results are fetched again (never other URLs) and put
// back under the same id, ACL, access label and tenant; the answer then reads the new snapshot.
struct LiveFetchOptions {
  // The guarded fetcher and its page cache, built by the adapter with the SSRF policy on
  // (crawl/fetcher.h, crawl/cached_fetcher.h: MakeCachedFetcher). Null = live fetch off.
  std::shared_ptr<CachedFetcher> fetcher;
  // Hosts whose pages may be refreshed: exact names ("docs.example.org") or "*.example.org" for
  // its subdomains; compared with the URL's normalized host. Empty = none, unless any_public_host.
  std::vector<std::string> allowed_hosts;
  bool any_public_host = false;       // any host the SSRF guard admits
  size_t max_urls = 3;                // pages refreshed per answer at most
  double over_fetch = 2.0;            // fetches started = ceil(max_urls * over_fetch); proceed once max_urls arrived
  uint32_t timeout_ms = 2000;         // per fetch, and the longest live fetch waits (within the answer's deadline)
  int64_t max_age_seconds = 86400;    // a newest source at most this old is fresh enough: no fetch; 0 = always fetch
};

struct EngineOptions {
  std::string data_dir = "attest-data";
  bool read_only = false;          // search/stats only; works while another process ingests
  unsigned threads = 0;            // analysis threads for ingestion; 0 = hardware concurrency
  EmbedderOptions embedder;
  LlmOptions llm;        // the writer's and judge's chat model: the small tier when llm_large is set
  // The large tier of the writer (docs/models.md, "Tiering and escalation"): with it, each answer's
  // writer is routed by tier_profile_json, and a small draft that fails the grounding checks is
  // written once more by it. Empty base_url (and no ModelClients::chat_large) = one model, no routing.
  LlmOptions llm_large{.base_url = {}, .model = {}, .api_key_env = "ATTEST_LLM_LARGE_API_KEY"};
  RerankOptions rerank;
  PlannerModelOptions planner_model;
  CostPrices prices;
  VectorIndexType vector_index = VectorIndexType::kHnsw;
  // Train corpus models and build vector files on a background thread after ingestion (queries
  // keep using the previous model until the switch). When false, Ingest() does it before returning.
  bool background_vectors = false;
  // Access labels, lowest first (docs/security.md, "Access labels and clearance"). A document's
  // label must be one of them ("" = unlabelled = the lowest); a caller reads a document when its
  // clearance is at or above the document's label. A stored label this list does not name is
  // readable only by callers without a label restriction (fail closed).
  std::vector<std::string> access_levels{"public", "internal", "confidential", "restricted"};
  // Crash tests only (empty otherwise): called at named points of commits, merges, training and
  // the embedder switch (docs/testing.md lists them); a non-OK Status fails the operation there.
  std::function<Status(std::string_view point)> fault_hook;
  // Turns the name of a key's variable (embedder, llm, planner and rerank `api_key_env`, also the one of a
  // stored embedder configuration) into the key; "" = no key. The core never reads the environment:
  // the adapters (cli/, server/) pass a function that does. Null = no key is ever sent.
  std::function<std::string(const std::string& variable)> credentials;
  // Injected dependencies (LevelDB's Env is the model): model clients, and the clock the model
  // clients sleep and date with (null = RealClock()).
  ModelClients models;
  const Clock* clock = nullptr;
  LiveFetchOptions live_fetch;     // off unless a fetcher is given
  // The answer pipeline's configuration, parsed once by Open (an error there names which is wrong):
  // the planner's aliases and entity types (docs/planner.md) and the source hierarchy's authority
  // tiers (docs/answer.md), each added to the defaults; "" = the defaults.
  std::string planner_config_json;
  std::string source_hierarchy_json;
  // The tiering profile (docs/models.md, "Tiering and escalation"), parsed by Open; "" = the defaults.
  std::string tier_profile_json;
};

// One document an ingestion committed, and the source file it came from (IngestOptions::on_document).
struct IngestedDocument {
  enum class Outcome { kAdded, kReplaced, kUnchanged };
  std::string file;                        // relative to its root, as ListSources names it ("a/b.html")
  std::string id;
  Outcome outcome = Outcome::kAdded;
  std::vector<ChunkId> superseded_chunks;  // kReplaced: the chunks of the version it replaced
};

struct IngestOptions {
  std::vector<std::string> paths;  // files or directories (recursed)
  // Instead of `paths` (which must then be empty): exactly these files, named relative to the
  // directory `root` ('/'-separated), each listed and identified as `paths = {root}` would list and
  // identify it (the same skips of hidden files and web assets, the same ids). A file the walk of
  // `root` would skip is left out silently; a missing one is an issue. For re-ingesting the files
  // of a folder that changed (`attest watch`, docs/watch.md).
  std::string root;
  std::vector<std::string> files;
  std::string tenant;              // "" = default tenant
  std::vector<std::string> acl_groups;  // empty = public
  std::string access_label;        // "" = unlabelled (the lowest level); else one of access_levels
  std::string source_type;         // for documents whose type is not detected (release notes are)
  std::string version;             // for documents whose version is not detected
  std::string site;                // site label for documents without a canonical URL
  std::string license;             // licence or terms of the sources, shown with them ("" = none)
  size_t batch_documents = 4096;   // documents per atomic commit (each commit fsyncs)
  // Called after each commit with the ids of the documents it made durable.
  std::function<void(const std::vector<std::string>& committed_ids)> on_commit;
  // Progress: bytes of source processed so far out of the total.
  std::function<void(uint64_t done_bytes, uint64_t total_bytes)> on_progress;
  // Called after each commit, once per document it made durable (identical re-ingests included),
  // with the file it came from and what the commit did to it. A document that two files of one
  // ingestion produce is reported for both. Set, each commit first reads the versions it replaces.
  std::function<void(const IngestedDocument& doc)> on_document;
  // Called before each commit with the documents it is about to make durable (as on_document would
  // report them); a non-OK Status fails the ingestion there, that commit not made. Lets a caller
  // record durably which ids it is about to write (the watcher's file -> ids map).
  std::function<Status(const std::vector<IngestedDocument>& docs)> before_commit;
};

struct IngestIssue {
  std::string file;
  uint64_t line = 0;               // 0 when the issue concerns the whole file
  std::string message;
};

struct IngestReport {
  uint64_t files = 0;
  uint64_t documents_seen = 0;
  uint64_t added = 0;
  uint64_t replaced = 0;
  uint64_t unchanged = 0;
  uint64_t chunks = 0;             // chunks written
  uint64_t bytes = 0;              // source bytes read
  double seconds = 0;
  uint64_t snapshot_version = 0;
  std::vector<IngestIssue> issues; // per-file / per-line failures; the rest of the batch proceeds
  // Vector leg work after the commits (training a corpus model, building vector files); runs in
  // the background with EngineOptions::background_vectors, then 0 here.
  double vector_seconds = 0;
  std::string embedder;            // the active embedder afterwards ("" = none yet)
};

struct SearchFilter {
  std::string tenant;                          // "" = default tenant
  std::optional<std::vector<std::string>> groups;  // caller's groups; nullopt = no ACL restriction (admin)
  // The caller's clearance: one of EngineOptions::access_levels ("" or an unknown name = the lowest
  // level). nullopt = no label restriction (admin). The engine resolves it into `labels`.
  std::optional<std::string> clearance;
  // The access labels the caller may read, resolved by the engine from `clearance` (callers leave it
  // unset). A filter with a clearance but no resolved labels admits nothing (fail closed).
  std::optional<std::vector<std::string>> labels;
  std::vector<std::string> source_types;
  std::vector<std::string> sites;
  std::vector<std::string> versions;
  std::optional<std::string> date_from;        // YYYY-MM-DD inclusive
  std::optional<std::string> date_to;          // YYYY-MM-DD inclusive
};

enum class SearchMode {
  kAuto,    // hybrid when a vector leg is available for the whole snapshot, else BM25
  kBm25,
  kVector,
  kHybrid,
};

enum class FusionMethod { kLinear, kRrf };
enum class ScoreNormalization { kMinMax, kZScore };

// Defaults chosen by measurement on training splits (docs/design.md, "Hybrid retrieval").
struct FusionOptions {
  FusionMethod method = FusionMethod::kLinear;
  ScoreNormalization normalization = ScoreNormalization::kMinMax;
  float vector_weight = 0.2f;      // kLinear: weight of the vector leg in [0, 1]
  uint32_t rrf_k = 60;             // kRrf
};

struct SearchOptions {
  std::string query;
  size_t k = 10;
  SearchFilter filter;
  bool collapse_documents = true;  // one hit per document (its best chunk)
  bool with_snippets = true;       // false skips snippet/highlight work (evaluation timing)
  size_t snippet_words = 40;
  // BM25F field weights, chosen by a sweep on the docs-qa known-item sets with SciFact kept exactly
  // (docs/design.md, "Fields and weights"): a word in the title or among a chunk's defining terms
  // (definition terms, table-row headers, the names a page's lead declaration declares) counts for
  // more than a mention in running text.
  float title_weight = 1.0f;
  float section_weight = 1.0f;
  float body_weight = 1.0f;
  float term_weight = 8.0f;
  // A name query (at most three words, none of them a stopword, no question mark: "git rebase",
  // "sqlite3_prepare_v2", "CREATE INDEX") looks for the page that defines the name: its title and
  // headings count for more (these weights replace title_weight and section_weight for it). Chosen
  // on the docs-qa known-item sets (docs/design.md, "Fields and weights"); 0 = no special case.
  float name_query_title_weight = 8.0f;
  float name_query_section_weight = 2.0f;
  bool name_query_title_first = true;  // a document titled by the name query comes first
  SearchMode mode = SearchMode::kAuto;
  FusionOptions fusion;
  size_t candidates = 0;           // per-leg candidates fused in hybrid mode; 0 = max(100, 2k)
};

// BM25 collection statistics of one query as one caller sees them (docs/cluster.md, "Global
// statistics"): integers, so the statistics of a cluster's shards add up to exactly those of one
// store holding all their chunks.
struct ShardStatistics {
  uint64_t snapshot_version = 0;             // the shard's snapshot they were read from (0 in a sum)
  uint64_t num_docs = 0;                     // chunks the caller's visibility admits (live and deleted)
  std::array<uint64_t, 4> total_len{};       // their field lengths summed: title, section, body, term
  std::map<std::string, uint64_t> doc_freq;  // analyzed term -> admitted chunks containing it
};

struct Highlight {
  uint32_t start;  // byte offsets into Hit::snippet
  uint32_t end;
};

struct SearchHit {
  std::string doc_id;
  ChunkId chunk_id;
  float score = 0;
  std::string title;
  std::string url;
  std::string site;
  std::string date;         // published, else updated (YYYY-MM-DD), or ""
  std::string version;
  std::string source_type;
  std::string section;
  std::string feed;         // "versions" etc. for a document marked as an authoritative feed
  std::string license;      // the document's licence or terms, "" when not recorded
  std::string snippet;
  std::vector<Highlight> highlights;
  // Why this hit is here: each leg's rank (1-based; 0 = not among that leg's candidates) and score,
  // and the fused score (equal to `score`).
  uint32_t lexical_rank = 0;
  float lexical_score = 0;
  uint32_t vector_rank = 0;
  float vector_score = 0;
};

struct SearchResult {
  std::vector<SearchHit> hits;
  uint64_t snapshot_version = 0;
  // A cluster's search (docs/cluster.md): the snapshot of each shard it read, "shard@version"
  // joined by ',' in shard order (the cluster snapshot); "" in one process.
  std::string cluster_snapshot;
  double took_ms = 0;
  SearchMode mode = SearchMode::kBm25;  // the mode that ran (kAuto resolved)
  std::string embedder;                 // the vector leg's embedder identity, "" when it did not run
  std::vector<std::string> notices;     // e.g. why kAuto fell back to BM25
  // Stages that could not run although configured, "reason: detail" (kAuto only; the explicit modes
  // fail instead): "vector_leg_unavailable: …" (the tenant's model or vector files cannot be used),
  // "vector_leg_failed: …" (embedding the query failed).
  std::vector<std::string> degraded;
};

struct EngineStats {
  uint64_t snapshot_version = 0;
  uint64_t documents = 0;
  uint64_t chunks = 0;
  uint64_t segments = 0;
  uint64_t segment_bytes = 0;
  uint64_t catalog_bytes = 0;
  uint64_t source_bytes = 0;
  std::string embedder;            // active embedder ("name dim version"; a count when tenants differ), "" when none
  uint64_t embedder_tenants = 0;   // tenants with an active embedder (each has its own)
  uint64_t vector_chunks = 0;      // chunks with a vector of the active embedder
  uint64_t vector_bytes = 0;       // bytes of the vector files
  uint64_t model_bytes = 0;        // bytes of the active corpus model
  std::string vector_index;        // "hnsw", "flat" or "ivfpq": the kind of the active embedder's files
};

// How current the index is, for /metrics (docs/http_api.md, "Metrics").
struct FreshnessStats {
  int64_t last_commit_unix_ms = 0;  // commit time of the latest snapshot (0 = nothing committed yet)
  bool live_fetch = false;          // a live fetcher is configured
  // The live fetcher's page cache (crawl/cached_fetcher.h), cumulative.
  uint64_t page_cache_hits = 0, page_cache_revalidated = 0, page_cache_misses = 0;
};

// A document given in memory (the HTTP API's documents routes), as opposed to files on disk.
struct DocumentSpec {
  std::string id;                        // stable per tenant: putting the same id again replaces it
  std::string tenant;                    // "" = default tenant
  std::string title;
  std::string text;                      // the body, in `content_type`
  std::string content_type = "text";     // text | markdown | html
  std::string url, site, version, source_type, language;
  std::string published, updated;        // YYYY-MM-DD or ""
  std::vector<std::string> acl_groups;   // empty = readable by the whole tenant
  std::string access_label;              // "" = unlabelled (the lowest level); else one of access_levels
  std::string feed;                      // "" or e.g. "versions" (an authoritative version feed)
  // Licence or terms of the source, free text shown with the document (at most 1,000 bytes of
  // UTF-8, no control characters); "" = metadata["license"] when set, else none.
  std::string license;
  // When the text was fetched from its source, ISO 8601 UTC ("2026-12-02T14:55:56Z", fractional
  // seconds allowed); "" = the commit time of the version (docs/answer.md, "Freshness").
  std::string fetched_at;
  std::map<std::string, std::string> metadata;
};

struct PutDocumentsReport {
  uint64_t snapshot_version = 0;         // the snapshot that holds them (unchanged when nothing changed)
  uint32_t added = 0, replaced = 0, unchanged = 0;
  uint64_t chunks = 0;                   // chunks written
  std::vector<ChunkId> superseded_chunks;   // chunks of replaced versions (caches drop answers citing them)
};

// A stored document as a reader may see it (text reassembled from its chunks).
struct DocumentInfo {
  std::string id, tenant, title, url, site, version, source_type, language, feed, sha256, access_label;
  std::string license;                   // licence or terms of the source, "" when not recorded
  std::string published, updated;        // YYYY-MM-DD or ""
  std::vector<std::string> acl_groups;
  std::vector<ChunkId> chunk_ids;
  std::string text;                      // chunk texts joined by blank lines
  // When Attest obtained this version's text (ISO 8601 UTC): the commit of the version, or a later
  // live fetch that found it unchanged (docs/answer.md, "Freshness").
  std::string fetched_at;
  uint64_t bytes = 0;
  uint64_t created_snapshot = 0;         // first snapshot that sees this version
  uint64_t snapshot_version = 0;         // the snapshot read
};

// One page of a tenant's document listing (Engine::ListDocuments): an administrator's view, so no
// ACL or clearance applies; the caller decides who may list.
struct ListDocumentsOptions {
  std::string tenant;                       // "" = default tenant
  size_t limit = 20;                        // documents per page, 1..1000
  // Keyset: only ids after this one, in byte order ("" = from the first). Pages read the latest
  // snapshot each time; a document is never listed twice or skipped because others were added or
  // deleted meanwhile (those show up, or not, by where their id falls).
  std::string after_id;
  std::vector<std::string> source_types;    // keep these (any of); empty = all
  std::vector<std::string> sites;
  std::vector<std::string> versions;
  std::string text;                         // substring of the id or the title (ASCII case-insensitive)
  // YYYY-MM-DD, inclusive: the document's date (published, else updated) within them; a document
  // without a date is left out by either bound.
  std::optional<std::string> date_from, date_to;
};

// A listed document: the catalog row's metadata (no text; GetDocument reads that).
struct DocumentSummary {
  std::string id, title, url, site, version, source_type, language, feed, access_label;
  std::string license;                      // licence or terms of the source, "" when not recorded
  std::string published, updated;           // YYYY-MM-DD or ""
  std::vector<std::string> acl_groups;
  uint32_t chunks = 0;
  uint64_t bytes = 0;
  uint64_t created_snapshot = 0;
  std::string fetched_at;                   // when fetched (crawled pages), else the commit of this version, ISO 8601 UTC
};

// A catalog row of the page that failed its checksum: not listed, named here so it can be
// re-ingested or deleted (docs/store_format.md, "Row checksums").
struct CorruptDocument {
  std::string id;                           // as the row names it (the edit may have changed it)
  std::string message;
};

struct DocumentListing {
  std::vector<DocumentSummary> documents;   // at most `limit`, in id order
  std::vector<CorruptDocument> corrupt;     // rows of this page refused for their checksum
  std::optional<std::string> next_after_id; // the next page's ListDocumentsOptions::after_id; nullopt = last page
  uint64_t total = 0;                       // documents matching the filters (every page, corrupt rows included)
  uint64_t snapshot_version = 0;            // the snapshot read
};

// Where a cited chunk stands in the latest snapshot, for a caller (render-time and mid-stream
// authorization, and the "cited chunk changed" notice).
enum class CitationState {
  kCurrent,    // still live and readable by the caller
  kChanged,    // the document is live and readable but this chunk was replaced (new version)
  kDeleted,    // the document was deleted
  kForbidden,  // the document is live but the caller's groups or clearance no longer admit it
};
struct CitedChunk {
  std::string doc_id;
  ChunkId chunk_id;
};

// A chunk's stored text and structure, as a shard node gives it to a coordinator's answer
// (docs/cluster.md, "Answers through a coordinator").
struct ChunkContent {
  ChunkId id;
  uint32_t ordinal = 0;
  std::string section_path, text;
  struct Span {
    uint32_t begin = 0, end = 0;
    std::string role;  // "text", "heading", "definition", "table_row", "list_item", "code"
    std::string subject;
  };
  std::vector<Span> spans;
};

// What an answer shows of a source's document (the source cards, freshness), as a shard node gives
// it to a coordinator's answer.
struct SourceInfo {
  std::string id, url, license, feed;
  std::string published, updated;  // YYYY-MM-DD or ""
  int64_t fetched_at_ms = 0;       // when its text was fetched (else its version's commit), Unix ms
};

struct ReembedReport {
  std::string embedder;            // identity of the new embedder (a count when tenants got different models)
  std::vector<std::string> tenants;          // tenants re-embedded (each with a model of its own text)
  std::vector<std::string> skipped_tenants;  // tenants whose model could not be built (logged with the reason)
  uint64_t chunks = 0;             // live chunks, all covered by the new embedder
  uint64_t embedded = 0;           // chunks embedded (the rest reused rows of existing vector files)
  uint64_t reused = 0;
  double train_seconds = 0;        // 0 for a remote embedder
  double embed_seconds = 0;        // embedding chunks and building vector indexes
  uint64_t model_bytes = 0;
  uint64_t snapshot_version = 0;   // the snapshot that switched to it
};

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  virtual Result<IngestReport> Ingest(const IngestOptions& options) = 0;
  virtual Result<SearchResult> Search(const SearchOptions& options) const = 0;
  // Deletes the live document `id` of `tenant`; kNotFound when there is none.
  virtual Result<uint64_t> Delete(const std::string& tenant, const std::string& id) = 0;
  virtual Result<EngineStats> Stats() const = 0;
  // Trains a new corpus model (or adopts the configured remote embedder), embeds every chunk, and
  // switches the vector leg to it at a new snapshot. Queries keep running on the old one meanwhile.
  virtual Result<ReembedReport> Reembed() = 0;
  // Waits for background vector work (training, embedding) started by Ingest() to finish; returns
  // its outcome.
  virtual Status WaitForVectors() = 0;
  // Applies the vector leg's policy now (as after an ingestion): trains the models of tenants that
  // have enough text and none yet, and builds missing vector files. For a store just upgraded.
  virtual Status RefreshVectors() = 0;
  // Answers a question from the index (include/attest/answer.h). All retrieval rounds of one answer
  // read the snapshot pinned at its start.
  virtual Result<AnswerResult> Ask(const AskOptions& options) const = 0;

  // Adds or replaces documents given in memory, in one atomic commit; idempotent by (tenant, id):
  // identical content is a no-op. kInvalidArgument names the first bad document.
  virtual Result<PutDocumentsReport> PutDocuments(const std::vector<DocumentSpec>& docs) = 0;
  // The live document `id` of `who.tenant`, if `who.groups` admit it (nullopt groups = admin);
  // kNotFound otherwise (a caller cannot tell a hidden document from a missing one).
  virtual Result<DocumentInfo> GetDocument(const SearchFilter& who, const std::string& id) const = 0;
  // One page of the live documents of `options.tenant` in the latest snapshot, in id order, whatever
  // their ACL (an administrator's listing: the caller checks the right to it). kInvalidArgument
  // naming the option for a limit outside 1..1000.
  virtual Result<DocumentListing> ListDocuments(const ListDocumentsOptions& options) const = 0;
  // The state of each cited chunk in the latest snapshot for `who` (in the order given).
  virtual Result<std::vector<CitationState>> CheckCitations(const SearchFilter& who,
                                                            const std::vector<CitedChunk>& cited) const = 0;
  // Applies a batch of the cluster's change log in one commit, documents and log positions together
  // (attest/change_batch.h). kInvalidArgument for a malformed batch (a null document, drop_vshards
  // without vshard_count); on any failure nothing is applied.
  virtual Result<ApplyChangesReport> ApplyChanges(const ChangeBatch& batch) = 0;
  // The change-log positions of the latest snapshot (empty when the log was never applied).
  virtual std::map<uint32_t, uint64_t> LogPositions() const = 0;
  // The latest snapshot version (no catalog read).
  virtual uint64_t CurrentSnapshot() const = 0;
  // Whether the vector leg of `tenant` ("" = the default tenant; every tenant with an active embedder
  // when nullopt) can be used in the latest snapshot, i.e. its active model loads: OK (also for a
  // tenant without one yet), or the failures naming each tenant, its model file (relative to the
  // data directory) and what is wrong. Cheap when healthy (loaded models are cached) and while
  // broken (a model file that failed is read again only once it changes).
  virtual Status CheckVectorLeg(const std::optional<std::string>& tenant) const = 0;
  // Hits and misses of the query-embedding cache (keyed by text and embedder identity).
  virtual std::pair<uint64_t, uint64_t> EmbeddingCacheCounts() const = 0;
  // The latest commit time and the live fetcher's page cache counters.
  virtual Result<FreshnessStats> Freshness() const = 0;

  // A shard of a cluster (docs/cluster.md, "Global statistics"). QueryStatistics pins the latest
  // snapshot and returns the statistics of `options.query`'s terms under the caller's visibility
  // there; ShardSearch searches that pinned snapshot (`shard_snapshot`, kept for a short while)
  // scoring with `global`, the sum of every shard's statistics, and returns the raw ranking the
  // coordinator merges. BM25 only: a vector or hybrid mode is kInvalidArgument (each shard's corpus
  // model is its own, so vector scores would not compare across shards); kAuto searches BM25.
  // kNotFound when `shard_snapshot` is no longer pinned (the coordinator asks again).
  virtual Result<ShardStatistics> QueryStatistics(const SearchOptions& options) const = 0;
  virtual Result<SearchResult> ShardSearch(const SearchOptions& options, const ShardStatistics& global,
                                           uint64_t shard_snapshot) const = 0;
  // What a coordinator's answer reads of a shard, from its latest snapshot: the statistics of
  // analyzed `terms` under `who` (num_docs and doc_freq; the snapshot named), and the chunks `who`
  // may read among `ids`, in the order asked (others skipped).
  virtual Result<ShardStatistics> TermStatistics(const SearchFilter& who, const std::vector<std::string>& terms) const = 0;
  virtual Result<std::vector<ChunkContent>> ReadChunks(const SearchFilter& who, const std::vector<ChunkId>& ids) const = 0;
  // The live documents among `ids` (of who.tenant) that `who` may read, in the order asked.
  virtual Result<std::vector<SourceInfo>> ReadSources(const SearchFilter& who, const std::vector<std::string>& ids) const = 0;
};

const char* SearchModeName(SearchMode mode);

// Resolves `filter->clearance` against the configured access levels (lowest first) into
// `filter->labels`: "" and every level up to the clearance. An empty or unknown clearance reads the
// lowest level only. No clearance (nullopt) leaves labels unrestricted.
void ResolveClearance(const std::vector<std::string>& access_levels, SearchFilter* filter);
// Checks a document's access label against the configured levels: kInvalidArgument naming them.
Status CheckAccessLabel(const std::vector<std::string>& access_levels, const std::string& label);

}  // namespace attest
