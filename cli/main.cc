// attest: the command-line adapter over attest_core. Parses arguments and dispatches; all work
// happens in the core library.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace attest::cli;
  CLI::App app{"attest - a grounded answer engine: retrieval core (ingest, search, evaluate)"};
  app.require_subcommand(1);
  app.fallthrough();  // global options such as --data may follow the subcommand
  app.set_version_flag("--version", std::string("attest ") + ATTEST_VERSION);
  GlobalArgs g;
  app.add_option("--data", g.data_dir, "data directory")->capture_default_str();
  app.add_option("--threads", g.threads, "worker threads for ingestion (0 = all cores)");

  IngestArgs ia;
  auto* ingest = app.add_subcommand("ingest", "ingest files or directories (HTML, Markdown, text, BEIR JSONL)");
  ingest->add_option("paths", ia.paths, "files or directories")->required();
  ingest->add_option("--tenant", ia.tenant, "tenant the documents belong to");
  ingest->add_option("--acl", ia.acl, "comma-separated ACL groups (default: public)");
  ingest->add_option("--source-type", ia.source_type, "source type label (docs, wiki, ticket, ...)");
  ingest->add_option("--version", ia.version, "version label of the documents");
  ingest->add_option("--site", ia.site, "site label for documents without a canonical URL");
  ingest->add_option("--batch-docs", ia.batch_docs, "documents per atomic commit")->check(CLI::Range(1, 1000000));
  ingest->add_flag("--print-acks", ia.print_acks, "print 'ack <id>' for each document once it is durable");
  ingest->add_flag("--json", ia.json, "print the summary as JSON");

  SearchArgs sa;
  auto* search = app.add_subcommand("search", "BM25 search with filters");
  search->add_option("query", sa.query, "query: words, \"phrases\", +required, -excluded")->required();
  search->add_option("--k", sa.k, "number of results")->check(CLI::Range(1, 10000));
  search->add_option("--tenant", sa.tenant, "tenant to search");
  search->add_option("--groups", sa.groups, "caller's comma-separated ACL groups (restricts to public + these)");
  search->add_option("--filter", sa.filters,
                     "key=value, repeatable: source_type, site, version, after, before (YYYY-MM-DD)");
  search->add_flag("--json", sa.json, "JSON output");
  search->add_flag("--chunks", sa.chunks, "return chunks instead of collapsing to documents");

  bool stats_json = false;
  auto* stats = app.add_subcommand("stats", "show what the store holds");
  stats->add_flag("--json", stats_json, "JSON output");

  std::string delete_id, delete_tenant;
  auto* del = app.add_subcommand("delete", "delete a document by id");
  del->add_option("id", delete_id, "document id")->required();
  del->add_option("--tenant", delete_tenant, "tenant of the document");

  EvalArgs ea;
  auto* eval = app.add_subcommand("eval", "evaluate retrieval on a BEIR-layout folder");
  eval->add_option("dir", ea.dir, "folder with corpus.jsonl, queries.jsonl, qrels/")->required();
  eval->add_option("--split", ea.split, "qrels split")->capture_default_str();
  eval->add_option("--json", ea.json_file, "also write the report as JSON to this file");
  eval->add_option("--index-dir", ea.index_dir, "keep the evaluation index here (default: temporary)");
  eval->add_option("--k", ea.k, "documents retrieved per query")->check(CLI::Range(1, 10000));

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

  if (*ingest) return RunIngest(g, ia);
  if (*search) return RunSearch(g, sa);
  if (*stats) return RunStats(g, stats_json);
  if (*del) return RunDelete(g, delete_id, delete_tenant);
  if (*eval) return RunEval(g, ea);
  return kExitUsage;
}
