// Small filesystem helpers with explicit durability: every "atomic" write is
// write-to-temporary, fsync, rename, fsync(directory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "attest/status.h"

namespace attest {

Result<std::string> ReadFileToString(const std::filesystem::path& path, size_t max_bytes = SIZE_MAX);

// Writes `data` to `path` so that after a crash the file is either absent/old or complete.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view data);

Status SyncDirectory(const std::filesystem::path& dir);

// A read-only memory map of a whole file. Thread-safe for concurrent readers.
class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> Open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::filesystem::path path_;
};

// An exclusive advisory lock (flock) on a file, held for the object's lifetime.
class FileLock {
 public:
  // Fails with kBusy when another process holds it.
  static Result<std::unique_ptr<FileLock>> Acquire(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};


// A fresh directory path under the system temporary directory (not created), removed with
// everything in it on destruction.
class ScopedTempDir {
 public:
  explicit ScopedTempDir(const std::string& prefix);
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace attest
