#include "store/catalog.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "store/row_checksum.h"
#include "store/span_codec.h"

namespace attest {
namespace {

constexpr const char* kDocColumns =
    "num, tenant, id, url, title, site, published, updated, version, source_type, language, acl_json, "
    "sha256, bytes, chunk_count, created_snapshot, ";

constexpr const char* kVisible = "created_snapshot <= ?%1 AND (deleted_snapshot IS NULL OR deleted_snapshot > ?%1)";

std::string Visible(int param) { return Catalog::VisibleAt(param); }

// Reads the kDocColumns (then feed, access_label) starting at column `c`, but not the ACL: its
// stored JSON text goes to `acl_json` (ParseAcl reads it once the row's checksum is checked).
DocumentRecord ReadDocumentFields(const SqliteStmt& st, int c, std::string* acl_json) {
  DocumentRecord d;
  d.num = DocNum(st.ColumnU64(c + 0));
  d.tenant = st.ColumnText(c + 1);
  d.id = st.ColumnText(c + 2);
  d.url = st.ColumnText(c + 3);
  d.title = st.ColumnText(c + 4);
  d.site = st.ColumnText(c + 5);
  if (!st.ColumnIsNull(c + 6)) d.published = static_cast<DayNumber>(st.ColumnInt(c + 6));
  if (!st.ColumnIsNull(c + 7)) d.updated = static_cast<DayNumber>(st.ColumnInt(c + 7));
  d.version = st.ColumnText(c + 8);
  d.source_type = st.ColumnText(c + 9);
  d.language = st.ColumnText(c + 10);
  *acl_json = st.ColumnText(c + 11);
  d.sha256 = st.ColumnText(c + 12);
  d.bytes = st.ColumnU64(c + 13);
  d.chunk_count = static_cast<uint32_t>(st.ColumnU64(c + 14));
  d.created = SnapshotVersion(st.ColumnU64(c + 15));
  d.feed = st.ColumnText(c + 16);
  d.access_label = st.ColumnText(c + 17);
  return d;
}
constexpr int kDocChecksumColumn = 18;  // after the fields above
constexpr int kDocLicenseColumn = 19;   // then schema 7's license and fetched_at
constexpr int kDocFetchedAtColumn = 20;

Status ParseAcl(const std::string& acl, DocumentRecord* d) {
  nlohmann::json j = nlohmann::json::parse(acl, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) {
    return Status::Corruption("catalog: document " + std::to_string(d->num.get()) + " has a malformed acl_json");
  }
  for (const auto& g : j) {
    if (!g.is_string()) {
      return Status::Corruption("catalog: document " + std::to_string(d->num.get()) +
                                " has a non-string ACL group");
    }
    d->acl_groups.push_back(g.get<std::string>());
  }
  return Status::Ok();
}

// Reads the chunk columns up to text; the spans blob is read by ReadChunkRow.
ChunkRecord ReadChunkFields(const SqliteStmt& st, int c) {
  ChunkRecord r;
  r.id = ChunkId(st.ColumnU64(c + 0));
  r.doc = DocNum(st.ColumnU64(c + 1));
  r.ordinal = static_cast<uint32_t>(st.ColumnU64(c + 2));
  r.section_path = st.ColumnText(c + 3);
  r.text = st.ColumnText(c + 4);
  return r;
}
constexpr int kChunkChecksumColumn = 5;
constexpr int kChunkSpansColumn = 6;
constexpr int kChunkColumnCount = 7;

constexpr const char* kEditedRow =
    " does not match its row checksum: the catalog was changed outside attest (an edit, a partial restore); "
    "it is not served until an operator re-ingests or deletes the document";

std::string JsonIds(std::span<const SegmentId> ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(ids[i].get());
  }
  return s + "]";
}

}  // namespace

