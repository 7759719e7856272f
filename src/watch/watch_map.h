// WatchMap: which documents each file of a watched folder produced, kept durably so that a file
// deleted or moved away (also while nobody watched) can be deleted by the ids it gave, a canonical
// URL included. One map per (tenant, root) in <data_dir>/watch/; the layout is in docs/watch.md.
//
// Thread-safety: none; the folder watcher owns its maps and uses them from one thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

class WatchMap {
 public:
  // The map of `tenant` and `root` (an absolute, canonical directory path) in `state_dir`: an empty
  // map when its file does not exist yet. kCorruption for a file that fails its magic, version or
  // checksum, or that belongs to another tenant or root; each names the file.
  static Result<WatchMap> Load(const std::filesystem::path& state_dir, const std::string& tenant,
                               const std::string& root);
  // The file a map of this tenant and root lives in: "<16 hex digits of SHA-256(tenant NUL root)>.map".
  static std::filesystem::path FileFor(const std::filesystem::path& state_dir, const std::string& tenant,
                                       const std::string& root);

  // Writes the map atomically (temporary file, fsync, rename, fsync of the directory).
  Status Save() const;

  // The ids `file` produced ("a/b.html", relative to the root); empty when none.
  const std::vector<std::string>& IdsOf(const std::string& file) const;
  // Replaces the ids of `file` (sorted, duplicates dropped); an empty list forgets the file.
  void Set(const std::string& file, std::vector<std::string> ids);
  // The files that produced `id` (sorted).
  std::vector<std::string> FilesOf(const std::string& id) const;
  // Files equal to `path` or below it ("path/..."), sorted.
  std::vector<std::string> FilesAtOrUnder(const std::string& path) const;
  const std::map<std::string, std::vector<std::string>>& files() const { return files_; }
  size_t size() const { return files_.size(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::string tenant_, root_;
  std::map<std::string, std::vector<std::string>> files_;   // file -> ids
  std::map<std::string, std::vector<std::string>> claims_;  // id -> files
};

}  // namespace attest
