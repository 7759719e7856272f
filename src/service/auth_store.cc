#include "service/auth_store.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/checksum.h"
#include "ingest/text_util.h"
#include "service/base64url.h"
#include "store/sqlite_util.h"

namespace attest::service {
namespace {

constexpr size_t kKeyIdBytes = 6;       // 12 hex digits
constexpr size_t kSecretBytes = 32;     // 43 base64url characters
constexpr size_t kKeyIdChars = kKeyIdBytes * 2;
constexpr size_t kSecretChars = 43;
constexpr std::string_view kKeyPrefix = "att_";

constexpr char kSchema[] = R"sql(
CREATE TABLE api_keys(
  key_id TEXT PRIMARY KEY NOT NULL,
  secret_sha256 TEXT NOT NULL,
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  admin INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER,
  rate_per_second REAL,
  label TEXT NOT NULL DEFAULT '',
  deployment_operator INTEGER NOT NULL DEFAULT 0);
CREATE INDEX api_keys_by_principal ON api_keys(tenant, user);
CREATE TABLE principals(
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  groups TEXT NOT NULL,
  clearance TEXT NOT NULL DEFAULT '',
  disabled INTEGER NOT NULL DEFAULT 0,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY(tenant, user)) WITHOUT ROWID;
)sql";

// Version 1 -> 2: operator keys.
constexpr char kUpgradeFrom1[] =
    "ALTER TABLE api_keys ADD COLUMN deployment_operator INTEGER NOT NULL DEFAULT 0";

constexpr char kKeyColumns[] =
    "key_id, secret_sha256, tenant, user, admin, created_ms, revoked_ms, rate_per_second, label, "
    "deployment_operator";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string HexOf(const unsigned char* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kHex[p[i] >> 4];
    out[2 * i + 1] = kHex[p[i] & 15];
  }
  return out;
}

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Control characters or bytes that are not well-formed UTF-8 (names end up in JSON and logs).
bool HasControl(std::string_view s) {
  return ingest::FindInvalidUtf8(s).has_value() ||
         std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

ApiKeyRecord ReadKeyRow(const SqliteStmt& st) {
  ApiKeyRecord r;
  r.key_id = st.ColumnText(0);
  r.secret_sha256 = st.ColumnText(1);
  r.tenant = st.ColumnText(2);
  r.user = st.ColumnText(3);
  r.admin = st.ColumnInt(4) != 0;
  r.created_ms = st.ColumnInt(5);
  if (!st.ColumnIsNull(6)) r.revoked_ms = st.ColumnInt(6);
  if (!st.ColumnIsNull(7)) r.rate_per_second = st.ColumnDouble(7);
  r.label = st.ColumnText(8);
  r.deployment_operator = st.ColumnInt(9) != 0;
  return r;
}

void Normalize(std::vector<std::string>* groups) {
  std::sort(groups->begin(), groups->end());
  groups->erase(std::unique(groups->begin(), groups->end()), groups->end());
}

}  // namespace

std::optional<ParsedApiKey> ParseApiKey(std::string_view key) {
  if (key.size() != kKeyPrefix.size() + kKeyIdChars + 1 + kSecretChars) return std::nullopt;
  if (key.substr(0, kKeyPrefix.size()) != kKeyPrefix) return std::nullopt;
  std::string_view id = key.substr(kKeyPrefix.size(), kKeyIdChars);
  if (!IsLowerHex(id) || key[kKeyPrefix.size() + kKeyIdChars] != '_') return std::nullopt;
  std::string_view secret = key.substr(kKeyPrefix.size() + kKeyIdChars + 1);
  auto decoded = Base64UrlDecode(secret);
  if (!decoded || decoded->size() != kSecretBytes) return std::nullopt;
  return ParsedApiKey{std::string(id), std::string(secret)};
}

bool ApiKeySecretMatches(const ApiKeyRecord& record, std::string_view secret) {
  std::string presented = Sha256Hex(secret);
  if (record.secret_sha256.size() != presented.size()) return false;
  return CRYPTO_memcmp(presented.data(), record.secret_sha256.data(), presented.size()) == 0;
}

std::string CheckTenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > 32) return "tenant must have 1 to 32 characters";
  for (char c : tenant) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
      return "tenant may contain only a-z, 0-9, '_' and '-'";
    }
  }
  return "";
}

std::string CheckUser(std::string_view user) {
  if (user.empty() || user.size() > 256) return "user must have 1 to 256 bytes";
  if (HasControl(user)) return "user must be UTF-8 without control characters";
  return "";
}

std::string CheckGroup(std::string_view group) {
  if (group.empty() || group.size() > 128) return "group names must have 1 to 128 bytes";
  if (group.find(',') != std::string_view::npos) return "group names must not contain commas";
  if (HasControl(group)) return "group names must be UTF-8 without control characters";
  return "";
}

std::string CheckClearance(std::string_view clearance) {
  if (clearance.size() > 64) return "clearance must have at most 64 bytes";
  if (HasControl(clearance)) return "clearance must be UTF-8 without control characters";
  return "";
}