std::string Catalog::VisibleAt(int param) {
  std::string s = kVisible;
  std::string p = "?" + std::to_string(param);
  for (size_t pos; (pos = s.find("?%1")) != std::string::npos;) s.replace(pos, 3, p);
  return s;
}

std::string Catalog::DocColumns() {
  // A reader may open a catalog a writer has not migrated yet: version 2 had no `feed` column,
  // version 3 no `access_label`, version 4 no `checksum`, version 6 no `license` and `fetched_at`.
  const int schema = Schema();
  return std::string(kDocColumns) + (schema >= 3 ? "feed" : "'' AS feed") +
         (schema >= 4 ? ", access_label" : ", '' AS access_label") + (schema >= 5 ? ", checksum" : ", NULL AS checksum") +
         (schema >= 7 ? ", license, fetched_at" : ", '' AS license, NULL AS fetched_at");
}

std::string Catalog::ChunkColumns() {
  return std::string("id, doc_num, ordinal, section_path, text") + (Schema() >= 5 ? ", checksum" : ", NULL AS checksum") +
         (Schema() >= 6 ? ", spans" : ", NULL AS spans");
}

int Catalog::Schema() {
  if (schema_ == 0) {
    auto uv = db_.UserVersion();
    schema_ = uv.ok() ? static_cast<int>(*uv) : kCatalogSchemaVersion;
  }
  return schema_;
}

std::string Catalog::DocumentName(DocNum num) {
  std::string name = "document #" + std::to_string(num.get());
  auto st = db_.Prepare("SELECT tenant, id FROM documents WHERE num = ?1");
  if (!st.ok()) return name;
  (*st)->Bind(1, num.get());
  auto row = (*st)->Step();
  if (!row.ok() || !*row) return name;
  const std::string tenant = (*st)->ColumnText(0);
  return "document '" + (*st)->ColumnText(1) + "' of tenant '" + (tenant.empty() ? "default" : tenant) + "' (#" +
         std::to_string(num.get()) + ")";
}

Result<DocumentRecord> Catalog::ReadDocumentRow(const SqliteStmt& st, int c) {
  std::string acl;
  DocumentRecord d = ReadDocumentFields(st, c, &acl);
  d.license = st.ColumnText(c + kDocLicenseColumn);
  if (!st.ColumnIsNull(c + kDocFetchedAtColumn)) d.fetched_at_ms = st.ColumnInt(c + kDocFetchedAtColumn);
  if (Schema() >= 5) {
    const int k = c + kDocChecksumColumn;
    if (st.ColumnIsNull(k) || static_cast<uint32_t>(st.ColumnU64(k)) != DocumentRowChecksum(d, acl)) {
      const std::string tenant = d.tenant.empty() ? "default" : d.tenant;
      return Status::Corruption("catalog: document '" + d.id + "' of tenant '" + tenant + "' (#" +
                                std::to_string(d.num.get()) + ")" + kEditedRow);
    }
  }
  ATTEST_RETURN_IF_ERROR(ParseAcl(acl, &d));
  return d;
}

Result<ChunkRecord> Catalog::ReadChunkRow(const SqliteStmt& st, int c) {
  ChunkRecord r = ReadChunkFields(st, c);
  const bool has_spans = !st.ColumnIsNull(c + kChunkSpansColumn);
  const std::string blob = has_spans ? st.ColumnBlob(c + kChunkSpansColumn) : std::string();
  auto name = [&] {
    return "catalog: chunk " + std::to_string(r.id.get()) + " (part " + std::to_string(r.ordinal + 1) + ") of " +
           DocumentName(r.doc);
  };
  if (Schema() >= 5) {
    const int k = c + kChunkChecksumColumn;
    const uint32_t expected =
        ChunkRowChecksum(r, has_spans ? std::optional<std::string_view>(blob) : std::nullopt);
    if (st.ColumnIsNull(k) || static_cast<uint32_t>(st.ColumnU64(k)) != expected) {
      return Status::Corruption(name() + kEditedRow);
    }
  }
  if (has_spans) {
    auto spans = DecodeSpans(blob, r.text.size());
    if (!spans.ok()) return Status::Corruption(name() + " has unreadable structure: " + spans.status().message());
    r.spans = std::move(*spans);
  }
  return r;
}

