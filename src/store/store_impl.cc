#include "store/store_impl.h"

#include <algorithm>
#include <set>
#include <system_error>

#include <spdlog/spdlog.h>

#include "store/snapshot_impl.h"

namespace attest {
namespace fs = std::filesystem;

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) { return StoreImpl::OpenImpl(options); }

void ApplyDocumentAttributes(const DocumentRecord& doc, ChunkAttributes* attrs) {
  attrs->tenant = doc.tenant;
  attrs->acl_groups = doc.acl_groups;
  attrs->access_label = doc.access_label;
  attrs->source_type = doc.source_type;
  attrs->site = doc.site;
  attrs->version = doc.version;
  attrs->date = doc.published ? *doc.published : doc.updated ? *doc.updated : ChunkAttributes::kNoDate;
}

StoreImpl::StoreImpl(const StoreOptions& options)
    : options_(options), dir_(options.dir), pins_(std::make_shared<PinRegistry>()) {}

StoreImpl::~StoreImpl() = default;

Result<std::unique_ptr<Store>> StoreImpl::OpenImpl(const StoreOptions& options) {
  if (options.dir.empty()) return Status::InvalidArgument("store: no data directory given");
  std::unique_ptr<StoreImpl> store(new StoreImpl(options));
  Status s = options.read_only ? store->OpenReader() : store->OpenWriter();
  if (!s.ok()) return s.WithContext("cannot open store at " + options.dir.string());
  return std::unique_ptr<Store>(std::move(store));
}

Status StoreImpl::ConfigureWriterConnection() {
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, writer_->Prepare("PRAGMA journal_mode = WAL"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != "wal") {
      return Status::IOError("catalog " + dir_.catalog_path().string() + " cannot be switched to WAL mode");
    }
  }
  ATTEST_RETURN_IF_ERROR(writer_->Exec("PRAGMA synchronous = FULL"));
  ATTEST_RETURN_IF_ERROR(writer_->Exec("PRAGMA foreign_keys = ON"));
  // The WAL and -shm files outlive the writer (SqliteDb::Open); the WAL is cut to 0 bytes when the
  // writer closes and to 64 MiB after a checkpoint.
  ATTEST_RETURN_IF_ERROR(writer_->Exec("PRAGMA journal_size_limit = 67108864"));
  return Status::Ok();
}

Status StoreImpl::OpenWriter() {
  std::error_code ec;
  const fs::path& root = dir_.root();
  bool exists = fs::exists(root, ec);
  if (exists && !fs::is_directory(root, ec)) {
    return Status::InvalidArgument(root.string() + " exists and is not a directory");
  }
  if (!exists) {
    if (!options_.create_if_missing) return Status::NotFound("no data directory at " + root.string());
    fs::create_directories(root, ec);
    if (ec) return Status::IOError("cannot create " + root.string() + ": " + ec.message());
  }
  bool fresh = false;
  if (!dir_.HasMarker()) {
    ATTEST_ASSIGN_OR_RETURN(bool only_ours, dir_.OnlyStoreEntries());
    if (!only_ours) {
      return Status::InvalidArgument(root.string() +
                                     " is not empty and has no ATTEST marker: it is not an attest data "
                                     "directory; refusing to use it");
    }
    if (!options_.create_if_missing) return Status::NotFound("no attest data directory at " + root.string());
    fresh = true;
  } else {
    ATTEST_RETURN_IF_ERROR(dir_.VerifyMarker());
  }
  ATTEST_RETURN_IF_ERROR(dir_.CreateLayout());
  ATTEST_ASSIGN_OR_RETURN(lock_, FileLock::Acquire(dir_.lock_path()));

  ATTEST_ASSIGN_OR_RETURN(writer_, SqliteDb::Open({.path = dir_.catalog_path(), .read_only = false, .create = fresh}));
  ATTEST_RETURN_IF_ERROR(ConfigureWriterConnection());
  Catalog cat(*writer_);
  ATTEST_RETURN_IF_ERROR(cat.InitializeOrCheck());
  if (fresh) ATTEST_RETURN_IF_ERROR(dir_.WriteMarker());

  // Recovery and cleanup: nothing is pinned yet, so every row deleted at or before the current
  // version is garbage, and so is every segment file the catalog does not list as live.
  ATTEST_RETURN_IF_ERROR(dir_.RemoveTempFiles().status());
  {
    ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
    ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
    ATTEST_RETURN_IF_ERROR(cat.Purge(SnapshotVersion(meta.snapshot_version)).status());
    ATTEST_RETURN_IF_ERROR(txn->Commit());
  }
  ATTEST_RETURN_IF_ERROR(MigrateOldSegments(cat));
  {
    ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/false));
    ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
    ATTEST_RETURN_IF_ERROR(LoadState(cat, SnapshotVersion(meta.snapshot_version)));
  }
  std::set<SegmentId> live;
  for (const auto& v : state_->views) live.insert(v.id);
  ATTEST_RETURN_IF_ERROR(dir_.RemoveSegmentsExcept(live).status());

  pool_ = std::make_shared<ConnectionPool>(
      SqliteOpenArgs{.path = dir_.catalog_path(), .read_only = true, .create = false}, /*max_idle=*/8);
  return Status::Ok();
}

