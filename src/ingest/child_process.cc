// RunCapturingStdout: fork/execv with rlimits, poll-driven reads, timeout and output cap.
#include "ingest/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace attest::ingest {
namespace {

constexpr size_t kMaxStderrBytes = 4096;

void SetLimit(int resource, rlim_t value) {
  struct rlimit rl{value, value};
  ::setrlimit(resource, &rl);
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(char* const* argv, int out_fd, int err_fd, int null_fd, const ChildLimits& limits) {
  ::setpgid(0, 0);
  if (::dup2(null_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(126);
  ::close_range(3, ~0u, 0);
  SetLimit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpu_seconds));
  SetLimit(RLIMIT_AS, static_cast<rlim_t>(limits.max_memory_bytes));
  SetLimit(RLIMIT_FSIZE, 0);
  SetLimit(RLIMIT_NOFILE, static_cast<rlim_t>(limits.max_open_files));
  SetLimit(RLIMIT_CORE, 0);
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a thread of the parent may block signals
  ::execv(argv[0], argv);
  ::_exit(127);
}

std::string FirstLine(const std::string& s) {
  const size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return "";
  const size_t end = s.find('\n', start);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::optional<std::string> FindProgram(const std::string& program) {
  auto executable = [](const std::string& p) {
    struct stat st{};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos) {
    if (executable(program)) return program;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (executable(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

Result<std::string> RunCapturingStdout(const std::vector<std::string>& argv, const ChildLimits& limits) {
  if (argv.empty()) return Status::InvalidArgument("no program to run");
  const std::string name = argv[0].substr(argv[0].rfind('/') + 1);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = null_fd < 0 ? -1 : ::fork();
  if (pid == 0) ExecChild(cargv.data(), out[1], err[1], null_fd, limits);
  const int fork_errno = errno;
  ::close(out[1]);
  ::close(err[1]);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    ::close(out[0]);
    ::close(err[0]);
    return Status::IOError("cannot start " + name + ": " + std::strerror(fork_errno));
  }
  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins, both are harmless

  std::string stdout_text, stderr_text;
  Status failure;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0 && failure.ok()) {
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    const long long left = limits.timeout_ms - elapsed.count();
    if (left <= 0) {
      failure = Status::DeadlineExceeded(name + " was killed after " + std::to_string(limits.timeout_ms) +
                                         " ms (timeout)");
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno != EINTR) {
      failure = Status::IOError(std::string("poll: ") + std::strerror(errno));
      break;
    }
    for (pollfd& p : fds) {
      if (p.fd < 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t got = ::read(p.fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(p.fd);
        p.fd = -1;
        --open_fds;
        continue;
      }
      if (p.fd == out[0]) {
        stdout_text.append(buf, static_cast<size_t>(got));
        if (stdout_text.size() > limits.max_stdout_bytes) {
          failure = Status::ResourceExhausted(name + " output passes the limit of " +
                                              std::to_string(limits.max_stdout_bytes) + " bytes");
        }
      } else if (stderr_text.size() < kMaxStderrBytes) {
        stderr_text.append(buf, std::min<size_t>(static_cast<size_t>(got), kMaxStderrBytes - stderr_text.size()));
      }
    }
  }
  if (!failure.ok()) ::kill(-pid, SIGKILL);
  for (pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  // The pipes are closed; the child may still run (it closed them itself): wait up to the deadline.
  int wstatus = 0;
  while (failure.ok()) {
    const pid_t r = ::waitpid(pid, &wstatus, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(limits.timeout_ms)) {
      failure = Status::DeadlineExceeded(name + " was killed after " + std::to_string(limits.timeout_ms) +
                                         " ms (timeout)");
      ::kill(-pid, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!failure.ok()) {
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return failure;
  }
  const std::string detail = FirstLine(stderr_text).empty() ? "" : ": " + FirstLine(stderr_text);
  if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    const std::string why = sig == SIGXCPU ? " (CPU time limit)" : "";
    return Status::Internal(name + " was killed by signal " + std::to_string(sig) + why + detail);
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
    if (WEXITSTATUS(wstatus) == 127 && stderr_text.empty()) return Status::NotFound("cannot execute " + argv[0]);
    return Status::Corruption(name + " failed (exit status " + std::to_string(WEXITSTATUS(wstatus)) + ")" + detail);
  }
  return stdout_text;
}

}  // namespace attest::ingest