Result<uint64_t> Catalog::BackfillChecksums() {
  uint64_t rows = 0;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef read, db_.Prepare(std::string("SELECT ") + kDocColumns +
                                                      "feed, access_label FROM documents"));
    ATTEST_ASSIGN_OR_RETURN(StmtRef write, db_.Prepare("UPDATE documents SET checksum = ?2 WHERE num = ?1"));
    while (true) {
      ATTEST_ASSIGN_OR_RETURN(bool row, read->Step());
      if (!row) break;
      std::string acl;
      DocumentRecord d = ReadDocumentFields(*read, 0, &acl);
      write->Reset();
      write->Bind(1, d.num.get()).Bind(2, uint64_t{DocumentRowChecksum(d, acl)});
      ATTEST_RETURN_IF_ERROR(write->Run());
      ++rows;
    }
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef read, db_.Prepare("SELECT id, doc_num, ordinal, section_path, text FROM chunks"));
  ATTEST_ASSIGN_OR_RETURN(StmtRef write, db_.Prepare("UPDATE chunks SET checksum = ?2 WHERE id = ?1"));
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, read->Step());
    if (!row) break;
    ChunkRecord c = ReadChunkFields(*read, 0);  // a purged tombstone's NULL text reads as ""
    write->Reset();
    write->Bind(1, c.id.get()).Bind(2, uint64_t{ChunkRowChecksum(c)});
    ATTEST_RETURN_IF_ERROR(write->Run());
    ++rows;
  }
  return rows;
}

Status Catalog::InsertEmbedder(const EmbedderRecord& rec) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(
      "INSERT INTO embedders(activated_snapshot, key, name, dim, version, model_file, config_json, trained_chunks, "
      "tenant) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st->Bind(1, rec.activated.get()).Bind(2, std::string_view(rec.key)).Bind(3, std::string_view(rec.name));
  st->Bind(4, uint64_t{rec.dim}).Bind(5, std::string_view(rec.version)).Bind(6, std::string_view(rec.model_file));
  st->Bind(7, std::string_view(rec.config_json)).Bind(8, rec.trained_chunks).Bind(9, std::string_view(rec.tenant));
  return st->Run();
}

Result<std::map<std::string, EmbedderRecord>> Catalog::ActiveEmbedders(SnapshotVersion v) {
  std::map<std::string, EmbedderRecord> out;
  // A catalog a writer has not migrated yet (opened read-only) has no per-tenant embedders.
  ATTEST_ASSIGN_OR_RETURN(int64_t uv, db_.UserVersion());
  if (uv < 4) return out;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(
      "SELECT e.activated_snapshot, e.key, e.name, e.dim, e.version, e.model_file, e.config_json, e.trained_chunks, "
      "e.tenant FROM embedders e WHERE e.tenant IS NOT NULL AND e.activated_snapshot = "
      "(SELECT max(x.activated_snapshot) FROM embedders x WHERE x.tenant = e.tenant AND x.activated_snapshot <= ?1)"));
  st->Bind(1, v.get());
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    EmbedderRecord r;
    r.activated = SnapshotVersion(st->ColumnU64(0));
    r.key = st->ColumnText(1);
    r.name = st->ColumnText(2);
    r.dim = static_cast<uint32_t>(st->ColumnU64(3));
    r.version = st->ColumnText(4);
    r.model_file = st->ColumnText(5);
    r.config_json = st->ColumnText(6);
    r.trained_chunks = st->ColumnU64(7);
    r.tenant = st->ColumnText(8);
    if (r.key.empty() || r.dim == 0 || r.dim > 65536) {
      return Status::Corruption("catalog: embedder activated at snapshot " + std::to_string(r.activated.get()) +
                                " has an empty key or a dimension of " + std::to_string(r.dim));
    }
    out[r.tenant] = std::move(r);
  }
  return out;
}

