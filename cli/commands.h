// The CLI's subcommands. Each Run* function returns the process exit status:
//   0 success, 1 failure, 2 usage error, 3 partial failure (some inputs were rejected, the rest stored).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/engine.h"

namespace CLI {
class App;
}

namespace attest {
struct FolderWatchOptions;  // src/watch/folder_watcher.h
namespace service {
class Registry;  // src/service/metrics.h
}
}

namespace attest::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPartial = 3;  // ingest / eval finished, but inputs were rejected (each named on stderr)

struct GlobalArgs {
  std::string data_dir = "attest-data";
  bool data_dir_given = false;       // --data was on the command line (not the default)
  unsigned threads = 0;
  // Vector leg configuration (used when no embedder is active yet, and by `reembed`).
  std::string embedder = "corpus-lsa";
  std::string embed_url;
  std::string embed_model;
  std::string embed_key_env = "ATTEST_EMBED_API_KEY";
  uint32_t embed_dim = 0;
  uint64_t embed_seed = 42;
  uint64_t embed_min_chunks = 100;
  double retrain_growth = 0.5;
  std::string vector_index = "hnsw";
  // LLM writer (ask --writer llm): an OpenAI-compatible chat server.
  std::string llm_url;
  std::string llm_model;
  std::string llm_key_env = "ATTEST_LLM_API_KEY";
  double llm_prompt_price = 0;      // per million tokens
  double llm_completion_price = 0;
  // The writer's large tier (docs/models.md, "Tiering and escalation"); off by default.
  std::string llm_large_url;
  std::string llm_large_model;
  std::string llm_large_key_env = "ATTEST_LLM_LARGE_API_KEY";
  double llm_large_prompt_price = 0;
  double llm_large_completion_price = 0;
  std::string tier_profile;         // a JSON file (TierPolicyFromJson); "" = the defaults
  // Cost accounting (docs/cost.md).
  double planner_prompt_price = 0, planner_completion_price = 0;  // per million tokens
  double price_search = 0, price_fetch = 0, price_rerank_pair = 0;
  // Model planner (docs/planner.md, "The model planner"): an OpenAI-compatible chat server; off by default.
  std::string planner_url;
  std::string planner_model;
  std::string planner_key_env = "ATTEST_PLANNER_API_KEY";
  uint32_t planner_timeout_ms = 2000;
  uint32_t planner_max_subqueries = 4;
  // Cross-encoder reranker for answers.
  std::string rerank_url;
  std::string rerank_model;
  std::string rerank_api = "jina";
  // Access levels, lowest first (empty = the engine's default: public,internal,confidential,restricted).
  std::string access_levels;
};

// Retrieval mode and fusion flags shared by `search` and `eval`.
struct RetrievalArgs {
  std::string mode = "auto";
  std::string fusion = "linear";
  std::string norm = "minmax";
  float vector_weight = 0.2f;
  uint32_t rrf_k = 60;
  size_t candidates = 0;
  std::string field_weights;  // "title,section,body[,term]"; empty = the engine's defaults
};

struct IngestArgs {
  std::vector<std::string> paths;
  std::string tenant;
  std::string acl;           // comma-separated groups
  std::string label;         // access label ("" = the lowest level)
  std::string source_type;
  std::string version;
  std::string site;
  std::string license;       // licence or terms recorded on every document ("" = none)
  size_t batch_docs = 4096;
  bool print_acks = false;   // print "ack <id>" after each durable commit (crash tests)
  bool json = false;
  std::string cluster;       // nats://host:port[,...]: append to the cluster's change log instead
  std::string bucket = "ATTEST_SHARDS";  // the cluster's shard map (its config names the stream)
};

// `attest watch DIR...` (cli/watch_command.cc, docs/watch.md).
struct WatchArgs {
  std::vector<std::string> dirs;
  std::string tenant;
  std::string acl;           // comma-separated groups
  std::string label;         // access label ("" = the lowest level)
  std::string source_type;
  std::string version;
  std::string site;
  uint32_t debounce_ms = 50;     // quiet time after a file's last event
  uint32_t max_delay_ms = 500;   // a file that keeps changing is applied at least this often
  bool json = false;             // one JSON object per change
  std::string cluster;                   // NATS servers: write through the cluster's change log
  std::string bucket = "ATTEST_SHARDS";  // the cluster's shard map
};

