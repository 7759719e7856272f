#include "support/crash_child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

extern char** environ;

namespace attest::testing_support {

CrashChild::CrashChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       const std::filesystem::path& stderr_file) {
  std::set<std::string> replaced;
  for (const auto& e : env) replaced.insert(e.substr(0, e.find('=')));
  std::vector<std::string> envs = env;
  for (char** p = environ; *p; ++p) {
    std::string entry(*p);
    if (!replaced.count(entry.substr(0, entry.find('=')))) envs.push_back(entry);
  }
  std::vector<char*> envp, args;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  start_ = std::chrono::steady_clock::now();
  int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  if (rc != 0) {
    pid_ = -1;
    ::close(out_pipe[0]);
    return;
  }
  out_fd_ = out_pipe[0];
  ::fcntl(out_fd_, F_SETFL, ::fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

CrashChild::~CrashChild() {
  if (pid_ > 0 && !reaped_) {
    Signal(SIGKILL);
    Wait();
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

void CrashChild::Poll() {
  if (out_fd_ < 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n > 0) {
      out_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
}

bool CrashChild::Running() {
  if (pid_ <= 0 || reaped_) return false;
  int st = 0;
  if (::waitpid(pid_, &st, WNOHANG) == pid_) {
    reaped_ = true;
    status_ = st;
    return false;
  }
  return true;
}

void CrashChild::Signal(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

int CrashChild::Wait() {
  if (pid_ <= 0) return -1;
  if (!reaped_) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  Poll();
  if (WIFSIGNALED(status_)) return -WTERMSIG(status_);
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

}  // namespace attest::testing_support
