// The layout of a data directory and its marker file (docs/store_format.md, "Directory").
//
//   <dir>/ATTEST                          marker: magic, format version, CRC-32C
//   <dir>/LOCK                            flock held by the one writer process
//   <dir>/catalog.db (+ -wal, -shm)       SQLite catalog
//   <dir>/segments/seg-<16 hex>.ats       immutable lexical segments
//   <dir>/auth.db (+ -wal, -shm)          API keys and principals (docs/auth.md); may predate the store
//
// Stateless helpers; safe to call from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "attest/status.h"
#include "common/strong_id.h"

namespace attest {

inline constexpr uint32_t kStoreFormatVersion = 1;

class DataDir {
 public:
  explicit DataDir(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path marker_path() const { return root_ / "ATTEST"; }
  std::filesystem::path lock_path() const { return root_ / "LOCK"; }
  std::filesystem::path catalog_path() const { return root_ / "catalog.db"; }
  std::filesystem::path segments_dir() const { return root_ / "segments"; }
  std::filesystem::path segment_path(SegmentId id) const { return segments_dir() / SegmentFileName(id); }

  static std::string SegmentFileName(SegmentId id);
  // Parses "seg-<16 hex>.ats"; nullopt for any other name.
  static std::optional<SegmentId> ParseSegmentFileName(const std::string& name);

  // The 20-byte marker image for `format_version`.
  static std::string EncodeMarker(uint32_t format_version);
  // Validates a marker image: kCorruption when it is not ours or damaged, kUnsupported when newer.
  static Status CheckMarker(const std::string& bytes, const std::filesystem::path& where);

  // True when the directory holds a marker file.
  bool HasMarker() const;
  // True when every entry is one the store itself creates (an interrupted creation), or none.
  Result<bool> OnlyStoreEntries() const;
  // Creates the directory tree (not the marker).
  Status CreateLayout() const;
  Status WriteMarker() const;
  Status VerifyMarker() const;

  // Removes "*.tmp-*" files left by interrupted atomic writes, in the root and in segments/.
  Result<int> RemoveTempFiles() const;
  // Removes segment files whose id is not in `live`. Returns the number removed.
  Result<int> RemoveSegmentsExcept(const std::set<SegmentId>& live) const;

 private:
  std::filesystem::path root_;
};

}  // namespace attest