Status StoreImpl::OpenReader() {
  std::error_code ec;
  const fs::path& root = dir_.root();
  if (!fs::is_directory(root, ec)) return Status::NotFound("no data directory at " + root.string());
  if (!dir_.HasMarker()) {
    return Status::NotFound(root.string() + " has no ATTEST marker: it is not an attest data directory");
  }
  ATTEST_RETURN_IF_ERROR(dir_.VerifyMarker());
  if (!fs::exists(dir_.catalog_path(), ec)) {
    return Status::NotFound("catalog " + dir_.catalog_path().string() + " is missing");
  }
  pool_ = std::make_shared<ConnectionPool>(
      SqliteOpenArgs{.path = dir_.catalog_path(), .read_only = true, .create = false}, /*max_idle=*/8);
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_RETURN_IF_ERROR(cat.CheckSchema());
  // A writer may merge and unlink a segment between our reading the catalog and opening the file;
  // a fresh read then names the merged segment instead. Retry a few times before reporting.
  Status last;
  for (int attempt = 0; attempt < 3; ++attempt) {
    // One read transaction so that the segment list and tombstones belong to the same version.
    ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(lease.db(), /*immediate=*/false));
    ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
    last = LoadState(cat, SnapshotVersion(meta.snapshot_version));
    if (last.ok()) return last;
  }
  return last;
}

