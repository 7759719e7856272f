// The folders of src/ follow the pipeline, and each may include only its own headers, the public
// API (include/attest/) and the headers of folders below it. kLayers below is the one definition
// of that order; docs/design.md ("Layout") shows the same line, and a test checks they agree.
// src/engine/ is the composition root and comes last, so it may include every folder.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace attest {
namespace {

namespace fs = std::filesystem;

// Lowest first. A folder may include the headers of the folders before it, never of those after.
const std::vector<std::string> kLayers = {
    "common",    // status, strong ids, checksums, varints, files, dates, strings
    "filter",    // the chunk filter both retrieval legs apply
    "ingest",    // source readers and parsers -> ParsedDocument
    "text",      // analyzer, sentences, chunker
    "lexical",   // segment format, postings, BM25, top-k, lexical query
    "store",     // catalog, commits, snapshots, merges
    "net",       // HTTP client
    "crawl",     // crawling: robots.txt, URL identity, sitemaps and feeds, the guarded fetcher
    "models",    // the model HTTP client shared by the embeddings, chat and rerank clients
    "embed",     // embedders (corpus-trained models, remote client)
    "vector",    // vector files and search; the vector leg's lifecycle
    "index",     // ingestion: parse -> chunk -> analyze -> commit; the document API
    "search",    // search runner: both legs, collapse, fusion, snippets
    "llm",       // chat client, SSE (the model planner asks it)
    "plan",      // query planner, calculator, model planner
    "agent",     // tools a model may call: retrieve, measure, calculate; below everything that writes answers
    "evidence",  // evidence pack and draft types shared by answer, write and verify
    "rerank",    // rerankers
    "write",     // writers (extractive, LLM), citation stream
    "verify",    // quote and support checks, judges, screens
    "answer",    // the answer pipeline's stages
    "cluster",   // past one machine: the replicated change log on NATS JetStream
    "eval",      // evaluation harnesses (attest_eval library, not in attest_core)
    "watch",     // watched folders: inotify, debounce, the file -> ids map; applies through the Engine API
    "service",   // the server's core (no HTTP types)
    "mcp",       // the MCP protocol core over the service (no HTTP or stdio types)
    "engine",    // the composition root
};

struct Violation {
  std::string file;
  std::string included;
};

// Include lines of the form #include "folder/...".
std::vector<std::string> IncludedFolders(const std::string& text) {
  static const std::regex kInclude(R"(^\s*#\s*include\s+"([A-Za-z0-9_]+)/)");
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kInclude)) out.push_back(m[1]);
  }
  return out;
}

// `includes`: file (as "folder/name") -> the folders it includes. Folders that are not layers
// (e.g. "attest", the public API) are allowed everywhere.
std::vector<Violation> FindViolations(const std::vector<std::string>& layers,
                                      const std::map<std::string, std::vector<std::string>>& includes) {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < layers.size(); ++i) rank[layers[i]] = i;
  std::vector<Violation> out;
  for (const auto& [file, folders] : includes) {
    const std::string own = file.substr(0, file.find('/'));
    auto own_rank = rank.find(own);
    for (const std::string& f : folders) {
      auto r = rank.find(f);
      if (r == rank.end() || own_rank == rank.end()) continue;
      if (r->second > own_rank->second) out.push_back({file, f});
    }
  }
  return out;
}

fs::path SourceDir() { return fs::path(ATTEST_SOURCE_DIR) / "src"; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, std::vector<std::string>> ScanSources() {
  std::map<std::string, std::vector<std::string>> includes;
  for (const auto& e : fs::recursive_directory_iterator(SourceDir())) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    const std::string rel = fs::relative(e.path(), SourceDir()).generic_string();
    includes[rel] = IncludedFolders(ReadFile(e.path()));
  }
  return includes;
}

TEST(LayeringTest, NoFolderIncludesAFolderAboveIt) {
  const auto includes = ScanSources();
  ASSERT_GT(includes.size(), 100u) << "scanned " << SourceDir();
  for (const Violation& v : FindViolations(kLayers, includes)) {
    ADD_FAILURE() << "src/" << v.file << " includes a header of " << v.included
                  << "/, which is above its folder in kLayers (tests/layering_test.cc)";
  }
}

TEST(LayeringTest, EveryFolderOfSrcHasALayer) {
  for (const auto& e : fs::directory_iterator(SourceDir())) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    EXPECT_NE(std::find(kLayers.begin(), kLayers.end(), name), kLayers.end())
        << "src/" << name << "/ has no place in kLayers (tests/layering_test.cc): add it where it belongs";
  }
}

TEST(LayeringTest, CheckerCatchesAnUpwardInclude) {
  const std::vector<std::string> layers = {"common", "text", "answer"};
  const std::map<std::string, std::vector<std::string>> includes = {
      {"common/a.h", {"attest"}},
      {"text/b.cc", {"common", "text"}},
      {"text/c.h", {"answer"}},           // upward
      {"answer/d.cc", {"text", "common"}},
      {"common/e.cc", {"text", "common"}},  // upward
  };
  const std::vector<Violation> v = FindViolations(layers, includes);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].file, "common/e.cc");
  EXPECT_EQ(v[0].included, "text");
  EXPECT_EQ(v[1].file, "text/c.h");
  EXPECT_EQ(v[1].included, "answer");
}

TEST(LayeringTest, IncludeLinesAreRecognised) {
  EXPECT_EQ(IncludedFolders("#include \"common/status.h\"\n  #  include \"text/x.h\"\n#include <vector>\n"
                            "// #include \"answer/y.h\" in a comment\n"),
            (std::vector<std::string>{"common", "text"}));
}

TEST(LayeringTest, DesignDocShowsTheSameOrder) {
  std::string joined;
  for (const std::string& l : kLayers) joined += (joined.empty() ? "" : " < ") + l;
  const std::string doc = ReadFile(fs::path(ATTEST_SOURCE_DIR) / "docs" / "design.md");
  EXPECT_NE(doc.find(joined), std::string::npos)
      << "docs/design.md (\"Layout\") should show the order of tests/layering_test.cc:\n" << joined;
}

}  // namespace
}  // namespace attest
