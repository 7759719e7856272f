#include "crawl/frontier.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <system_error>
#include <utility>

#include "store/sqlite_util.h"

namespace attest {
namespace {

constexpr std::array<std::string_view, 7> kStateNames = {"queued",   "fetching",  "done", "failed",
                                                         "excluded", "duplicate", "gone"};

// Columns of `pages` in the order PageFromRow reads and BindPage binds them.
constexpr const char* kPageColumns =
    "url, state, depth, discovered_from, etag, last_modified, sha256, doc_id, simhash, duplicate_of, canonical, "
    "redirected_to, alias_word, alias_version, fetched_at, next_visit, revisit_interval, attempts, last_status, "
    "error, pending_sha256, pending_fetched_at";

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages(
  url TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  depth INTEGER NOT NULL,
  discovered_from TEXT NOT NULL,
  etag TEXT NOT NULL, last_modified TEXT NOT NULL,
  sha256 TEXT NOT NULL, doc_id TEXT NOT NULL,
  simhash INTEGER,
  duplicate_of TEXT NOT NULL, canonical TEXT NOT NULL, redirected_to TEXT NOT NULL,
  alias_word TEXT NOT NULL, alias_version TEXT NOT NULL,
  fetched_at INTEGER NOT NULL, next_visit INTEGER NOT NULL, revisit_interval INTEGER NOT NULL,
  attempts INTEGER NOT NULL, last_status INTEGER NOT NULL, error TEXT NOT NULL,
  pending_sha256 TEXT NOT NULL, pending_fetched_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pages_by_state ON pages(state);
CREATE TABLE IF NOT EXISTS hosts(
  origin TEXT PRIMARY KEY,
  robots_kind TEXT NOT NULL, robots_status INTEGER NOT NULL, robots_redirects INTEGER NOT NULL,
  robots_body BLOB NOT NULL, robots_outcome TEXT NOT NULL, robots_fetched_at INTEGER NOT NULL,
  crawl_delay_ms INTEGER NOT NULL, next_allowed INTEGER NOT NULL);
)sql";

PageRecord PageFromRow(const SqliteStmt& st) {
  PageRecord p;
  p.url = st.ColumnText(0);
  p.state = ParsePageState(st.ColumnText(1)).value_or(PageState::kQueued);
  p.depth = static_cast<int>(st.ColumnInt(2));
  p.discovered_from = st.ColumnText(3);
  p.etag = st.ColumnText(4);
  p.last_modified = st.ColumnText(5);
  p.sha256 = st.ColumnText(6);
  p.doc_id = st.ColumnText(7);
  if (!st.ColumnIsNull(8)) p.simhash = st.ColumnU64(8);
  p.duplicate_of = st.ColumnText(9);
  p.canonical = st.ColumnText(10);
  p.redirected_to = st.ColumnText(11);
  p.alias_word = st.ColumnText(12);
  p.alias_version = st.ColumnText(13);
  p.fetched_at_ms = st.ColumnInt(14);
  p.next_visit_ms = st.ColumnInt(15);
  p.revisit_interval_s = st.ColumnInt(16);
  p.attempts = static_cast<int>(st.ColumnInt(17));
  p.last_status = static_cast<int>(st.ColumnInt(18));
  p.error = st.ColumnText(19);
  p.pending_sha256 = st.ColumnText(20);
  p.pending_fetched_at_ms = st.ColumnInt(21);
  return p;
}

void BindPage(SqliteStmt& st, const PageRecord& p) {
  st.Bind(1, p.url).Bind(2, PageStateName(p.state)).Bind(3, int64_t{p.depth}).Bind(4, p.discovered_from);
  st.Bind(5, p.etag).Bind(6, p.last_modified).Bind(7, p.sha256).Bind(8, p.doc_id);
  if (p.simhash) {
    st.Bind(9, *p.simhash);
  } else {
    st.BindNull(9);
  }
  st.Bind(10, p.duplicate_of).Bind(11, p.canonical).Bind(12, p.redirected_to).Bind(13, p.alias_word);
  st.Bind(14, p.alias_version).Bind(15, p.fetched_at_ms).Bind(16, p.next_visit_ms).Bind(17, p.revisit_interval_s);
  st.Bind(18, int64_t{p.attempts}).Bind(19, int64_t{p.last_status}).Bind(20, p.error).Bind(21, p.pending_sha256);
  st.Bind(22, p.pending_fetched_at_ms);
}

HostRecord HostFromRow(const SqliteStmt& st) {
  HostRecord h;
  h.origin = st.ColumnText(0);
  h.robots_kind = st.ColumnText(1);
  h.robots_http_status = static_cast<int>(st.ColumnInt(2));
  h.robots_redirects = static_cast<int>(st.ColumnInt(3));
  h.robots_body = st.ColumnBlob(4);
  h.robots_outcome = st.ColumnText(5);
  h.robots_fetched_at_ms = st.ColumnInt(6);
  h.crawl_delay_ms = st.ColumnInt(7);
  h.next_allowed_ms = st.ColumnInt(8);
  return h;
}

constexpr const char* kHostColumns =
    "origin, robots_kind, robots_status, robots_redirects, robots_body, robots_outcome, robots_fetched_at, "
    "crawl_delay_ms, next_allowed";

}  // namespace

std::string_view PageStateName(PageState state) { return kStateNames[static_cast<size_t>(state)]; }

std::optional<PageState> ParsePageState(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i) {
    if (kStateNames[i] == name) return static_cast<PageState>(i);
  }
  return std::nullopt;
}

