// The CLI's subcommands. Each Run* function returns the process exit status:
//   0 success, 1 failure, 2 usage error, 3 partial failure (some inputs were rejected, the rest stored).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attest::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPartial = 3;

struct GlobalArgs {
  std::string data_dir = "attest-data";
  unsigned threads = 0;
};

struct IngestArgs {
  std::vector<std::string> paths;
  std::string tenant;
  std::string acl;           // comma-separated groups
  std::string source_type;
  std::string version;
  std::string site;
  size_t batch_docs = 512;
  bool print_acks = false;   // print "ack <id>" after each durable commit (crash tests)
  bool json = false;
};

struct SearchArgs {
  std::string query;
  size_t k = 10;
  std::string tenant;
  std::optional<std::string> groups;        // comma-separated; absent = no ACL restriction
  std::vector<std::string> filters;         // key=value
  bool json = false;
  bool chunks = false;                      // do not collapse to documents
};

struct EvalArgs {
  std::string dir;
  std::string split = "test";
  std::string json_file;
  std::string index_dir;
  size_t k = 100;
};

int RunIngest(const GlobalArgs& g, const IngestArgs& a);
int RunSearch(const GlobalArgs& g, const SearchArgs& a);
int RunStats(const GlobalArgs& g, bool json);
int RunDelete(const GlobalArgs& g, const std::string& id, const std::string& tenant);
int RunEval(const GlobalArgs& g, const EvalArgs& a);

std::vector<std::string> SplitList(const std::string& csv);

}  // namespace attest::cli