Result<CatalogMeta> Catalog::ReadMeta() {
  CatalogMeta m;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT key, value FROM meta"));
  int seen = 0;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    std::string key = st->ColumnText(0);
    uint64_t v = st->ColumnU64(1);
    if (key == "next_chunk_id") {
      m.next_chunk_id = v, ++seen;
    } else if (key == "next_doc_num") {
      m.next_doc_num = v, ++seen;
    } else if (key == "next_segment_id") {
      m.next_segment_id = v, ++seen;
    } else if (key == "snapshot_version") {
      m.snapshot_version = v, ++seen;
    }
  }
  if (seen != 4) return Status::Corruption("catalog meta table is missing counters");
  return m;
}

Status Catalog::WriteMeta(const CatalogMeta& m) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE meta SET value = ?2 WHERE key = ?1"));
  const std::pair<const char*, uint64_t> kv[] = {{"next_chunk_id", m.next_chunk_id},
                                                 {"next_doc_num", m.next_doc_num},
                                                 {"next_segment_id", m.next_segment_id},
                                                 {"snapshot_version", m.snapshot_version}};
  for (const auto& [k, v] : kv) {
    st->Reset();
    st->Bind(1, std::string_view(k)).Bind(2, v);
    ATTEST_RETURN_IF_ERROR(st->Run());
    if (db_.changes() != 1) return Status::Corruption(std::string("catalog meta key missing: ") + k);
  }
  return Status::Ok();
}

Status Catalog::InsertSnapshot(SnapshotVersion v, std::string_view note) {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO snapshots(version, committed_at_unix_ms, note) "
                                                  "VALUES (?1, ?2, ?3)"));
  st->Bind(1, v.get()).Bind(2, now).Bind(3, note);
  return st->Run();
}

Result<std::optional<LiveDocRef>> Catalog::FindLive(std::string_view tenant, std::string_view id) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT num, sha256 FROM documents "
                                                  "WHERE tenant = ?1 AND id = ?2 AND deleted_snapshot IS NULL"));
  st->Bind(1, tenant).Bind(2, id);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<LiveDocRef>();
  return std::optional<LiveDocRef>(LiveDocRef{DocNum(st->ColumnU64(0)), st->ColumnText(1)});
}

Result<std::vector<ChunkLocation>> Catalog::LiveChunksOfDoc(DocNum doc) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, segment_id FROM chunks "
                                                  "WHERE doc_num = ?1 AND deleted_snapshot IS NULL ORDER BY id"));
  st->Bind(1, doc.get());
  std::vector<ChunkLocation> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back({ChunkId(st->ColumnU64(0)), SegmentId(st->ColumnU64(1))});
  }
  return out;
}

Status Catalog::MarkDocumentDeleted(DocNum doc, SnapshotVersion v) {
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE documents SET deleted_snapshot = ?2 "
                                                    "WHERE num = ?1 AND deleted_snapshot IS NULL"));
    st->Bind(1, doc.get()).Bind(2, v.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    if (db_.changes() != 1) {
      return Status::Internal("document " + std::to_string(doc.get()) + " was not live when deleting it");
    }
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE chunks SET deleted_snapshot = ?2 "
                                                  "WHERE doc_num = ?1 AND deleted_snapshot IS NULL"));
  st->Bind(1, doc.get()).Bind(2, v.get());
  return st->Run();
}