AuthStore::AuthStore(std::filesystem::path path, std::unique_ptr<SqliteDb> db)
    : path_(std::move(path)), db_(std::move(db)) {}

AuthStore::~AuthStore() = default;

Result<std::unique_ptr<AuthStore>> AuthStore::Open(const AuthStoreOpenArgs& args) {
  std::error_code ec;
  bool exists = std::filesystem::exists(args.path, ec);
  if (!exists && !args.create) return Status::NotFound("no auth database at " + args.path.string());
  SqliteOpenArgs oa;
  oa.path = args.path;
  oa.create = args.create;
  oa.busy_timeout_ms = args.busy_timeout_ms;
  auto db = SqliteDb::Open(oa);
  if (!db.ok()) return Status(db.status().code(), "cannot open auth database " + args.path.string() + ": " +
                                                      db.status().message());
  std::unique_ptr<AuthStore> store(new AuthStore(args.path, std::move(*db)));
  Status s = store->EnsureSchema();
  if (!s.ok()) return s.WithContext(args.path.string());
  return store;
}

Status AuthStore::EnsureSchema() {
  MutexLock lock(mu_);
  // WAL lets the server read while the CLI writes; the mode is persistent in the file.
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("PRAGMA journal_mode = WAL"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != "wal") {
      return Status::IOError("cannot switch the auth database to WAL mode");
    }
  }
  ATTEST_RETURN_IF_ERROR(db_->Exec("PRAGMA synchronous = FULL"));
  ATTEST_ASSIGN_OR_RETURN(int64_t app_id, QueryInt(*db_, "PRAGMA application_id", 0));
  ATTEST_ASSIGN_OR_RETURN(int64_t version, QueryInt(*db_, "PRAGMA user_version", 0));
  if (app_id == kAuthApplicationId && version == kAuthSchemaVersion) return Status::Ok();
  if (app_id != 0 && app_id != kAuthApplicationId) {
    return Status::Corruption("not an attest auth database (application_id " + std::to_string(app_id) + ")");
  }
  if (app_id == kAuthApplicationId && version > kAuthSchemaVersion) {
    return Status::Unsupported("auth database schema version " + std::to_string(version) +
                               " is newer than this build (" + std::to_string(kAuthSchemaVersion) + ")");
  }
  // Create or upgrade the schema; re-check under the write lock, another process may have won the race.
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(app_id, QueryInt(*db_, "PRAGMA application_id", 0));
  ATTEST_ASSIGN_OR_RETURN(version, QueryInt(*db_, "PRAGMA user_version", 0));
  if (app_id == kAuthApplicationId && version == kAuthSchemaVersion) return tx->Commit();
  if (app_id == kAuthApplicationId && version == 1) {
    ATTEST_RETURN_IF_ERROR(db_->Exec(kUpgradeFrom1));
    ATTEST_RETURN_IF_ERROR(db_->Exec("PRAGMA user_version = " + std::to_string(kAuthSchemaVersion)));
    return tx->Commit();
  }
  ATTEST_ASSIGN_OR_RETURN(int64_t tables, QueryInt(*db_, "SELECT count(*) FROM sqlite_schema", 0));
  if (app_id != 0 || version != 0 || tables != 0) {
    return Status::Corruption("not an attest auth database (unexpected schema)");
  }
  ATTEST_RETURN_IF_ERROR(db_->Exec(kSchema));
  ATTEST_RETURN_IF_ERROR(db_->Exec("PRAGMA application_id = " + std::to_string(kAuthApplicationId)));
  ATTEST_RETURN_IF_ERROR(db_->Exec("PRAGMA user_version = " + std::to_string(kAuthSchemaVersion)));
  return tx->Commit();
}

Result<CreatedKey> AuthStore::CreateKey(const CreateKeyArgs& args) {
  if (std::string e = CheckTenant(args.tenant); !e.empty()) return Status::InvalidArgument(e);
  if (std::string e = CheckUser(args.user); !e.empty()) return Status::InvalidArgument(e);
  if (args.label.size() > 256 || HasControl(args.label)) {
    return Status::InvalidArgument("label must have at most 256 bytes of UTF-8 without control characters");
  }
  if (args.rate_per_second && !(std::isfinite(*args.rate_per_second) && *args.rate_per_second > 0)) {
    return Status::InvalidArgument("rate must be a positive number of requests per second");
  }
  unsigned char id_bytes[kKeyIdBytes];
  unsigned char secret_bytes[kSecretBytes];
  if (RAND_bytes(id_bytes, sizeof id_bytes) != 1 || RAND_bytes(secret_bytes, sizeof secret_bytes) != 1) {
    return Status::Internal("RAND_bytes failed: no secure random source");
  }
  std::string secret = Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(secret_bytes), kSecretBytes));
  OPENSSL_cleanse(secret_bytes, sizeof secret_bytes);
  CreatedKey out;
  ApiKeyRecord& r = out.record;
  r.key_id = HexOf(id_bytes, kKeyIdBytes);
  r.secret_sha256 = Sha256Hex(secret);
  r.tenant = args.tenant;
  r.user = args.user;
  r.admin = args.admin || args.deployment_operator;
  r.deployment_operator = args.deployment_operator;
  r.created_ms = NowMs();
  r.rate_per_second = args.rate_per_second;
  r.label = args.label;
  out.plaintext = std::string(kKeyPrefix) + r.key_id + "_" + secret;

  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("INSERT INTO api_keys(") + kKeyColumns +
                                                     ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9)"));
    st->Bind(1, r.key_id).Bind(2, r.secret_sha256).Bind(3, r.tenant).Bind(4, r.user);
    st->Bind(5, int64_t{r.admin ? 1 : 0}).Bind(6, r.created_ms);
    if (r.rate_per_second) {
      st->BindDouble(7, *r.rate_per_second);
    } else {
      st->BindNull(7);
    }
    st->Bind(8, r.label).Bind(9, int64_t{r.deployment_operator ? 1 : 0});
    Status s = st->Run();
    // A 48-bit id collision is astronomically unlikely; report it rather than retry silently.
    if (!s.ok()) return s.WithContext("cannot store the API key");
  }
  ATTEST_RETURN_IF_ERROR(tx->Commit());
  return out;
}