Result<std::filesystem::path> FrontierPath(const std::filesystem::path& data_dir, std::string_view name) {
  bool ok = !name.empty() && name.size() <= 64 && name[0] != '.';
  for (char c : name) {
    ok &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.';
  }
  if (!ok) {
    return Status::InvalidArgument("crawl source name '" + std::string(name) +
                                   "': use 1 to 64 of A-Z a-z 0-9 _ - . (not starting with '.')");
  }
  return data_dir / "crawl" / (std::string(name) + ".sqlite");
}

Frontier::Frontier(std::filesystem::path path, std::unique_ptr<SqliteDb> db)
    : path_(std::move(path)), db_(std::move(db)) {}
Frontier::~Frontier() = default;

Result<std::unique_ptr<Frontier>> Frontier::Open(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Status::IOError("cannot create " + path.parent_path().string() + ": " + ec.message());
  SqliteOpenArgs args;
  args.path = path;
  args.create = true;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(args));
  std::unique_ptr<Frontier> f(new Frontier(path, std::move(db)));
  Status s = f->EnsureSchema();
  if (!s.ok()) return s.WithContext(path.string());
  return f;
}

Status Frontier::EnsureSchema() {
  MutexLock lock(mu_);
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("PRAGMA journal_mode = WAL"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != "wal") return Status::IOError("cannot switch the frontier to WAL mode");
  }
  ATTEST_RETURN_IF_ERROR(db_->Exec("PRAGMA synchronous = FULL"));
  ATTEST_ASSIGN_OR_RETURN(int64_t tables, QueryInt(*db_, "SELECT count(*) FROM sqlite_master WHERE name = 'meta'", 0));
  if (tables > 0) {
    ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> format, MetaLocked("format"));
    ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> version, MetaLocked("schema_version"));
    if (!format || *format != kFrontierFormat) {
      return Status::Corruption("not a crawl frontier (meta.format is '" + format.value_or("") + "')");
    }
    if (!version || *version != std::to_string(kFrontierSchemaVersion)) {
      return Status::Unsupported("crawl frontier schema version " + version.value_or("?") +
                                 " is not the one this build reads (" + std::to_string(kFrontierSchemaVersion) + ")");
    }
  } else {
    ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
    ATTEST_RETURN_IF_ERROR(db_->Exec(kSchema));
    ATTEST_RETURN_IF_ERROR(SetMetaLocked("format", kFrontierFormat));
    ATTEST_RETURN_IF_ERROR(SetMetaLocked("schema_version", std::to_string(kFrontierSchemaVersion)));
    ATTEST_RETURN_IF_ERROR(tx->Commit());
  }
  ATTEST_RETURN_IF_ERROR(db_->Exec("UPDATE pages SET state = 'queued' WHERE state = 'fetching'"));
  recovered_fetching_ = static_cast<uint64_t>(db_->changes());
  return Status::Ok();
}

Result<std::optional<std::string>> Frontier::MetaLocked(std::string_view key) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("SELECT value FROM meta WHERE key = ?"));
  st->Bind(1, key);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st->ColumnText(0));
}

Status Frontier::SetMetaLocked(std::string_view key, std::string_view value) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
  st->Bind(1, key).Bind(2, value);
  return st->Run();
}

Result<std::optional<std::string>> Frontier::Meta(std::string_view key) {
  MutexLock lock(mu_);
  return MetaLocked(key);
}

Result<std::vector<PageRecord>> Frontier::AllPages() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("SELECT ") + kPageColumns + " FROM pages ORDER BY url"));
  std::vector<PageRecord> out;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(PageFromRow(*st));
  }
  return out;
}

Result<std::optional<PageRecord>> Frontier::FindPage(std::string_view url) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("SELECT ") + kPageColumns + " FROM pages WHERE url = ?"));
  st->Bind(1, url);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<PageRecord>();
  return std::optional<PageRecord>(PageFromRow(*st));
}

Result<std::vector<HostRecord>> Frontier::AllHosts() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("SELECT ") + kHostColumns + " FROM hosts ORDER BY origin"));
  std::vector<HostRecord> out;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(HostFromRow(*st));
  }
  return out;
}