struct SearchArgs {
  std::string query;
  size_t k = 10;
  std::string tenant;
  std::optional<std::string> groups;        // comma-separated; absent = no ACL restriction
  std::optional<std::string> clearance;     // absent = no label restriction
  std::vector<std::string> filters;         // key=value
  bool json = false;
  bool chunks = false;                      // do not collapse to documents
  bool explain = false;                     // show each leg's rank and score per hit
  RetrievalArgs retrieval;
};

struct EvalArgs {
  std::string dir;
  std::string split = "test";
  std::string json_file;
  std::string index_dir;
  size_t k = 100;
  uint32_t shards = 0;             // retrieval and qa: compare with a cluster of this many shard stores (0 = no)
  std::string modes = "bm25,vector,hybrid";  // comma-separated
  RetrievalArgs retrieval;
  std::string task = "retrieval";            // or "qa": the whole answer pipeline; "docs": the docs-qa sets
  bool no_multi_hop = false;
  bool research = false;       // qa: every question in research mode
  uint32_t max_hops = 4;       // qa: research mode's limits
  uint32_t max_ms = 0;
  size_t max_queries = 0;
  // --task docs: the documentation folder, the question files (comma-separated), the per-question file.
  std::string corpus;
  std::string questions;
  std::string details_file;
  std::optional<double> min_answerability;  // qa: the abstention threshold (default: AskOptions')
  std::optional<double> min_evidence_coverage;  // qa: the pre-writing abstention threshold
  std::string per_question_file;            // qa: one JSON line per question
};

int RunIngest(const GlobalArgs& g, const IngestArgs& a);
// `ingest --cluster` (cli/cluster_command.cc): appends the files to the change log.
int RunClusterIngest(const GlobalArgs& g, const IngestArgs& a);
// An engine that appends every write to the cluster's change log (NATS servers `servers_csv`, the
// stream the shard map `bucket` names) and reads nothing (`crawl --cluster`, `watch --cluster`;
// cli/cluster_command.cc). Labels are checked against `access_levels`.
Result<std::unique_ptr<Engine>> OpenClusterWriter(const std::string& servers_csv, const std::string& bucket,
                                                  const std::vector<std::string>& access_levels);
int RunWatch(const GlobalArgs& g, const WatchArgs& a);
// Registers the document flags of `watch` (--tenant, --acl ...); `prefix` "watch-" names them for
// `serve --watch` (--watch-tenant, --watch-acl ...).
void AddWatchFlags(CLI::App* cmd, WatchArgs* a, const std::string& prefix);
// The watcher's options from the flags: maps in <data>/watch (src/watch/folder_watcher.h).
FolderWatchOptions MakeWatchOptions(const GlobalArgs& g, const WatchArgs& a);
int RunSearch(const GlobalArgs& g, const SearchArgs& a);
int RunStats(const GlobalArgs& g, bool json);
int RunDelete(const GlobalArgs& g, const std::string& id, const std::string& tenant);
// Live fetch at question time (docs/answer.md, "Live fetch"): the flags of `ask` and `serve`.
struct LiveFetchArgs {
  bool enabled = false;              // --live-fetch
  std::string hosts;                 // --live-fetch-hosts: comma-separated names, "*.domain", or "any"
  size_t max_urls = 3;
  double over_fetch = 2.0;
  uint32_t timeout_ms = 2000;
  int64_t max_age_seconds = 86400;
};

struct AskArgs {
  std::string question;
  std::string tenant;
  std::optional<std::string> groups;
  std::optional<std::string> clearance;
  std::string writer = "extractive";
  std::string now;                 // YYYY-MM-DD (or ISO 8601): the clock; "" = today
  bool json = false;
  bool explain = false;
  std::string manifest_out;        // write the evidence manifest here
  std::string manifest_key_env = "ATTEST_MANIFEST_KEY";
  uint32_t deadline_ms = 0;        // planning + retrieval + reranking budget; 0 = none
  std::string judge = "builtin";   // or "llm": the chat model also judges support
  bool stream = false;             // print each streamed sentence as the sentence gate decides it (stderr)
  LiveFetchArgs live;
  bool research = false;           // research mode (docs/research.md); progress goes to stderr
  uint32_t max_hops = 4;           // its limits
  double max_cost = 0;
  uint32_t max_ms = 0;
};

// Reranker micro-batching of `serve` (docs/rerank.md, "Batching across requests").
struct RerankBatchArgs {
  uint32_t pairs = 0;            // --rerank-batch-pairs; 0 = off
  uint32_t window_ms = 10;       // --rerank-batch-window-ms
  double deadline_fraction = 0.1;  // --rerank-batch-deadline-fraction
  uint32_t max_calls = 8;        // --rerank-batch-max-calls
};