Status AuthStore::RevokeKey(std::string_view key_id) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("SELECT revoked_ms FROM api_keys WHERE key_id = ?1"));
    st->Bind(1, key_id);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) return Status::NotFound("no API key with id '" + std::string(key_id) + "'");
    if (!st->ColumnIsNull(0)) return tx->Commit();  // already revoked: keep the first time
  }
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("UPDATE api_keys SET revoked_ms = ?2 WHERE key_id = ?1"));
    st->Bind(1, key_id).Bind(2, NowMs());
    ATTEST_RETURN_IF_ERROR(st->Run());
  }
  return tx->Commit();
}

Result<std::vector<ApiKeyRecord>> AuthStore::ListKeys() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("SELECT ") + kKeyColumns +
                                                   " FROM api_keys ORDER BY created_ms, key_id"));
  std::vector<ApiKeyRecord> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadKeyRow(*st));
    out.back().secret_sha256.clear();
  }
  return out;
}

Result<std::optional<ApiKeyRecord>> AuthStore::LookupKey(std::string_view key_id) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                          db_->Prepare(std::string("SELECT ") + kKeyColumns + " FROM api_keys WHERE key_id = ?1"));
  st->Bind(1, key_id);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ApiKeyRecord>();
  return std::optional<ApiKeyRecord>(ReadKeyRow(*st));
}

Status AuthStore::SetPrincipal(const Principal& p) {
  if (std::string e = CheckTenant(p.tenant); !e.empty()) return Status::InvalidArgument(e);
  if (std::string e = CheckUser(p.user); !e.empty()) return Status::InvalidArgument(e);
  if (std::string e = CheckClearance(p.clearance); !e.empty()) return Status::InvalidArgument(e);
  if (p.groups.size() > 1024) return Status::InvalidArgument("a principal may have at most 1024 groups");
  for (const std::string& g : p.groups) {
    if (std::string e = CheckGroup(g); !e.empty()) return Status::InvalidArgument(e + ": '" + g + "'");
  }
  std::vector<std::string> groups = p.groups;
  Normalize(&groups);
  std::string groups_json = nlohmann::json(groups).dump();
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(
      "INSERT INTO principals(tenant, user, groups, clearance, disabled, updated_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT(tenant, user) DO UPDATE SET groups = excluded.groups, clearance = excluded.clearance, "
      "disabled = excluded.disabled, updated_ms = excluded.updated_ms"));
  st->Bind(1, p.tenant).Bind(2, p.user).Bind(3, groups_json).Bind(4, p.clearance);
  st->Bind(5, int64_t{p.disabled ? 1 : 0}).Bind(6, NowMs());
  return st->Run();
}

Result<std::optional<Principal>> AuthStore::GetPrincipal(std::string_view tenant, std::string_view user) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(
      "SELECT groups, clearance, disabled, updated_ms FROM principals WHERE tenant = ?1 AND user = ?2"));
  st->Bind(1, tenant).Bind(2, user);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<Principal>();
  Principal p;
  p.tenant = std::string(tenant);
  p.user = std::string(user);
  nlohmann::json groups = nlohmann::json::parse(st->ColumnText(0), nullptr, /*allow_exceptions=*/false);
  if (!groups.is_array()) {
    return Status::Corruption("principal " + p.tenant + "/" + p.user + ": groups is not a JSON array");
  }
  for (const auto& g : groups) {
    if (!g.is_string()) return Status::Corruption("principal " + p.tenant + "/" + p.user + ": a group is not a string");
    p.groups.push_back(g.get<std::string>());
  }
  Normalize(&p.groups);
  p.clearance = st->ColumnText(1);
  p.disabled = st->ColumnInt(2) != 0;
  p.updated_ms = st->ColumnInt(3);
  return std::optional<Principal>(std::move(p));
}

}  // namespace attest::service
