#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>

extern char** environ;

namespace attest::testing_support {
namespace {

std::vector<char*> Argv(const std::vector<std::string>& args) {
  std::vector<char*> v;
  for (const auto& a : args) v.push_back(const_cast<char*>(a.c_str()));
  v.push_back(nullptr);
  return v;
}

void DrainFd(int fd, std::string* out) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
}

}  // namespace

ProcessResult RunAttest(const std::vector<std::string>& args) {
  std::vector<std::string> full{ATTEST_BINARY};
  full.insert(full.end(), args.begin(), args.end());
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  auto argv = Argv(full);
  int rc = posix_spawn(&pid, full[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + full[0]);
  ProcessResult r;
  // Read both pipes until EOF without deadlocking on a full pipe.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int out_pipe[2];
  if (::pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  auto v = Argv(argv);
  int rc = posix_spawn(&pid_, argv[0].c_str(), &fa, nullptr, v.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out_pipe[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + argv[0]);
  out_fd_ = out_pipe[0];
  ::fcntl(out_fd_, F_SETFL, ::fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (!reaped_) {
    Kill(SIGKILL);
    Wait();
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

void ChildProcess::Poll() { DrainFd(out_fd_, &out_); }

void ChildProcess::Kill(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

bool ChildProcess::Running() {
  if (reaped_) return false;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = st;
    return false;
  }
  return true;
}

int ChildProcess::Wait() {
  if (!reaped_) {
    ::waitpid(pid_, &status_, 0);
    reaped_ = true;
  }
  // Collect what the child wrote before it exited.
  int flags = ::fcntl(out_fd_, F_GETFL);
  ::fcntl(out_fd_, F_SETFL, flags & ~O_NONBLOCK);
  DrainFd(out_fd_, &out_);
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  return -WTERMSIG(status_);
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device rd;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "attest";
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  path_ = std::filesystem::path(::testing::TempDir()) /
          ("attest-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
           std::to_string(rd() % 100000));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string DatasetsDir() {
  if (const char* env = std::getenv("ATTEST_DATASETS"); env && *env) {
    return std::filesystem::is_directory(env) ? std::string(env) : "";
  }
  std::filesystem::path p = std::filesystem::path(ATTEST_SOURCE_DIR) / ".." / "shared" / "datasets";
  return std::filesystem::is_directory(p) ? p.lexically_normal().string() : "";
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace attest::testing_support

namespace attest::testing_support {

std::string CreateApiKey(const std::string& data, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--data", data, "keys", "create", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = RunAttest(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  return r.exit_code == 0 && j.is_object() ? j.value("key", "") : "";
}

void SetPrincipal(const std::string& data, const std::string& tenant, const std::string& user,
                  const std::string& groups, const std::string& clearance) {
  std::vector<std::string> args = {"--data", data, "principals", "set", "--tenant", tenant, "--user", user, "--groups",
                                   groups};
  if (!clearance.empty()) args.insert(args.end(), {"--clearance", clearance});
  const ProcessResult r = RunAttest(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace attest::testing_support
