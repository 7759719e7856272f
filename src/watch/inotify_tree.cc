// InotifyTree: recursive inotify watches and the translation of events into relative paths.
#include "watch/inotify_tree.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ingest/source_reader.h"

namespace attest {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kDirMask = IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;

std::string Join(const std::string& dir, std::string_view name) {
  return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

}  // namespace

Result<std::unique_ptr<InotifyTree>> InotifyTree::Open(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Status::NotFound("watched folder '" + root + "' is not a directory");
  const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status::IOError(std::string("inotify_init1: ") + std::strerror(errno));
  std::unique_ptr<InotifyTree> tree(new InotifyTree(fd, root));
  ATTEST_RETURN_IF_ERROR(tree->AddTree("", nullptr));
  return tree;
}

InotifyTree::~InotifyTree() { ::close(fd_); }

Status InotifyTree::Rewatch() {
  for (const auto& [wd, dir] : dirs_) inotify_rm_watch(fd_, wd);
  dirs_.clear();
  wds_.clear();
  std::error_code ec;
  if (!fs::is_directory(root_, ec)) return Status::NotFound("watched folder '" + root_ + "' is not a directory");
  return AddTree("", nullptr);
}

Status InotifyTree::AddTree(const std::string& dir, std::vector<std::string>* files) {
  const fs::path path = dir.empty() ? fs::path(root_) : fs::path(root_) / dir;
  const int wd = inotify_add_watch(fd_, path.c_str(), kDirMask);
  if (wd < 0) {
    if (errno == ENOSPC) {
      return Status::ResourceExhausted("inotify watch limit reached at '" + path.string() +
                                       "' (raise fs.inotify.max_user_watches)");
    }
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();  // gone again already
    return Status::IOError("inotify_add_watch '" + path.string() + "': " + std::strerror(errno));
  }
  // The same directory reached twice (a symlink, a cycle) has one watch: keep its first name,
  // as the walk of ListSources keeps the first path to a directory.
  if (auto it = dirs_.find(wd); it != dirs_.end() && it->second != dir) return Status::Ok();
  dirs_[wd] = dir;
  wds_[dir] = wd;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!WalkedName(name)) continue;
    std::error_code sec;
    const fs::file_status st = fs::status(it->path(), sec);
    if (sec) continue;
    if (fs::is_directory(st)) {
      ATTEST_RETURN_IF_ERROR(AddTree(Join(dir, name), files));
    } else if (files != nullptr && fs::is_regular_file(st)) {
      files->push_back(Join(dir, name));
    }
  }
  return Status::Ok();
}

void InotifyTree::RemoveTree(const std::string& dir) {
  auto drop = [this](std::map<std::string, int>::iterator it) {
    inotify_rm_watch(fd_, it->second);
    dirs_.erase(it->second);
    return wds_.erase(it);
  };
  if (auto it = wds_.find(dir); it != wds_.end()) drop(it);
  const std::string prefix = dir + "/";  // "dir-x" sorts between "dir" and "dir/": start at the prefix
  for (auto it = wds_.lower_bound(prefix); it != wds_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    it = drop(it);
  }
}

void InotifyTree::Forget(int wd) {
  auto it = dirs_.find(wd);
  if (it == dirs_.end()) return;
  if (auto w = wds_.find(it->second); w != wds_.end() && w->second == wd) wds_.erase(w);
  dirs_.erase(it);
}

Status InotifyTree::Read(std::vector<TreeEvent>* out) {
  alignas(inotify_event) char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return Status::Ok();
      return Status::IOError(std::string("reading inotify events: ") + std::strerror(errno));
    }
    if (n == 0) return Status::Ok();
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += ssize_t(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        out->push_back({TreeEvent::Kind::kOverflow, "", false});
        continue;
      }
      auto it = dirs_.find(ev->wd);
      if (it == dirs_.end()) continue;  // a watch removed meanwhile
      const std::string dir = it->second;
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        if (dir.empty()) {
          // The root went away: nothing below it is watched any more.
          for (const auto& [wd, d] : dirs_) inotify_rm_watch(fd_, wd);
          dirs_.clear();
          wds_.clear();
          out->push_back({TreeEvent::Kind::kRootGone, "", false});
        } else if (ev->mask & IN_IGNORED) {
          Forget(ev->wd);  // the parent's IN_DELETE / IN_MOVED_FROM names it
        }
        continue;
      }
      if (ev->len == 0) continue;
      const std::string_view name(ev->name);
      if (!WalkedName(name)) continue;  // hidden: never listed, never indexed
      const std::string path = Join(dir, name);
      if (ev->mask & IN_ISDIR) {
        if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
          RemoveTree(path);
        } else if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
          std::vector<std::string> files;
          ATTEST_RETURN_IF_ERROR(AddTree(path, &files));
          for (std::string& f : files) out->push_back({TreeEvent::Kind::kPath, std::move(f), false});
        }
      }
      out->push_back({TreeEvent::Kind::kPath, path, (ev->mask & IN_CREATE) && !(ev->mask & IN_ISDIR)});
    }
  }
}

}  // namespace attest
