// Catalog readers at a snapshot version: chunks and documents by number (one at a time or several
// through one prepared statement), a document by key, a segment's chunk-to-document rows, commit
// times and counts. Every row read passes its checksum (ReadDocumentRow, ReadChunkRow).
#include "store/catalog.h"

namespace attest {
namespace {

std::string Visible(int param) { return Catalog::VisibleAt(param); }

}  // namespace

Result<std::vector<std::pair<ChunkId, DocNum>>> Catalog::ChunkDocumentsOfSegment(SegmentId segment) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, doc_num FROM chunks WHERE segment_id = ?1 ORDER BY id"));
  st->Bind(1, segment.get());
  std::vector<std::pair<ChunkId, DocNum>> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.emplace_back(ChunkId(st->ColumnU64(0)), DocNum(st->ColumnU64(1)));
  }
  return out;
}

Result<std::optional<ChunkRecord>> Catalog::GetChunk(ChunkId id, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT " + ChunkColumns() + " FROM chunks "
                                                  "WHERE id = ?1 AND text IS NOT NULL AND " + Visible(2)));
  st->Bind(1, id.get()).Bind(2, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ChunkRecord>();
  ATTEST_ASSIGN_OR_RETURN(ChunkRecord c, ReadChunkRow(*st, 0));
  return std::optional<ChunkRecord>(std::move(c));
}

Result<std::vector<ChunkRecord>> Catalog::GetChunks(std::span<const ChunkId> ids, SnapshotVersion v) {
  std::vector<ChunkRecord> out;
  if (ids.empty()) return out;
  out.reserve(ids.size());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT " + ChunkColumns() + " FROM chunks "
                                                  "WHERE id = ?1 AND text IS NOT NULL AND " + Visible(2)));
  for (ChunkId id : ids) {
    st->Reset();
    st->Bind(1, id.get()).Bind(2, v.get());
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) continue;
    ATTEST_ASSIGN_OR_RETURN(ChunkRecord c, ReadChunkRow(*st, 0));
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<ChunkRecord>> Catalog::ChunksOfDocument(DocNum num, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT " + ChunkColumns() + " FROM chunks "
                                                  "WHERE doc_num = ?1 AND text IS NOT NULL AND " + Visible(2) +
                                                  " ORDER BY ordinal"));
  st->Bind(1, num.get()).Bind(2, v.get());
  std::vector<ChunkRecord> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ATTEST_ASSIGN_OR_RETURN(ChunkRecord c, ReadChunkRow(*st, 0));
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::optional<DocumentRecord>> Catalog::GetDocument(DocNum num, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(std::string("SELECT ") + DocColumns() +
                                                  " FROM documents WHERE num = ?1 AND " + Visible(2)));
  st->Bind(1, num.get()).Bind(2, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<DocumentRecord>();
  ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocumentRow(*st, 0));
  return std::optional<DocumentRecord>(std::move(d));
}

Result<std::vector<std::optional<DocumentRecord>>> Catalog::GetDocuments(std::span<const DocNum> nums,
                                                                         SnapshotVersion v) {
  std::vector<std::optional<DocumentRecord>> out;
  if (nums.empty()) return out;
  out.reserve(nums.size());
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(std::string("SELECT ") + DocColumns() +
                                                  " FROM documents WHERE num = ?1 AND " + Visible(2)));
  for (DocNum num : nums) {
    st->Reset();
    st->Bind(1, num.get()).Bind(2, v.get());
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) {
      out.emplace_back();
      continue;
    }
    ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocumentRow(*st, 0));
    out.emplace_back(std::move(d));
  }
  return out;
}

Result<std::optional<DocumentRecord>> Catalog::FindDocument(std::string_view tenant, std::string_view id,
                                                            SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(std::string("SELECT ") + DocColumns() +
                                                  " FROM documents WHERE tenant = ?1 AND id = ?2 AND " + Visible(3) +
                                                  " ORDER BY created_snapshot DESC LIMIT 1"));
  st->Bind(1, tenant).Bind(2, id).Bind(3, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<DocumentRecord>();
  ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocumentRow(*st, 0));
  return std::optional<DocumentRecord>(std::move(d));
}

Result<int64_t> Catalog::CommittedAt(SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT committed_at_unix_ms FROM snapshots WHERE version = ?1"));
  st->Bind(1, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return Status::NotFound("snapshot " + std::to_string(v.get()) + " is not in the catalog");
  return static_cast<int64_t>(st->ColumnU64(0));
}

Result<std::map<uint32_t, uint64_t>> Catalog::LogPositions() {
  std::map<uint32_t, uint64_t> out;
  if (Schema() < 8) return out;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT vshard, sequence FROM log_positions"));
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out[static_cast<uint32_t>(st->ColumnU64(0))] = st->ColumnU64(1);
  }
  return out;
}

Status Catalog::WriteLogPositions(const std::map<uint32_t, uint64_t>& positions, SnapshotVersion v) {
  for (const auto& [vshard, sequence] : positions) {
    if (sequence == 0) {
      ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("DELETE FROM log_positions WHERE vshard = ?1"));
      st->Bind(1, uint64_t{vshard});
      ATTEST_RETURN_IF_ERROR(st->Run());
      continue;
    }
    ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                            db_.Prepare("INSERT INTO log_positions(vshard, sequence, committed_snapshot) VALUES (?1, ?2, ?3) "
                                        "ON CONFLICT(vshard) DO UPDATE SET sequence = ?2, committed_snapshot = ?3"));
    st->Bind(1, uint64_t{vshard}).Bind(2, sequence).Bind(3, v.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Result<std::vector<std::pair<std::string, std::string>>> Catalog::LiveKeys(SnapshotVersion v) {
  std::vector<std::pair<std::string, std::string>> out;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                          db_.Prepare("SELECT tenant, id FROM documents WHERE " + Visible(1) + " ORDER BY tenant, id"));
  st->Bind(1, v.get());
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.emplace_back(st->ColumnText(0), st->ColumnText(1));
  }
  return out;
}

Result<CatalogCounts> Catalog::Counts(SnapshotVersion v) {
  CatalogCounts c;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*), coalesce(sum(bytes), 0) FROM documents "
                                                    "WHERE " + Visible(1)));
    st->Bind(1, v.get());
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row) c.documents = st->ColumnU64(0), c.source_bytes = st->ColumnU64(1);
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*) FROM chunks WHERE " + Visible(1)));
  st->Bind(1, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (row) c.chunks = st->ColumnU64(0);
  return c;
}

}  // namespace attest