// `attest serve --cluster-shard ...`: a coordinator over shard nodes (docs/cluster.md, "Coordinators").
struct ClusterServeArgs {
  std::vector<std::string> shards;    // NAME=URL of each shard node's internal API
  // Instead of `shards`: the nodes that own virtual shards in the shard map (over `nats`), read
  // again every 2 s; the virtual shard count comes from the map too.
  bool discover = false;
  std::string nats;                   // comma-separated NATS servers of the change log ("" = no writes)
  uint32_t vshards = 64;              // the cluster's virtual shard count (fixed at `cluster init`)
  std::string credential_env = "ATTEST_CLUSTER_CREDENTIAL";  // variable holding the service credential
  uint32_t search_deadline_ms = 10000;
};

struct ServeArgs {
  ClusterServeArgs cluster;
  WatchArgs watch;                    // --watch DIR (repeatable) and the --watch-* flags
  std::string host = "127.0.0.1";
  uint16_t port = 8080;               // 0 = pick a free port (printed)
  unsigned io_threads = 2;
  unsigned workers = 0;               // interactive workers; 0 = max(2, cores)
  unsigned answer_workers = 0;        // answers' own lane; 0 = max(2, cores)
  unsigned bulk_workers = 1;          // ingestion and other bulk work
  size_t max_body_bytes = 8u << 20;
  size_t stream_buffer_bytes = 256u << 10;
  size_t stream_send_buffer_bytes = 0;  // SO_SNDBUF of streaming connections; 0 = kernel autotuning
  size_t stream_kernel_unsent_bytes = 16u << 10;  // TCP_NOTSENT_LOWAT of streaming connections; 0 = off
  size_t answer_queue = 1024;         // answers waiting beyond the answer workers; more get 503
  uint32_t deadline_ms = 800;         // default budget for planning, retrieval and reranking
  double rate_limit = 10000;          // requests per second per credential (0 = unlimited)
  double rate_burst = 0;              // 0 = the rate
  uint32_t group_cache_ttl_ms = 5000; // the revocation delay
  std::string jwt_hs256_secret_env;   // variable holding the HS256 secret
  std::string jwt_rs256_public_key;   // PEM file
  std::string jwt_issuer, jwt_audience;
  bool jwt_allow_hs256_and_rs256 = false;  // both key types at once, explicitly
  bool jwt_allow_operator_claim = false;   // honour a token's "operator": true
  bool allow_anonymous = false;
  bool no_cache = false;
  std::string web_dir;                // "" = the page embedded in the binary (docs/web.md)
  bool no_web = false;                // no page at /
  std::vector<std::string> mcp_allow_origins;  // browser origins POST /mcp accepts besides loopback ones
  std::string audit_log;              // default <data>/audit.jsonl
  std::string events_config;          // connectors of POST /v1/events ("" = the events routes are off)
  size_t audit_queue = 65536;         // audit records held in memory (then 503 audit_unavailable)
  std::string manifest_key_env = "ATTEST_MANIFEST_KEY";
  bool report_access_filtered = false;  // say filtered_by_access to readers (an oracle: off by default)
  // Threads, remembered answers and feedback in <data>/conversations.db (docs/http_api.md).
  uint32_t conversation_retention_days = 30;
  size_t max_threads_per_user = 1000;
  size_t max_threads_per_tenant = 100000;
  size_t max_turns_per_thread = 100;
  size_t max_answers_per_tenant = 100000;
  size_t max_feedback_per_user = 1000;
  size_t max_feedback_per_tenant = 100000;
  double feedback_rate = 1;           // feedback posts per second per credential
  double feedback_burst = 10;
  // Transport limits (docs/http_server.md): flags added by AddServeTransportFlags.
  size_t max_connections = 4096;
  size_t max_connections_per_address = 256;  // 0 = no per-address bound
  uint32_t header_timeout_ms = 10000;
  uint32_t read_timeout_ms = 30000;
  size_t bulk_queue = 64;
  size_t bulk_queue_per_tenant = 16;          // 0 = no per-tenant bound
  LiveFetchArgs live;
  std::string crawl_config;           // JSON file of crawl sources run on a schedule ("" = none)
  RerankBatchArgs rerank_batch;       // --rerank-batch-* (cli/serve_rerank.cc)
};
// The conversation and feedback options of `serve` (cli/serve_command.cc).
void AddConversationOptions(CLI::App* serve, ServeArgs* args);

