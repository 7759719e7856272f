// Crash testing of the real binary (docs/testing.md, "Named fault points"). The environment is read
// only here, and only the presence of a variable turns anything on: without them the engine gets no
// fault hook at all and production runs are untouched.
//   ATTEST_FAULT_TRACE=<file>         appends the name of every fault point passed, one per line
//   ATTEST_FAULT_KILL=<point>[@<n>]   the process SIGKILLs itself at the n-th passage of <point>
//                                     (n defaults to 1), as `kill -9` from outside would
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "cli/commands.h"

namespace attest::cli {
namespace {

struct FaultPoints {
  int trace_fd = -1;
  std::string kill_point;
  uint64_t kill_at = 0;  // 1-based passage of kill_point; 0 = never
  std::atomic<uint64_t> passed{0};

  ~FaultPoints() {
    if (trace_fd >= 0) ::close(trace_fd);
  }

  Status Reach(std::string_view point) {
    if (trace_fd >= 0) {
      std::string line(point);
      line.push_back('\n');
      // One write(2) of a whole line on an O_APPEND descriptor: lines of concurrent threads never
      // interleave, and the line is in the file before any kill that follows it.
      ssize_t ignored = ::write(trace_fd, line.data(), line.size());
      (void)ignored;
    }
    if (kill_at != 0 && point == kill_point && passed.fetch_add(1) + 1 == kill_at) {
      ::kill(::getpid(), SIGKILL);
      for (;;) ::pause();  // SIGKILL cannot be caught; this only waits for it to land
    }
    return Status::Ok();
  }
};

}  // namespace

Result<std::function<Status(std::string_view)>> FaultHookFromEnvironment() {
  const char* trace = std::getenv("ATTEST_FAULT_TRACE");
  const char* kill = std::getenv("ATTEST_FAULT_KILL");
  if (trace == nullptr && kill == nullptr) return std::function<Status(std::string_view)>();
  auto points = std::make_shared<FaultPoints>();
  if (trace != nullptr) {
    points->trace_fd = ::open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (points->trace_fd < 0) {
      return Status::InvalidArgument(std::string("ATTEST_FAULT_TRACE: cannot open ") + trace + ": " +
                                     std::strerror(errno));
    }
  }
  if (kill != nullptr) {
    std::string spec(kill);
    points->kill_point = spec;
    points->kill_at = 1;
    if (size_t at = spec.rfind('@'); at != std::string::npos) {
      points->kill_point = spec.substr(0, at);
      char* end = nullptr;
      const std::string n = spec.substr(at + 1);
      points->kill_at = std::strtoull(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || points->kill_at == 0) {
        return Status::InvalidArgument("ATTEST_FAULT_KILL '" + spec + "': expected <point> or <point>@<n>, n >= 1");
      }
    }
    if (points->kill_point.empty()) return Status::InvalidArgument("ATTEST_FAULT_KILL names no point");
  }
  return std::function<Status(std::string_view)>([points](std::string_view point) { return points->Reach(point); });
}

}  // namespace attest::cli
