// The principal directory and the API keys: one SQLite file, `<data_dir>/auth.db` (docs/auth.md).
//
//   api_keys(key_id, secret_sha256, tenant, user, admin, created_ms, revoked_ms, rate_per_second, label,
//            deployment_operator)
//   principals(tenant, user, groups (JSON array), clearance, disabled, updated_ms)
//
// An API key reads `att_<key_id>_<secret>`: key_id is 12 lower-case hex digits (6 random bytes),
// secret is 43 base64url characters (32 bytes from RAND_bytes). Only SHA-256(secret) is stored, so
// the plaintext exists once, in the return value of CreateKey(); checking a presented secret is a
// constant-time comparison of the hashes (CRYPTO_memcmp).
//
// The file is shared between processes (the server reads, `attest keys` / `attest principals`
// write): WAL mode and a busy timeout, every write in its own IMMEDIATE transaction.
//
// Thread-safety: every method may be called from any thread (one connection behind a mutex).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"

namespace attest {
class SqliteDb;
}

namespace attest::service {

// 1: the first schema; 2: api_keys.deployment_operator (a version 1 file is upgraded in place).
inline constexpr int64_t kAuthSchemaVersion = 2;
// PRAGMA application_id of auth.db ("ATAU"): tells our file from any other SQLite database.
inline constexpr int64_t kAuthApplicationId = 0x41544155;

struct ApiKeyRecord {
  std::string key_id;                   // 12 lower-case hex digits
  std::string secret_sha256;            // lower-case hex; "" in ListKeys() output
  std::string tenant;
  std::string user;
  bool admin = false;
  int64_t created_ms = 0;               // Unix epoch milliseconds
  std::optional<int64_t> revoked_ms;    // set once revoked
  std::optional<double> rate_per_second;  // per-key rate limit; none = the server's default
  std::string label;
  bool deployment_operator = false;     // crosses tenants; such a key is also admin
};

struct Principal {
  std::string tenant;
  std::string user;
  std::vector<std::string> groups;      // sorted, unique
  std::string clearance;                // "" = none
  bool disabled = false;
  int64_t updated_ms = 0;               // set by SetPrincipal
};

struct CreateKeyArgs {
  std::string tenant;                   // for an operator key: its home tenant
  std::string user;
  bool admin = false;
  std::string label;
  std::optional<double> rate_per_second;
  bool deployment_operator = false;     // a deployment operator key (stored with admin set too)
};

struct CreatedKey {
  std::string plaintext;  // att_<key_id>_<secret>: shown once, never stored
  ApiKeyRecord record;    // as stored (secret_sha256 included)
};

// The parts of a presented key; nullopt when it does not have the key format.
struct ParsedApiKey {
  std::string key_id;
  std::string secret;
};
std::optional<ParsedApiKey> ParseApiKey(std::string_view key);

// True when SHA-256(secret) equals `record.secret_sha256`, compared in constant time.
bool ApiKeySecretMatches(const ApiKeyRecord& record, std::string_view secret);

// Validation shared by the store, the CLI and the authenticator. Each returns "" when valid,
// else a sentence naming the problem.
std::string CheckTenant(std::string_view tenant);      // [a-z0-9_-]{1,32}
std::string CheckUser(std::string_view user);          // 1..256 bytes, no control characters
std::string CheckGroup(std::string_view group);        // 1..128 bytes, no commas or control chars
std::string CheckClearance(std::string_view clearance);  // 0..64 bytes, no control characters

struct AuthStoreOpenArgs {
  std::filesystem::path path;
  bool create = true;          // create the file (and its schema) when missing
  int busy_timeout_ms = 5000;
};

class AuthStore {
 public:
  // Opens (or creates) the file: kCorruption when it is not an auth.db, kUnsupported when its
  // schema is newer than this build. An older schema is upgraded in place.
  static Result<std::unique_ptr<AuthStore>> Open(const AuthStoreOpenArgs& args);
  ~AuthStore();
  AuthStore(const AuthStore&) = delete;
  AuthStore& operator=(const AuthStore&) = delete;

  // kInvalidArgument on a bad tenant, user, label or rate.
  Result<CreatedKey> CreateKey(const CreateKeyArgs& args);
  // kNotFound for an unknown key id; revoking a revoked key keeps its first revocation time.
  Status RevokeKey(std::string_view key_id);
  // Every key, oldest first, without secret hashes.
  Result<std::vector<ApiKeyRecord>> ListKeys();
  // nullopt when no key has this id.
  Result<std::optional<ApiKeyRecord>> LookupKey(std::string_view key_id);

  // Inserts or replaces the principal (groups are sorted and deduplicated; updated_ms is now).
  Status SetPrincipal(const Principal& principal);
  Result<std::optional<Principal>> GetPrincipal(std::string_view tenant, std::string_view user);

  const std::filesystem::path& path() const { return path_; }

 private:
  AuthStore(std::filesystem::path path, std::unique_ptr<SqliteDb> db);
  Status EnsureSchema();

  std::filesystem::path path_;
  Mutex mu_;
  std::unique_ptr<SqliteDb> db_ GUARDED_BY(mu_);
};

}  // namespace attest::service