// Registers the --live-fetch flags on `ask` or `serve` (cli/live_fetch_options.cc).
void AddLiveFetchFlags(CLI::App& command, LiveFetchArgs& a);
// The engine's live fetch options from the flags: the guarded fetcher with its page cache and the
// default SSRF policy (no address exempted, ports 80 and 443). Off (no fetcher) without
// --live-fetch; kInvalidArgument naming the flag for bad values.
Result<LiveFetchOptions> MakeLiveFetchOptions(const LiveFetchArgs& a);

// Registers the transport flags of `serve` (cli/serve_command.cc).
void AddServeTransportFlags(CLI::App& serve, ServeArgs& a);

// Registers the --rerank-batch-* flags of `serve`, and puts them into the engine options with an
// observer that counts batches in `metrics` (cli/serve_rerank.cc). kInvalidArgument naming the flag.
void AddRerankBatchFlags(CLI::App& serve, RerankBatchArgs& a);
Status ApplyRerankBatch(const RerankBatchArgs& a, service::Registry& metrics, EngineOptions* eo);

int RunEval(const GlobalArgs& g, const EvalArgs& a);
int RunServe(const GlobalArgs& g, const ServeArgs& a);
int RunAsk(const GlobalArgs& g, const AskArgs& a);
int RunVerifyManifest(const std::string& path, const std::string& key_env);
int RunCheck(const GlobalArgs& g, const std::vector<std::string>& files, bool json, uint32_t shards = 0);
int RunReembed(const GlobalArgs& g, bool json);
int RunMigrate(const GlobalArgs& g);

// Builds the engine options of the global flags; an error message on bad values.
Result<EngineOptions> MakeEngineOptions(const GlobalArgs& g, bool read_only);
// A failure as the CLI prints it: the Status, or for a full disk a sentence that says so plainly.
std::string FailureText(const Status& s, const std::string& data_dir);
// Crash tests only: the engine's fault hook from ATTEST_FAULT_TRACE / ATTEST_FAULT_KILL
// (cli/fault_points.cc); an empty function when neither is set.
Result<std::function<Status(std::string_view)>> FaultHookFromEnvironment();
// EngineOptions::credentials for the CLI and the server: a key's variable name -> its value in the
// environment ("" when unset). The only place model keys are read from the environment.
std::string KeyFromEnvironment(const std::string& variable);
// Applies the mode and fusion flags; kInvalidArgument naming the bad flag.
Status ApplyRetrievalArgs(const RetrievalArgs& r, SearchOptions* so);
Result<SearchMode> ParseSearchMode(const std::string& name);

std::vector<std::string> SplitList(const std::string& csv);
// Names every input an ingestion rejected on stderr ("attest: file:line: reason"), as `ingest` and
// `eval` both do; returns how many.
size_t PrintIngestIssues(const IngestReport& report);
// The store's default tenant is ""; "default" names it too (as the HTTP API does).
inline std::string StoreTenant(const std::string& tenant) { return tenant == "default" ? "" : tenant; }

// `keys` and `principals` (cli/auth_command.cc): registered on the app before parsing; Run() after.
class AuthCommands {
 public:
  virtual ~AuthCommands() = default;
  virtual bool Selected() const = 0;
  virtual int Run(const GlobalArgs& g) = 0;
};
std::unique_ptr<AuthCommands> RegisterAuthCommands(CLI::App& app);

// `crawl` (cli/crawl_command.cc): registered on the app before parsing; Run() after.
class CrawlCommand {
 public:
  virtual ~CrawlCommand() = default;
  virtual bool Selected() const = 0;
  virtual int Run(const GlobalArgs& g) = 0;
};
std::unique_ptr<CrawlCommand> RegisterCrawlCommand(CLI::App& app);

// `mcp` (cli/mcp_command.cc): the MCP server over stdio; registered before parsing, Run() after.
class McpCommand {
 public:
  virtual ~McpCommand() = default;
  virtual bool Selected() const = 0;
  virtual int Run(const GlobalArgs& g) = 0;
};
std::unique_ptr<McpCommand> RegisterMcpCommand(CLI::App& app);

// `node` and `cluster init|status|add-node|move-shard` (cli/cluster_command.cc, docs/cluster.md).
class ClusterCommands {
 public:
  virtual ~ClusterCommands() = default;
  virtual bool Selected() const = 0;
  virtual int Run(const GlobalArgs& g) = 0;
};
std::unique_ptr<ClusterCommands> RegisterClusterCommands(CLI::App& app);

}  // namespace attest::cli
