#include "common/file_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace attest {
namespace {

Status Errno(std::string_view what, const std::filesystem::path& path) {
  const int err = errno;
  std::string message = std::string(what) + " " + path.string() + ": " + std::strerror(err);
  // A full device is not an I/O fault: the caller can free space and retry (and the server answers 503).
  if (err == ENOSPC || err == EDQUOT) return Status::NoSpace(message + (err == ENOSPC ? " (ENOSPC)" : " (EDQUOT)"));
  return Status::IOError(std::move(message));
}

}  // namespace

Result<std::string> ReadFileToString(const std::filesystem::path& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    Status s = Errno("cannot stat", path);
    ::close(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path.string() + " is a directory");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Status::ResourceExhausted(path.string() + " is " + std::to_string(st.st_size) +
                                     " bytes, over the limit of " + std::to_string(max_bytes));
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      Status s = Errno("cannot read", path);
      ::close(fd);
      return s;
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  ::close(fd);
  return out;
}

Status SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Errno("cannot fsync directory", dir);
  return Status::Ok();
}

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view data) {
  std::random_device rd;
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", tmp);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      Status s = Errno("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0) {
    Status s = Errno("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Errno("cannot rename into", path);
    ::unlink(tmp.c_str());
    return s;
  }
  return SyncDirectory(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
}

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    Status s = Errno("cannot stat", path);
    ::close(fd);
    return s;
  }
  std::unique_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->size_ = static_cast<size_t>(st.st_size);
  if (f->size_ > 0) {
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      Status s = Errno("cannot mmap", path);
      ::close(fd);
      return s;
    }
    f->data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return f;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

Result<std::unique_ptr<FileLock>> FileLock::Acquire(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot open lock file", path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::Busy("another attest process is writing to " + path.parent_path().string());
  }
  return std::unique_ptr<FileLock>(new FileLock(fd));
}

FileLock::~FileLock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

ScopedTempDir::ScopedTempDir(const std::string& prefix) {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace attest
