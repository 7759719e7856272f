// InotifyTree: Linux inotify watches over one directory tree, and its raw events translated into
// paths relative to the root. Every walked directory (names not starting with '.', as ListSources
// walks them) gets a watch; a directory that appears later (created or moved in) gets watches when
// its event is read, and the files already inside it are reported, since they may have been written
// before the watch existed. A directory deleted or moved out loses its watches.
//
// Thread-safety: none; one thread reads and owns it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attest/status.h"

namespace attest {

struct TreeEvent {
  enum class Kind {
    kPath,      // something at `path` (relative to the root) was created, written, moved or deleted
    kOverflow,  // the kernel's queue overflowed: events were lost, the tree needs a full rescan
    kRootGone,  // the root itself was deleted or moved away; its watches are gone
  };
  Kind kind = Kind::kPath;
  std::string path;
  // IN_CREATE of a file: it may still be being written (its IN_CLOSE_WRITE is to come). A hard
  // link or a symlink is complete at creation and has no such event.
  bool created = false;
};

class InotifyTree {
 public:
  // Creates the inotify instance (non-blocking) and watches `root` (a directory) and every walked
  // directory below it. kNotFound when root is not a directory; kResourceExhausted naming
  // fs.inotify.max_user_watches when the kernel's watch limit is reached.
  static Result<std::unique_ptr<InotifyTree>> Open(const std::string& root);
  ~InotifyTree();
  InotifyTree(const InotifyTree&) = delete;
  InotifyTree& operator=(const InotifyTree&) = delete;

  int fd() const { return fd_; }  // readable when events are waiting (poll it)
  // Reads every event waiting (never blocks) and appends what they mean to `out`.
  Status Read(std::vector<TreeEvent>* out);
  // Drops every watch and watches the whole tree again (after an overflow or when a lost root is
  // back). kNotFound when the root is not a directory.
  Status Rewatch();
  size_t watches() const { return dirs_.size(); }

 private:
  InotifyTree(int fd, std::string root) : fd_(fd), root_(std::move(root)) {}
  // Watches `dir` (relative; "" = the root) and the walked directories below it; appends the
  // regular files found below it (relative names) to `files` when not null.
  Status AddTree(const std::string& dir, std::vector<std::string>* files);
  void RemoveTree(const std::string& dir);
  void Forget(int wd);

  int fd_;
  std::string root_;
  std::unordered_map<int, std::string> dirs_;  // watch descriptor -> directory relative to root
  std::map<std::string, int> wds_;             // directory -> watch descriptor
};

}  // namespace attest