Status StoreImpl::LoadState(Catalog& cat, SnapshotVersion version) {
  auto state = std::make_shared<StoreState>();
  state->version = version;
  ATTEST_ASSIGN_OR_RETURN(std::vector<SegmentRow> rows, cat.LiveSegments());
  std::map<SegmentId, size_t> index;
  for (const SegmentRow& row : rows) {
    std::string expected = DataDir::SegmentFileName(row.id);
    if (row.file != expected) {
      return Status::Corruption("catalog names segment " + std::to_string(row.id.get()) + " file '" + row.file +
                                "', expected '" + expected + "'");
    }
    fs::path path = dir_.segment_path(row.id);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      return Status::Corruption("segment file " + path.string() + " listed in the catalog is missing");
    }
    auto reopened =
        SegmentFile::Reopen(row.id, path, row.crc, [&cat, &row] { return cat.ChunkDocumentsOfSegment(row.id); });
    if (!reopened.ok() && reopened.status().code() == StatusCode::kUnsupported) {
      return reopened.status().WithContext(
          "the store holds segments of an older format: open it for writing once (for example `attest migrate`) "
          "to upgrade them");
    }
    ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<SegmentFile> file, std::move(reopened));
    if (file->raw().num_docs() != row.num_docs || file->raw().file_size() != row.bytes) {
      return Status::Corruption("segment file " + path.string() + " has " + std::to_string(file->raw().num_docs()) +
                                " chunks and " + std::to_string(file->raw().file_size()) +
                                " bytes; the catalog expects " + std::to_string(row.num_docs) + " and " +
                                std::to_string(row.bytes));
    }
    index[row.id] = state->views.size();
    state->views.push_back(SegmentView{row.id, file->segment(), nullptr});
    state->files[row.id] = std::move(file);
  }
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkLocation> tombs, cat.TombstonesInLiveSegments());
  std::map<SegmentId, std::shared_ptr<DeletedDocs>> deleted;
  for (const ChunkLocation& t : tombs) {
    auto it = index.find(t.segment);
    if (it == index.end()) continue;
    const Segment& seg = *state->views[it->second].segment;
    std::optional<LocalDoc> local = seg.local_of(t.id);
    if (!local) {
      return Status::Corruption("catalog places chunk " + std::to_string(t.id.get()) + " in segment " +
                                std::to_string(t.segment.get()) + ", which does not contain it");
    }
    auto& bits = deleted[t.segment];
    if (!bits) bits = std::make_shared<DeletedDocs>(seg.num_docs());
    bits->Set(*local);
  }
  for (auto& [id, bits] : deleted) state->views[index[id]].deleted = std::move(bits);
  ATTEST_ASSIGN_OR_RETURN(state->embedders, cat.ActiveEmbedders(version));
  ATTEST_ASSIGN_OR_RETURN(state->log_positions, cat.LogPositions());
  state->Seal();
  Publish(std::move(state));
  return Status::Ok();
}

Status StoreImpl::MigrateOldSegments(Catalog& cat) {
  ATTEST_ASSIGN_OR_RETURN(std::vector<SegmentRow> rows, cat.LiveSegments());
  std::vector<SegmentId> old;
  for (const SegmentRow& row : rows) {
    auto version = Segment::FileFormatVersion(dir_.segment_path(row.id));
    if (version.ok() && *version < Segment::OldestReadableFormatVersion()) old.push_back(row.id);
  }
  if (old.empty()) return Status::Ok();
  if (!options_.reindex) {
    return Status::Unsupported(std::to_string(old.size()) + " segment(s) of an older format need re-indexing, "
                               "which this store was opened without");
  }
  spdlog::info("store: upgrading {} segment(s) of an older format (re-indexing their chunks, one segment per tenant)",
               old.size());
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
  ATTEST_ASSIGN_OR_RETURN(auto files, RebuildLocked(cat, old, meta, SnapshotVersion(meta.snapshot_version)));
  Status s = cat.WriteMeta(meta);
  if (s.ok()) s = txn->Commit();
  if (!s.ok()) {
    for (auto& f : files) f->MarkObsolete();
    return s.WithContext("upgrading segments of an older format");
  }
  return Status::Ok();  // the old files are removed below as unreferenced
}

std::shared_ptr<const StoreState> StoreImpl::Current() const {
  MutexLock lock(state_mu_);
  return state_;
}

void StoreImpl::Publish(std::shared_ptr<const StoreState> next) {
  std::shared_ptr<const StoreState> old;
  {
    MutexLock lock(state_mu_);
    old = std::move(state_);
    state_ = std::move(next);
  }
  // `old` is released here, outside the lock: that may unmap and unlink obsolete segment files.
}

std::shared_ptr<const Snapshot> StoreImpl::Pin() const {
  MutexLock lock(state_mu_);
  return std::make_shared<SnapshotImpl>(state_, pool_, pins_, dir_);
}

Status StoreImpl::Fault(std::string_view point) const {
  if (!options_.fault_hook) return Status::Ok();
  return options_.fault_hook(point);
}

}  // namespace attest