Status Catalog::InsertDocument(const DocumentRecord& d, SnapshotVersion created) {
  nlohmann::json acl = nlohmann::json::array();
  for (const auto& g : d.acl_groups) acl.push_back(g);
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st,
      db_.Prepare("INSERT INTO documents(num, tenant, id, url, title, site, published, updated, version, "
                  "source_type, language, acl_json, sha256, bytes, chunk_count, created_snapshot, feed, access_label, "
                  "checksum, license, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                  "?15, ?16, ?17, ?18, ?19, ?20, ?21)"));
  st->Bind(1, d.num.get()).Bind(2, d.tenant).Bind(3, d.id).Bind(4, d.url).Bind(5, d.title).Bind(6, d.site);
  st->Bind(7, d.published).Bind(8, d.updated).Bind(9, d.version).Bind(10, d.source_type).Bind(11, d.language);
  std::string acl_text = acl.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  st->Bind(12, acl_text).Bind(13, d.sha256).Bind(14, d.bytes);
  st->Bind(15, static_cast<int64_t>(d.chunk_count)).Bind(16, created.get()).Bind(17, d.feed);
  st->Bind(18, d.access_label);
  DocumentRecord stored = d;
  stored.created = created;  // the row's created_snapshot is the commit's, whatever `d` says
  st->Bind(19, uint64_t{DocumentRowChecksum(stored, acl_text)});
  st->Bind(20, d.license);
  if (d.fetched_at_ms != 0) {
    st->Bind(21, d.fetched_at_ms);
  } else {
    st->BindNull(21);
  }
  return st->Run();
}

Status Catalog::InsertChunk(const ChunkRecord& c, SegmentId segment, SnapshotVersion created) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO chunks(id, doc_num, ordinal, section_path, text, "
                                                  "segment_id, created_snapshot, checksum, spans) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  const std::string spans = EncodeSpans(c.spans);
  st->Bind(1, c.id.get()).Bind(2, c.doc.get()).Bind(3, static_cast<int64_t>(c.ordinal));
  st->Bind(4, c.section_path).Bind(5, c.text).Bind(6, segment.get()).Bind(7, created.get());
  st->Bind(8, uint64_t{ChunkRowChecksum(c, spans.empty() ? std::nullopt : std::optional<std::string_view>(spans))});
  if (spans.empty()) {
    st->BindNull(9);
  } else {
    st->BindBlob(9, spans);
  }
  return st->Run();
}

Status Catalog::InsertSegment(const SegmentRow& r) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO segments(id, file, num_docs, bytes, crc, "
                                                  "created_snapshot) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  st->Bind(1, r.id.get()).Bind(2, r.file).Bind(3, r.num_docs).Bind(4, r.bytes);
  st->Bind(5, static_cast<int64_t>(r.crc)).Bind(6, r.created.get());
  return st->Run();
}

Result<std::vector<SegmentRow>> Catalog::LiveSegments() {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, file, num_docs, bytes, crc, created_snapshot "
                                                  "FROM segments WHERE dropped_snapshot IS NULL ORDER BY id"));
  std::vector<SegmentRow> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    SegmentRow r;
    r.id = SegmentId(st->ColumnU64(0));
    r.file = st->ColumnText(1);
    r.num_docs = st->ColumnU64(2);
    r.bytes = st->ColumnU64(3);
    r.crc = static_cast<uint32_t>(st->ColumnU64(4));
    r.created = SnapshotVersion(st->ColumnU64(5));
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<ChunkLocation>> Catalog::TombstonesInLiveSegments() {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("SELECT c.id, c.segment_id FROM chunks c JOIN segments s ON s.id = c.segment_id "
                              "WHERE s.dropped_snapshot IS NULL AND c.deleted_snapshot IS NOT NULL "
                              "ORDER BY c.segment_id, c.id"));
  std::vector<ChunkLocation> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back({ChunkId(st->ColumnU64(0)), SegmentId(st->ColumnU64(1))});
  }
  return out;
}

