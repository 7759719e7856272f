// attest: the command-line adapter over attest_core. Parses arguments and dispatches; all work
// happens in the core library.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace attest::cli;
  // Logs go to stderr: stdout carries results (and JSON with --json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("attest"));
  spdlog::set_pattern("attest: %v");
  // OpenMP threads (OpenBLAS in model training, FAISS in index builds) sleep instead of spinning
  // when they wait: spinning threads starve the others on a loaded machine (a 2 s training once
  // took 92 s). An explicit setting in the environment wins.
  setenv("OMP_WAIT_POLICY", "passive", /*overwrite=*/0);
  CLI::App app{"attest - a grounded answer engine (ingest, watch, search, ask, check, eval, serve)"};
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --data may follow the subcommand
  app.set_version_flag("--version", std::string("attest ") + ATTEST_VERSION);
  GlobalArgs g;
  app.add_option("--data", g.data_dir, "data directory")->capture_default_str();
  app.add_option("--threads", g.threads, "worker threads for ingestion (0 = all cores)");
  app.add_option("--embedder", g.embedder,
                 "vector leg embedder when none is active yet, and for reembed: corpus-lsa (default; trained on "
                 "your corpus, no network), corpus-fasttext-sif, openai, none")
      ->capture_default_str();
  app.add_option("--embed-url", g.embed_url, "OpenAI-compatible server base URL (--embedder openai)");
  app.add_option("--embed-model", g.embed_model, "embedding model name (--embedder openai)");
  app.add_option("--embed-key-env", g.embed_key_env, "environment variable holding the API key")
      ->capture_default_str();
  app.add_option("--embed-dim", g.embed_dim, "corpus model dimension (0 = the model's default)");
  app.add_option("--embed-seed", g.embed_seed, "corpus model training seed")->capture_default_str();
  app.add_option("--embed-min-chunks", g.embed_min_chunks, "train a corpus model once the corpus has this many chunks")
      ->capture_default_str();
  app.add_option("--retrain-growth", g.retrain_growth, "retrain when the corpus has grown by this share")
      ->capture_default_str();
  app.add_option("--vector-index", g.vector_index, "vector index of new segments: hnsw, flat, ivfpq")
      ->capture_default_str();
  app.add_option("--llm-url", g.llm_url, "OpenAI-compatible chat server for ask --writer llm");
  app.add_option("--llm-model", g.llm_model, "chat model name");
  app.add_option("--llm-key-env", g.llm_key_env, "environment variable holding the chat API key")
      ->capture_default_str();
  app.add_option("--llm-prompt-price", g.llm_prompt_price, "price per million prompt tokens (cost accounting)");
  app.add_option("--llm-completion-price", g.llm_completion_price, "price per million completion tokens");
  app.add_option("--llm-large-url", g.llm_large_url,
                 "OpenAI-compatible chat server of the writer's large tier (routing and escalation, docs/models.md)");
  app.add_option("--llm-large-model", g.llm_large_model, "large tier's chat model name");
  app.add_option("--llm-large-key-env", g.llm_large_key_env, "environment variable holding the large tier's API key")
      ->capture_default_str();
  app.add_option("--llm-large-prompt-price", g.llm_large_prompt_price, "large tier: price per million prompt tokens");
  app.add_option("--llm-large-completion-price", g.llm_large_completion_price,
                 "large tier: price per million completion tokens");
  app.add_option("--tier-profile", g.tier_profile, "JSON file of the tier routing profile (docs/models.md)");
  app.add_option("--planner-prompt-price", g.planner_prompt_price, "model planner: price per million prompt tokens");
  app.add_option("--planner-completion-price", g.planner_completion_price,
                 "model planner: price per million completion tokens");
  app.add_option("--price-search", g.price_search, "price of one index search (cost accounting, docs/cost.md)");
  app.add_option("--price-fetch", g.price_fetch, "price of one live fetch started");
  app.add_option("--price-rerank-pair", g.price_rerank_pair, "price of one query-passage pair sent to the reranker");
  app.add_option("--planner-url", g.planner_url,
                 "OpenAI-compatible chat server of the model planner (default: the deterministic planner only)");
  app.add_option("--planner-model", g.planner_model, "model planner's model name");
  app.add_option("--planner-key-env", g.planner_key_env, "environment variable holding the planner's API key")
      ->capture_default_str();
  app.add_option("--planner-timeout-ms", g.planner_timeout_ms,
                 "model planner's budget; a slower reply falls back to the deterministic plan")
      ->capture_default_str()
      ->check(CLI::Range(1, 600000));
  app.add_option("--planner-max-subqueries", g.planner_max_subqueries, "sub-queries accepted from the model planner")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  app.add_option("--rerank-url", g.rerank_url, "cross-encoder rerank server for answers (TEI, Jina, Cohere, llama.cpp)");
  app.add_option("--rerank-model", g.rerank_model, "rerank model name");
  app.add_option("--access-levels", g.access_levels,
                 "access labels, lowest first (default public,internal,confidential,restricted)");
  app.add_option("--rerank-api", g.rerank_api, "tei, jina (also llama.cpp, vLLM), cohere, cohere-v2")
      ->capture_default_str();
  auto add_retrieval = [](CLI::App* cmd, RetrievalArgs& r) {
    cmd->add_option("--fusion", r.fusion, "hybrid fusion: linear (normalized weighted sum) or rrf")
        ->capture_default_str();
    cmd->add_option("--norm", r.norm, "score normalization for linear fusion: minmax or zscore")
        ->capture_default_str();
    cmd->add_option("--vector-weight", r.vector_weight, "weight of the vector leg in linear fusion")
        ->capture_default_str();
    cmd->add_option("--rrf-k", r.rrf_k, "RRF constant")->capture_default_str();
    cmd->add_option("--candidates", r.candidates, "candidates per leg in hybrid mode (0 = max(100, 2k))");
    cmd->add_option("--field-weights", r.field_weights,
                    "BM25F field weights title,section,body[,term] (default: the engine's, docs/search.md)");
  };

  IngestArgs ia;
  auto* ingest = app.add_subcommand("ingest", "ingest files or directories (HTML, Markdown, text, BEIR JSONL, PDF, DOCX, ODT; gzip-compressed pages)");
  ingest->add_option("paths", ia.paths, "files or directories")->required();
  ingest->add_option("--tenant", ia.tenant, "tenant the documents belong to");
  ingest->add_option("--acl", ia.acl, "comma-separated ACL groups (default: public)");
  ingest->add_option("--label", ia.label, "access label of the documents (default: the lowest level)");
  ingest->add_option("--source-type", ia.source_type,
                     "source type (docs, wiki, ticket, ...) for documents that do not state one");
  ingest->add_option("--version", ia.version, "version label for documents that do not state one");
  ingest->add_option("--site", ia.site, "site label for documents without a canonical URL");
  ingest->add_option("--license", ia.license,
                     "licence or terms of the sources, shown with their documents (at most 1000 bytes)");
  ingest->add_option("--batch-docs", ia.batch_docs, "documents per atomic commit")->check(CLI::Range(1, 1000000));
  ingest->add_flag("--print-acks", ia.print_acks, "print 'ack <id>' for each document once it is durable");
  ingest->add_flag("--json", ia.json, "print the summary as JSON");
  ingest->add_option("--cluster", ia.cluster,
                     "NATS servers (nats://host:port, comma-separated): append the documents to the cluster's "
                     "change log instead of --data (docs/cluster.md)");
  ingest->add_option("--cluster-bucket", ia.bucket, "the cluster's shard map bucket")->capture_default_str();

  WatchArgs wa;
  auto* watch = app.add_subcommand(
      "watch", "keep the index in line with folders: ingest them, then follow created, changed, moved and deleted "
               "files (inotify) until SIGINT/SIGTERM, with the ids `ingest` gives (docs/watch.md)");
  watch->add_option("dirs", wa.dirs, "directories to watch")->required();
  AddWatchFlags(watch, &wa, "");
  watch->add_flag("--json", wa.json, "print each change as a JSON object");
  watch->add_option("--cluster", wa.cluster,
                    "NATS servers (nats://host:port, comma-separated): append the files to the cluster's change log "
                    "instead of indexing them in --data, which keeps the file-to-ids map (docs/cluster.md)");
  watch->add_option("--cluster-bucket", wa.bucket, "the cluster's shard map bucket")->capture_default_str();

  SearchArgs sa;
  auto* search = app.add_subcommand("search", "search: BM25, vector or hybrid, with filters");
  search->add_option("query", sa.query, "query: words, \"phrases\", +required, -excluded")->required();
  search->add_option("--k", sa.k, "number of results")->check(CLI::Range(1, 10000));
  search->add_option("--tenant", sa.tenant, "tenant to search");
  search->add_option("--groups", sa.groups, "caller's comma-separated ACL groups (restricts to public + these)");
  search->add_option("--clearance", sa.clearance, "caller's clearance (restricts to labels at or below it)");
  search->add_option("--filter", sa.filters,
                     "key=value, repeatable: source_type, site, version, after, before (YYYY-MM-DD)");
  search->add_flag("--json", sa.json, "JSON output");
  search->add_flag("--chunks", sa.chunks, "return chunks instead of collapsing to documents");
  search->add_option("--mode", sa.retrieval.mode, "auto (hybrid when vectors exist), bm25, vector, hybrid")
      ->capture_default_str();
  search->add_flag("--explain", sa.explain, "show each leg's rank and score and the fused score per hit");
  add_retrieval(search, sa.retrieval);

  bool stats_json = false;
  auto* stats = app.add_subcommand("stats", "show what the store holds");
  stats->add_flag("--json", stats_json, "JSON output");

  std::string delete_id, delete_tenant;
  auto* del = app.add_subcommand("delete", "delete a document by id");
  del->add_option("id", delete_id, "document id")->required();
  del->add_option("--tenant", delete_tenant, "tenant of the document");

  EvalArgs ea;
  auto* eval = app.add_subcommand("eval", "evaluate retrieval or answers on a BEIR-layout folder, or the docs-qa sets");
  eval->add_option("dir", ea.dir, "folder with corpus.jsonl, queries.jsonl, qrels/ (tasks retrieval and qa)");
  eval->add_option("--split", ea.split, "qrels split")->capture_default_str();
  eval->add_option("--json", ea.json_file, "also write the report as JSON to this file");
  eval->add_option("--index-dir", ea.index_dir, "keep the evaluation index here (default: temporary)");
  eval->add_option("--k", ea.k, "documents retrieved per query")->check(CLI::Range(1, 10000));
  eval->add_option("--shards", ea.shards,
                   "retrieval: also split the corpus over N shard stores and compare the cluster's BM25 search "
                   "with one store's (docs/cluster.md)")
      ->check(CLI::Range(1, 64));
  eval->add_option("--mode", ea.modes, "comma-separated modes to report: bm25, vector, hybrid, auto")
      ->capture_default_str();
  add_retrieval(eval, ea.retrieval);
  eval->add_option("--task", ea.task,
                   "retrieval (ranking metrics), qa (answers: containment, citations) or docs (docs-qa sets over a "
                   "documentation folder)")
      ->capture_default_str();
  eval->add_option("--corpus", ea.corpus, "docs: documentation folder, ingested as `attest ingest DIR` does");
  eval->add_option("--questions", ea.questions, "docs: comma-separated question files (JSONL), one set each");
  eval->add_option("--details", ea.details_file, "docs: write one JSON line per question (returned, and why scored so)");
  eval->add_flag("--no-multi-hop", ea.no_multi_hop, "qa: do not run the multi-hop loop");
  eval->add_flag("--research", ea.research, "qa: ask every question in research mode (docs/research.md)");
  eval->add_option("--max-hops", ea.max_hops, "qa: research mode's round limit, round 1 included (1..16)")
      ->check(CLI::Range(1, 16));
  eval->add_option("--max-ms", ea.max_ms, "qa: research mode's time limit per question (0 = none)");
  eval->add_option("--max-queries", ea.max_queries, "qa: stop after this many questions (0 = all)");
  eval->add_option("--min-answerability", ea.min_answerability,
                   "qa: abstention threshold on the answerability score (0..1; default: the calibrated one)");
  eval->add_option("--min-evidence-coverage", ea.min_evidence_coverage,
                   "qa: abstain before writing below this evidence coverage (0..1; default 0.25)");
  eval->add_option("--per-question", ea.per_question_file,
                   "qa: write one JSON line per question (outcome, answerability, containment) to this file");

  AskArgs aa;
  auto* ask = app.add_subcommand("ask", "answer a question with cited claims (or a result list with the reason)");
  ask->add_option("question", aa.question, "the question")->required();
  ask->add_option("--tenant", aa.tenant, "tenant to answer from");
  ask->add_option("--groups", aa.groups, "caller's comma-separated ACL groups");
  ask->add_option("--clearance", aa.clearance, "caller's clearance (restricts to labels at or below it)");
  ask->add_option("--writer", aa.writer, "extractive (default, offline) or llm")->capture_default_str();
  ask->add_option("--now", aa.now, "the clock for 'latest', 'this year'...: YYYY-MM-DD");
  ask->add_flag("--json", aa.json, "JSON output");
  ask->add_option("--judge", aa.judge, "builtin (default) or llm: the chat model also judges each claim")
      ->capture_default_str();
  ask->add_option("--deadline-ms", aa.deadline_ms,
                  "budget for planning, retrieval and reranking; past it reranking is skipped (degraded)");
  ask->add_flag("--explain", aa.explain, "show the plan, verdicts, timings and manifest hash");
  ask->add_flag("--stream", aa.stream,
                "llm writer: print each sentence to stderr as it streams, verified or retracted by the sentence gate");
  ask->add_option("--manifest", aa.manifest_out, "write the evidence manifest to this file");
  ask->add_option("--manifest-key-env", aa.manifest_key_env, "variable holding the HMAC key")->capture_default_str();
  AddLiveFetchFlags(*ask, aa.live);
  ask->add_flag("--research", aa.research,
                "research mode: search in rounds until nothing is missing or a limit is reached (progress on stderr)");
  ask->add_option("--max-hops", aa.max_hops, "research: rounds at most, the first included")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  ask->add_option("--max-cost", aa.max_cost, "research: cost at most, by the configured prices (0 = no limit)")
      ->check(CLI::Range(0.0, 1e9));
  ask->add_option("--max-ms", aa.max_ms, "research: milliseconds at most for the rounds (0 = no limit)");

  std::string manifest_path, manifest_key_env = "ATTEST_MANIFEST_KEY";
  auto* verify_manifest = app.add_subcommand("verify-manifest", "check an answer's evidence manifest file");
  verify_manifest->add_option("file", manifest_path, "file written by ask --manifest")->required();
  verify_manifest->add_option("--key-env", manifest_key_env, "variable holding the HMAC key")->capture_default_str();

  std::vector<std::string> check_files;
  bool check_json = false;
  auto* check = app.add_subcommand("check", "run scenario files (attest-scenarios/1) and report pass/fail");
  check->add_option("files", check_files, "scenario files")->required();
  check->add_flag("--json", check_json, "JSON output");
  uint32_t check_shards = 0;
  check->add_option("--shards", check_shards,
                    "split each scenario's documents over N shard stores and ask a cluster coordinator over them "
                    "(docs/cluster.md)")
      ->check(CLI::Range(1, 64));

  bool reembed_json = false;
  auto* reembed = app.add_subcommand(
      "reembed", "train a new corpus model (or adopt --embedder openai), embed every chunk, and switch to it");
  reembed->add_flag("--json", reembed_json, "JSON output");

  ServeArgs va;
  auto* migrate = app.add_subcommand("migrate", "upgrade a data directory written by an older version, then exit");
  auto* serve = app.add_subcommand("serve", "serve the HTTP API (docs/http_api.md) until SIGINT/SIGTERM");
  serve->add_option("--host", va.host, "address to listen on")->capture_default_str();
  serve->add_option("--cluster-shard", va.cluster.shards,
                    "coordinator mode: NAME=URL of a shard node's internal API (repeat for each; docs/cluster.md)");
  serve->add_flag("--cluster-discover", va.cluster.discover,
                  "coordinator mode: reach the nodes that own virtual shards in the shard map (needs --cluster-nats)");
  serve->add_option("--cluster-nats", va.cluster.nats, "coordinator mode: NATS servers of the change log (writes)");
  serve->add_option("--cluster-vshards", va.cluster.vshards, "coordinator mode: the cluster's virtual shard count")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  serve->add_option("--cluster-credential-env", va.cluster.credential_env,
                    "coordinator mode: variable holding the service credential")->capture_default_str();
  serve->add_option("--cluster-search-ms", va.cluster.search_deadline_ms,
                    "coordinator mode: the time a search may take across the shards")->capture_default_str();
  serve->add_option("--port", va.port, "port; 0 picks a free one and prints it")->capture_default_str();
  serve->add_option("--io-threads", va.io_threads, "socket threads")->capture_default_str();
  serve->add_option("--workers", va.workers, "interactive workers (0 = max(2, cores))");
  serve->add_option("--answer-workers", va.answer_workers, "workers for answers, a lane of their own (0 = max(2, cores))");
  serve->add_option("--bulk-workers", va.bulk_workers, "workers for ingestion (own queue)")->capture_default_str();
  serve->add_option("--max-body-bytes", va.max_body_bytes, "request body limit")->capture_default_str();
  serve->add_option("--stream-buffer-bytes", va.stream_buffer_bytes, "per-stream buffer; a slower client is dropped")
      ->capture_default_str();
  serve->add_flag("--report-access-filtered", va.report_access_filtered,
                  "answers tell readers when documents they cannot read matched (filtered_by_access); off by "
                  "default because it reveals whether hidden text contains a word");
  serve->add_option("--deadline-ms", va.deadline_ms, "default budget for planning, retrieval and reranking")
      ->capture_default_str();
  serve->add_option("--rate-limit", va.rate_limit, "requests per second per credential (0 = unlimited)")
      ->capture_default_str();
  serve->add_option("--rate-burst", va.rate_burst, "bucket size (0 = the rate)");
  serve->add_option("--group-cache-ttl-ms", va.group_cache_ttl_ms,
                    "how long resolved groups are cached: the revocation delay")->capture_default_str();
  serve->add_option("--jwt-hs256-secret-env", va.jwt_hs256_secret_env, "variable holding the HS256 secret");
  serve->add_option("--jwt-rs256-public-key", va.jwt_rs256_public_key, "PEM file of the RS256 public key");
  serve->add_option("--jwt-issuer", va.jwt_issuer, "required iss claim");
  serve->add_option("--jwt-audience", va.jwt_audience, "required aud claim");
  serve->add_flag("--jwt-allow-hs256-and-rs256", va.jwt_allow_hs256_and_rs256,
                  "accept HS256 and RS256 tokens at once (refused unless given)");
  serve->add_flag("--jwt-allow-operator-claim", va.jwt_allow_operator_claim,
                  "honour a token's \"operator\": true (deployment operator: crosses tenants); refused unless given");
  serve->add_flag("--allow-anonymous", va.allow_anonymous, "requests without a credential read the default tenant's public documents");
  serve->add_flag("--no-cache", va.no_cache, "disable the retrieval and answer caches");
  serve->add_option("--web-dir", va.web_dir,
                    "serve the page at / from this folder (laid out like web/dist), read on every request, "
                    "instead of the bundle embedded in the binary; for developing the page");
  serve->add_flag("--no-web", va.no_web, "serve the API only: no page at /");
  serve->add_option("--mcp-allow-origin", va.mcp_allow_origins,
                    "a browser Origin (e.g. https://app.example) POST /mcp accepts besides loopback ones; repeatable "
                    "(docs/mcp.md)");
  serve->add_option("--audit-log", va.audit_log, "audit JSONL file (default <data>/audit.jsonl)");
  serve->add_option("--events-config", va.events_config,
                    "JSON file of the connectors that may POST /v1/events (name, tenant, secret_env); enables the "
                    "events routes and <data>/events.db (docs/http_api.md, \"Events\")");
  serve->add_option("--watch", va.watch.dirs,
                    "keep the index in line with this folder (repeatable) on a background thread, as `attest watch` "
                    "does; its documents take the --watch-* flags");
  AddWatchFlags(serve, &va.watch, "watch-");
  serve->add_option("--crawl-config", va.crawl_config,
                    "JSON file of crawl sources the server crawls on a schedule (docs/crawling.md)");
  AddConversationOptions(serve, &va);
  AddServeTransportFlags(*serve, va);
  AddRerankBatchFlags(*serve, va.rerank_batch);
  AddLiveFetchFlags(*serve, va.live);
  serve->add_option("--audit-queue", va.audit_queue,
                    "audit records held in memory while the file cannot take them; beyond, requests get 503 "
                    "audit_unavailable")
      ->check(CLI::Range(size_t{1}, size_t{1} << 24))
      ->capture_default_str();
  auto auth_commands = RegisterAuthCommands(app);
  auto crawl_command = RegisterCrawlCommand(app);
  auto mcp_command = RegisterMcpCommand(app);
  auto cluster_commands = RegisterClusterCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "attest: %s\nRun 'attest --help' for usage.\n", e.what());
    return kExitUsage;
  }

  g.data_dir_given = app.get_option("--data")->count() > 0;
  if (*ingest) return RunIngest(g, ia);
  if (*watch) return RunWatch(g, wa);
  if (*search) return RunSearch(g, sa);
  if (*stats) return RunStats(g, stats_json);
  if (*del) return RunDelete(g, delete_id, delete_tenant);
  if (*eval) return RunEval(g, ea);
  if (*reembed) return RunReembed(g, reembed_json);
  if (*migrate) return RunMigrate(g);
  if (*ask) return RunAsk(g, aa);
  if (*serve) return RunServe(g, va);
  if (*check) return RunCheck(g, check_files, check_json, check_shards);
  if (*verify_manifest) return RunVerifyManifest(manifest_path, manifest_key_env);
  if (auth_commands->Selected()) return auth_commands->Run(g);
  if (crawl_command->Selected()) return crawl_command->Run(g);
  if (mcp_command->Selected()) return mcp_command->Run(g);
  if (cluster_commands->Selected()) return cluster_commands->Run(g);
  return kExitUsage;
}
