// A child process for the crash campaign: the real binary with extra environment variables, its
// stdout readable incrementally and its stderr kept in a file (shown when a check fails).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace attest::testing_support {

class CrashChild {
 public:
  // argv[0] is the program; `env` entries ("NAME=value") replace or extend the environment.
  CrashChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::filesystem::path& stderr_file);
  ~CrashChild();  // SIGKILLs and reaps a child still running
  CrashChild(const CrashChild&) = delete;
  CrashChild& operator=(const CrashChild&) = delete;

  bool started() const { return pid_ > 0; }
  void Poll();                   // appends what stdout has to out()
  bool Running();
  void Signal(int sig);
  int Wait();                    // exit code, or -signal
  const std::string& out() const { return out_; }
  std::chrono::steady_clock::time_point start_time() const { return start_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string out_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace attest::testing_support