Status Catalog::ForEachLiveChunk(std::span<const SegmentId> segments,
                                 const std::function<Status(const ChunkRecord&, const DocumentRecord&)>& fn) {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare(std::string("SELECT c.id, c.doc_num, c.ordinal, c.section_path, c.text, c.checksum, ") +
                              (Schema() >= 6 ? "c.spans, " : "NULL, ") +
                              "d.num, d.tenant, d.id, d.url, d.title, d.site, d.published, d.updated, d.version, "
                              "d.source_type, d.language, d.acl_json, d.sha256, d.bytes, d.chunk_count, "
                              "d.created_snapshot, d.feed, d.access_label, d.checksum, " +
                              (Schema() >= 7 ? "d.license, d.fetched_at " : "'', NULL ") +
                              "FROM chunks c JOIN documents d ON d.num = c.doc_num "
                              "WHERE c.segment_id IN (SELECT value FROM json_each(?1)) "
                              "AND c.deleted_snapshot IS NULL ORDER BY c.id"));
  st->Bind(1, JsonIds(segments));
  std::optional<DocumentRecord> doc;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ATTEST_ASSIGN_OR_RETURN(ChunkRecord c, ReadChunkRow(*st, 0));
    if (!doc || doc->num != c.doc) {
      ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocumentRow(*st, kChunkColumnCount));
      doc = std::move(d);
    }
    ATTEST_RETURN_IF_ERROR(fn(c, *doc));
  }
  return Status::Ok();
}

Status Catalog::MoveLiveChunksOfTenant(std::span<const SegmentId> from, std::string_view tenant, SegmentId to) {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("UPDATE chunks SET segment_id = ?2 WHERE segment_id IN (SELECT value FROM json_each(?1)) "
                              "AND deleted_snapshot IS NULL AND doc_num IN (SELECT num FROM documents WHERE tenant = ?3)"));
  st->Bind(1, JsonIds(from)).Bind(2, to.get()).Bind(3, tenant);
  return st->Run();
}

Status Catalog::DropSegments(std::span<const SegmentId> ids, SnapshotVersion v) {
  const std::string json = JsonIds(ids);
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*) FROM chunks WHERE segment_id IN "
                                                    "(SELECT value FROM json_each(?1)) AND deleted_snapshot IS NULL"));
    st->Bind(1, json);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row && st->ColumnU64(0) != 0) {
      return Status::Internal("merge: " + std::to_string(st->ColumnU64(0)) + " live chunks were not moved out of "
                              "the merged segments");
    }
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE segments SET dropped_snapshot = ?2 WHERE id IN "
                                                  "(SELECT value FROM json_each(?1)) AND dropped_snapshot IS NULL"));
  st->Bind(1, json).Bind(2, v.get());
  ATTEST_RETURN_IF_ERROR(st->Run());
  if (static_cast<size_t>(db_.changes()) != ids.size()) {
    return Status::Internal("merge: some merged segments were not live");
  }
  return Status::Ok();
}

Result<uint64_t> Catalog::Purge(SnapshotVersion horizon) {
  uint64_t n = 0;
  {
    ATTEST_ASSIGN_OR_RETURN(
        StmtRef st, db_.Prepare("DELETE FROM chunks WHERE deleted_snapshot IS NOT NULL AND deleted_snapshot <= ?1 "
                                "AND segment_id NOT IN (SELECT id FROM segments WHERE dropped_snapshot IS NULL)"));
    st->Bind(1, horizon.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    n += static_cast<uint64_t>(db_.changes());
  }
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE chunks SET text = NULL WHERE deleted_snapshot IS NOT "
                                                    "NULL AND deleted_snapshot <= ?1 AND text IS NOT NULL"));
    st->Bind(1, horizon.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    n += static_cast<uint64_t>(db_.changes());
  }
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("DELETE FROM segments WHERE dropped_snapshot IS NOT NULL AND dropped_snapshot <= ?1 "
                              "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.segment_id = segments.id)"));
  st->Bind(1, horizon.get());
  ATTEST_RETURN_IF_ERROR(st->Run());
  return n;
}

}  // namespace attest
