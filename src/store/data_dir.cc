#include "store/data_dir.h"

#include <cstdio>
#include <system_error>

#include "common/checksum.h"
#include "common/file_util.h"
#include "common/varint.h"

namespace attest {
namespace fs = std::filesystem;
namespace {

constexpr char kMarkerMagic[8] = {'A', 'T', 'T', 'E', 'S', 'T', 'D', 'B'};
constexpr size_t kMarkerSize = 20;  // magic(8) version(4) flags(4) crc(4)

Status FsError(std::string_view what, const fs::path& p, const std::error_code& ec) {
  std::string message = std::string(what) + " " + p.string() + ": " + ec.message();
  if (ec == std::errc::no_space_on_device) return Status::NoSpace(message + " (ENOSPC)");
  return Status::IOError(std::move(message));
}

bool IsTempName(const std::string& name) { return name.find(".tmp-") != std::string::npos; }

}  // namespace

std::string DataDir::SegmentFileName(SegmentId id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "seg-%016llx.ats", static_cast<unsigned long long>(id.get()));
  return buf;
}

std::optional<SegmentId> DataDir::ParseSegmentFileName(const std::string& name) {
  if (name.size() != 4 + 16 + 4 || name.compare(0, 4, "seg-") != 0 || name.compare(20, 4, ".ats") != 0) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (size_t i = 4; i < 20; ++i) {
    char c = name[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return SegmentId(v);
}

std::string DataDir::EncodeMarker(uint32_t format_version) {
  std::string out(kMarkerMagic, sizeof(kMarkerMagic));
  PutFixed32(&out, format_version);
  PutFixed32(&out, 0);  // flags, reserved
  PutFixed32(&out, Crc32c(out));
  return out;
}

Status DataDir::CheckMarker(const std::string& bytes, const fs::path& where) {
  if (bytes.size() < sizeof(kMarkerMagic) || bytes.compare(0, sizeof(kMarkerMagic), kMarkerMagic, 8) != 0) {
    return Status::Corruption(where.string() + " is not an attest data directory marker (bad magic)");
  }
  if (bytes.size() != kMarkerSize) {
    return Status::Corruption(where.string() + " has size " + std::to_string(bytes.size()) + ", expected " +
                              std::to_string(kMarkerSize));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  uint32_t crc = DecodeFixed32(p + 16);
  if (crc != Crc32c(p, 16)) return Status::Corruption(where.string() + " fails its checksum");
  uint32_t version = DecodeFixed32(p + 8);
  if (version == 0 || version > kStoreFormatVersion) {
    return Status::Unsupported(where.string() + " declares store format version " + std::to_string(version) +
                               "; this build reads versions 1.." + std::to_string(kStoreFormatVersion));
  }
  return Status::Ok();
}

bool DataDir::HasMarker() const {
  std::error_code ec;
  return fs::exists(marker_path(), ec);
}

Result<bool> DataDir::OnlyStoreEntries() const {
  std::error_code ec;
  fs::directory_iterator it(root_, ec);
  if (ec) return FsError("cannot list", root_, ec);
  for (const auto& e : it) {
    std::string name = e.path().filename().string();
    if (name == "LOCK" || name == "segments" || name == "catalog.db" || name == "catalog.db-wal" ||
        name == "catalog.db-shm" || name == "catalog.db-journal" || IsTempName(name) ||
        // auth.db (API keys and principals, docs/auth.md) may be created before the first ingest.
        name == "auth.db" || name == "auth.db-wal" || name == "auth.db-shm" || name == "auth.db-journal") {
      continue;
    }
    return false;
  }
  return true;
}

Status DataDir::CreateLayout() const {
  std::error_code ec;
  fs::create_directories(segments_dir(), ec);
  if (ec) return FsError("cannot create", segments_dir(), ec);
  return Status::Ok();
}

Status DataDir::WriteMarker() const { return WriteFileAtomically(marker_path(), EncodeMarker(kStoreFormatVersion)); }

Status DataDir::VerifyMarker() const {
  auto bytes = ReadFileToString(marker_path(), 4096);
  if (!bytes.ok()) {
    return Status(bytes.status().code(), "cannot read the data directory marker: " + bytes.status().message());
  }
  return CheckMarker(*bytes, marker_path());
}

Result<int> DataDir::RemoveTempFiles() const {
  int removed = 0;
  for (const fs::path& d : {root_, segments_dir()}) {
    std::error_code ec;
    fs::directory_iterator it(d, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) continue;
      return FsError("cannot list", d, ec);
    }
    for (const auto& e : it) {
      if (!IsTempName(e.path().filename().string())) continue;
      fs::remove(e.path(), ec);
      if (ec) return FsError("cannot remove", e.path(), ec);
      ++removed;
    }
  }
  return removed;
}

Result<int> DataDir::RemoveSegmentsExcept(const std::set<SegmentId>& live) const {
  int removed = 0;
  std::error_code ec;
  fs::directory_iterator it(segments_dir(), ec);
  if (ec) return FsError("cannot list", segments_dir(), ec);
  for (const auto& e : it) {
    auto id = ParseSegmentFileName(e.path().filename().string());
    if (!id || live.count(*id)) continue;
    fs::remove(e.path(), ec);
    if (ec) return FsError("cannot remove", e.path(), ec);
    ++removed;
  }
  if (removed > 0) ATTEST_RETURN_IF_ERROR(SyncDirectory(segments_dir()));
  return removed;
}

}  // namespace attest
