// Test helpers: run the real `attest` binary (black-box tests) and per-test temporary directories.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace attest::testing_support {

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs ATTEST_BINARY with `args`, waits, captures stdout and stderr.
ProcessResult RunAttest(const std::vector<std::string>& args);

// `attest --data DATA keys create --json EXTRA...`: the new key ("" and a test failure when refused).
std::string CreateApiKey(const std::string& data, const std::vector<std::string>& extra);
// `attest --data DATA principals set --tenant T --user U --groups G [--clearance C]`; a test failure
// when refused.
void SetPrincipal(const std::string& data, const std::string& tenant, const std::string& user,
                  const std::string& groups, const std::string& clearance = "");

// A child process whose stdout is readable incrementally; killed on destruction if still running.
class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);  // argv[0] is the program path
  ~ChildProcess();
  // Reads whatever stdout has available (non-blocking) and appends it to out().
  void Poll();
  void Kill(int sig);
  // Waits for exit; returns the exit code or -signal.
  int Wait();
  bool Running();
  pid_t pid() const { return pid_; }
  const std::string& out() const { return out_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string out_;
  bool reaped_ = false;
  int status_ = 0;
};

// A fresh directory under ::testing::TempDir(), removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string str(const std::string& child = "") const { return (child.empty() ? path_ : path_ / child).string(); }

 private:
  std::filesystem::path path_;
};

// Directory of the shared datasets (ATTEST_DATASETS env var, else <source>/../shared/datasets); "" if absent.
std::string DatasetsDir();

void WriteFile(const std::filesystem::path& path, const std::string& content);

}  // namespace attest::testing_support
