// Catalog::ListDocuments: pages of a tenant's live documents for the admin listing
// (docs/store_format.md, "Listing"). Keyset paging on the document id: a page is the rows with ids
// after the previous page's last, so documents added or deleted meanwhile never shift a page or
// repeat a row; the total is counted with the same filters.
#include <cctype>

#include <nlohmann/json.hpp>

#include "store/catalog.h"

namespace attest {
namespace {

// SQLite's lower() folds ASCII only (no ICU): the needle is folded the same way.
std::string AsciiLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string JsonList(const std::vector<std::string>& values) { return nlohmann::json(values).dump(); }

// The WHERE clause of a listing (without the keyset), and the values it binds from ?3 on.
struct Where {
  std::string sql;
  std::vector<std::string> values;
};

Where ListFilter(const DocumentListQuery& q) {
  Where w;
  // ?1 = tenant, ?2 = snapshot version; visible at v: created <= v and not deleted at or before v.
  w.sql = "tenant = ?1 AND created_snapshot <= ?2 AND (deleted_snapshot IS NULL OR deleted_snapshot > ?2)";
  auto add = [&](const std::string& clause, std::string value) {
    w.values.push_back(std::move(value));
    std::string p = "?" + std::to_string(2 + w.values.size());
    std::string c = clause;
    for (size_t at; (at = c.find("?P")) != std::string::npos;) c.replace(at, 2, p);
    w.sql += " AND " + c;
  };
  if (!q.source_types.empty()) add("source_type IN (SELECT value FROM json_each(?P))", JsonList(q.source_types));
  if (!q.sites.empty()) add("site IN (SELECT value FROM json_each(?P))", JsonList(q.sites));
  if (!q.versions.empty()) add("version IN (SELECT value FROM json_each(?P))", JsonList(q.versions));
  if (!q.text.empty()) add("(instr(lower(id), ?P) > 0 OR instr(lower(title), ?P) > 0)", AsciiLower(q.text));
  // Dates are day numbers; a row without one is NULL here and passes no bound.
  if (q.date_from) add("coalesce(published, updated) >= CAST(?P AS INTEGER)", std::to_string(*q.date_from));
  if (q.date_to) add("coalesce(published, updated) <= CAST(?P AS INTEGER)", std::to_string(*q.date_to));
  return w;
}

void BindFilter(SqliteStmt& st, const DocumentListQuery& q, SnapshotVersion v, const Where& w) {
  st.Bind(1, q.tenant).Bind(2, v.get());
  for (size_t i = 0; i < w.values.size(); ++i) st.Bind(static_cast<int>(3 + i), w.values[i]);
}

}  // namespace

Result<DocumentPage> Catalog::ListDocuments(const DocumentListQuery& q, SnapshotVersion v) {
  const Where w = ListFilter(q);
  DocumentPage page;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*) FROM documents WHERE " + w.sql));
    BindFilter(*st, q, v, w);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row) page.total = st->ColumnU64(0);
  }
  const int after = static_cast<int>(3 + w.values.size());
  const int limit = after + 1;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT " + DocColumns() + " FROM documents WHERE " + w.sql +
                                                  " AND id > ?" + std::to_string(after) + " ORDER BY id LIMIT ?" +
                                                  std::to_string(limit)));
  BindFilter(*st, q, v, w);
  st->Bind(after, q.after_id).Bind(limit, static_cast<uint64_t>(q.limit + 1));
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    if (page.rows.size() == q.limit) {
      page.more = true;
      break;
    }
    ListedDocument listed;
    listed.id = st->ColumnText(2);  // DocColumns: num, tenant, id, ...
    Result<DocumentRecord> d = ReadDocumentRow(*st, 0);
    if (d.ok()) {
      listed.record = std::move(d).value();
    } else if (d.status().code() == StatusCode::kCorruption) {
      listed.error = d.status().message();
    } else {
      return d.status();
    }
    page.rows.push_back(std::move(listed));
  }
  return page;
}

}  // namespace attest