Result<std::optional<HostRecord>> Frontier::FindHost(std::string_view origin) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                          db_->Prepare(std::string("SELECT ") + kHostColumns + " FROM hosts WHERE origin = ?"));
  st->Bind(1, origin);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<HostRecord>();
  return std::optional<HostRecord>(HostFromRow(*st));
}

Result<FrontierCounts> Frontier::Counts() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("SELECT state, count(*) FROM pages GROUP BY state"));
  FrontierCounts c;
  for (;;) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    const uint64_t n = st->ColumnU64(1);
    switch (ParsePageState(st->ColumnText(0)).value_or(PageState::kQueued)) {
      case PageState::kQueued: c.queued += n; break;
      case PageState::kFetching: c.fetching += n; break;
      case PageState::kDone: c.done += n; break;
      case PageState::kFailed: c.failed += n; break;
      case PageState::kExcluded: c.excluded += n; break;
      case PageState::kDuplicate: c.duplicate += n; break;
      case PageState::kGone: c.gone += n; break;
    }
  }
  return c;
}

Status Frontier::Apply(const FrontierWrite& write) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  if (!write.discovered.empty()) {
    ATTEST_ASSIGN_OR_RETURN(
        StmtRef st, db_->Prepare(std::string("INSERT INTO pages(") + kPageColumns +
                                 ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                                 "ON CONFLICT(url) DO UPDATE SET depth = min(depth, excluded.depth)"));
    for (const PageRecord& p : write.discovered) {
      BindPage(*st, p);
      ATTEST_RETURN_IF_ERROR(st->Run());
      st->Reset();
    }
  }
  if (!write.pages.empty()) {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                            db_->Prepare(std::string("INSERT OR REPLACE INTO pages(") + kPageColumns +
                                         ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
    for (const PageRecord& p : write.pages) {
      BindPage(*st, p);
      ATTEST_RETURN_IF_ERROR(st->Run());
      st->Reset();
    }
  }
  if (!write.hosts.empty()) {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("INSERT OR REPLACE INTO hosts(") + kHostColumns +
                                                     ") VALUES(?,?,?,?,?,?,?,?,?)"));
    for (const HostRecord& h : write.hosts) {
      st->Bind(1, h.origin).Bind(2, h.robots_kind).Bind(3, int64_t{h.robots_http_status});
      st->Bind(4, int64_t{h.robots_redirects}).BindBlob(5, h.robots_body).Bind(6, h.robots_outcome);
      st->Bind(7, h.robots_fetched_at_ms).Bind(8, h.crawl_delay_ms).Bind(9, h.next_allowed_ms);
      ATTEST_RETURN_IF_ERROR(st->Run());
      st->Reset();
    }
  }
  return tx->Commit();
}

Status Frontier::SetStates(const std::vector<std::string>& urls, PageState state) {
  if (urls.empty()) return Status::Ok();
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("UPDATE pages SET state = ? WHERE url = ?"));
  for (const std::string& url : urls) {
    st->Bind(1, PageStateName(state)).Bind(2, url);
    ATTEST_RETURN_IF_ERROR(st->Run());
    st->Reset();
  }
  return tx->Commit();
}

Result<PassInfo> Frontier::BeginPass(int64_t now_ms) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> open, MetaLocked("pass_open"));
  ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> started, MetaLocked("pass_started_at"));
  PassInfo info;
  if (open && *open == "1" && started) {
    info.resumed = true;
    const char* end = started->data() + started->size();
    auto [at, ec] = std::from_chars(started->data(), end, info.started_at_ms);
    if (ec != std::errc() || at != end) {
      return Status::Corruption("meta.pass_started_at is not a number: '" + *started + "'");
    }
    return info;
  }
  // A pass starts strictly after the previous one ended: a page counts as done in this pass when
  // fetched at or after its start, so a page fetched in the previous pass's last millisecond
  // (passes run back to back) must not look done in this one.
  info.started_at_ms = now_ms;
  ATTEST_ASSIGN_OR_RETURN(std::optional<std::string> ended, MetaLocked("pass_ended_at"));
  if (ended) {
    int64_t ended_ms = 0;
    const char* end = ended->data() + ended->size();
    auto [at, ec] = std::from_chars(ended->data(), end, ended_ms);
    if (ec != std::errc() || at != end) {
      return Status::Corruption("meta.pass_ended_at is not a number: '" + *ended + "'");
    }
    info.started_at_ms = std::max(now_ms, ended_ms + 1);
  }
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(SetMetaLocked("pass_open", "1"));
  ATTEST_RETURN_IF_ERROR(SetMetaLocked("pass_started_at", std::to_string(info.started_at_ms)));
  ATTEST_RETURN_IF_ERROR(tx->Commit());
  return info;
}

Status Frontier::EndPass(int64_t now_ms) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(SetMetaLocked("pass_open", "0"));
  ATTEST_RETURN_IF_ERROR(SetMetaLocked("pass_ended_at", std::to_string(now_ms)));
  return tx->Commit();
}

}  // namespace attest
