// Authentication: auth.db (API keys, principals, schema migration), the Authenticator (credential ->
// Identity, its caches and the revocation delay, Refresh at stream boundaries), Identity::Scope and
// the `attest keys` / `attest principals` CLI. The JWT verifier itself: service_jwt_test.cc.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "auth_test_helpers.h"
#include "common/checksum.h"
#include "service/auth_store.h"
#include "service/authenticator.h"
#include "service/identity.h"
#include "store/sqlite_util.h"
#include "support/process.h"

namespace attest::service {
namespace {

using nlohmann::json;
using testing_support::RunAttest;
using testing_support::TempDir;
using namespace attest::auth_test;

std::unique_ptr<AuthStore> OpenStore(const std::filesystem::path& path) {
  auto s = AuthStore::Open({path, true, 5000});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

// ---------------------------------------------------------------- AuthStore

TEST(AuthStore, CreateLookupRevokeKey) {
  TempDir tmp;
  auto store = OpenStore(tmp.path() / "auth.db");
  auto k = store->CreateKey({"acme", "alice", true, "laptop", 5.0});
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->plaintext.size(), 60u);
  EXPECT_EQ(k->plaintext.rfind("att_" + k->record.key_id + "_", 0), 0u) << k->plaintext;
  auto parsed = ParseApiKey(k->plaintext);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->key_id, k->record.key_id);

  auto rec = store->LookupKey(parsed->key_id);
  ASSERT_TRUE(rec.ok() && rec->has_value());
  const ApiKeyRecord& r = **rec;
  EXPECT_EQ(r.tenant, "acme");
  EXPECT_EQ(r.user, "alice");
  EXPECT_TRUE(r.admin);
  EXPECT_EQ(r.label, "laptop");
  ASSERT_TRUE(r.rate_per_second.has_value());
  EXPECT_DOUBLE_EQ(*r.rate_per_second, 5.0);
  EXPECT_FALSE(r.revoked_ms.has_value());
  EXPECT_EQ(r.secret_sha256, Sha256Hex(parsed->secret));
  EXPECT_TRUE(ApiKeySecretMatches(r, parsed->secret));
  std::string wrong = parsed->secret;
  wrong[0] = wrong[0] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(ApiKeySecretMatches(r, wrong));
  EXPECT_FALSE(ApiKeySecretMatches(r, ""));

  auto list = store->ListKeys();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].key_id, r.key_id);
  EXPECT_TRUE((*list)[0].secret_sha256.empty()) << "ListKeys never returns secret hashes";

  ASSERT_TRUE(store->RevokeKey(r.key_id).ok());
  rec = store->LookupKey(r.key_id);
  ASSERT_TRUE(rec.ok() && rec->has_value());
  ASSERT_TRUE((*rec)->revoked_ms.has_value());
  int64_t first = *(*rec)->revoked_ms;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(store->RevokeKey(r.key_id).ok()) << "revoking twice is harmless";
  EXPECT_EQ(*(*store->LookupKey(r.key_id))->revoked_ms, first) << "the first revocation time is kept";
  EXPECT_EQ(store->RevokeKey("0123456789ab").code(), StatusCode::kNotFound);
  auto none = store->LookupKey("0123456789ab");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(AuthStore, RejectsBadKeyArguments) {
  TempDir tmp;
  auto store = OpenStore(tmp.path() / "auth.db");
  EXPECT_EQ(store->CreateKey({"../acme", "alice", false, "", std::nullopt}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({"Acme", "alice", false, "", std::nullopt}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({std::string(33, 'a'), "u", false, "", std::nullopt}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({"acme", "", false, "", std::nullopt}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({"acme", "a\nb", false, "", std::nullopt}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({"acme", "alice", false, "", -1.0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->CreateKey({"acme", "alice", false, "", 0.0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(store->CreateKey({"a_b-9", "alice", false, "", std::nullopt}).ok());
  // Key parsing is strict.
  EXPECT_FALSE(ParseApiKey("att_0123456789ab_short").has_value());
  EXPECT_FALSE(ParseApiKey("att_0123456789AB_" + std::string(43, 'A')).has_value()) << "upper-case id";
  EXPECT_FALSE(ParseApiKey("xyz_0123456789ab_" + std::string(43, 'A')).has_value());
  EXPECT_TRUE(ParseApiKey("att_0123456789ab_" + std::string(42, 'A') + "A").has_value());
  EXPECT_FALSE(ParseApiKey("att_0123456789ab_" + std::string(42, 'A') + "B").has_value()) << "non-canonical";
}

TEST(AuthStore, OnlySecretHashesAreStored) {
  TempDir tmp;
  std::vector<std::string> secrets, hashes;
  {
    auto store = OpenStore(tmp.path() / "auth.db");
    for (int i = 0; i < 3; ++i) {
      auto k = store->CreateKey({"acme", "user" + std::to_string(i), false, "", std::nullopt});
      ASSERT_TRUE(k.ok());
      secrets.push_back(ParseApiKey(k->plaintext)->secret);
      hashes.push_back(k->record.secret_sha256);
    }
  }
  std::string bytes;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    bytes += ss.str();
  }
  ASSERT_FALSE(bytes.empty());
  for (size_t i = 0; i < secrets.size(); ++i) {
    EXPECT_EQ(bytes.find(secrets[i]), std::string::npos) << "secret " << i << " found in the auth.db files";
    EXPECT_EQ(bytes.find(secrets[i].substr(0, 20)), std::string::npos);
    EXPECT_NE(bytes.find(hashes[i]), std::string::npos) << "the hash is what is stored";
  }
}

TEST(AuthStore, PrincipalsRoundTripAndValidate) {
  TempDir tmp;
  auto store = OpenStore(tmp.path() / "auth.db");
  auto none = store->GetPrincipal("acme", "alice");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store->SetPrincipal({"acme", "alice", {"eng", "all", "eng"}, "internal", false, 0}).ok());
  auto p = store->GetPrincipal("acme", "alice");
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ((*p)->groups, (std::vector<std::string>{"all", "eng"}));
  EXPECT_EQ((*p)->clearance, "internal");
  EXPECT_FALSE((*p)->disabled);
  EXPECT_GT((*p)->updated_ms, 0);
  ASSERT_TRUE(store->SetPrincipal({"acme", "alice", {}, "", true, 0}).ok());
  p = store->GetPrincipal("acme", "alice");
  EXPECT_TRUE((*p)->groups.empty());
  EXPECT_TRUE((*p)->disabled);
  EXPECT_FALSE(store->GetPrincipal("other", "alice")->has_value()) << "principals are per tenant";

  EXPECT_EQ(store->SetPrincipal({"ac/me", "alice", {}, "", false, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->SetPrincipal({"acme", "alice", {"a,b"}, "", false, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->SetPrincipal({"acme", "alice", {""}, "", false, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->SetPrincipal({"acme", "alice", {"a\tb"}, "", false, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->SetPrincipal({"acme", "alice", {"caf\xc3"}, "", false, 0}).code(), StatusCode::kInvalidArgument)
      << "not UTF-8";
  EXPECT_EQ(store->SetPrincipal({"acme", "alice", {}, "\xff", false, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(store->SetPrincipal({"acme", "alice", {"caf\xc3\xa9"}, "", false, 0}).ok());
}

TEST(AuthStore, SecondConnectionSeesWritesAndForeignFilesAreRefused) {
  TempDir tmp;
  auto reader = OpenStore(tmp.path() / "auth.db");
  auto writer = OpenStore(tmp.path() / "auth.db");
  ASSERT_TRUE(reader->GetPrincipal("acme", "bob").ok());  // the reader has used its connection
  ASSERT_TRUE(writer->SetPrincipal({"acme", "bob", {"ops"}, "", false, 0}).ok());
  auto p = reader->GetPrincipal("acme", "bob");
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ((*p)->groups, std::vector<std::string>{"ops"});

  // Some other SQLite database.
  {
    auto db = SqliteDb::Open({tmp.path() / "other.db", false, true, 1000});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE t(x)").ok());
  }
  auto other = AuthStore::Open({tmp.path() / "other.db", true, 1000});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kCorruption) << other.status().ToString();
  testing_support::WriteFile(tmp.path() / "garbage.db", std::string(4096, 'x'));
  EXPECT_FALSE(AuthStore::Open({tmp.path() / "garbage.db", true, 1000}).ok());
  EXPECT_EQ(AuthStore::Open({tmp.path() / "missing.db", false, 1000}).status().code(), StatusCode::kNotFound);
}

TEST(AuthStore, Version1FileIsUpgradedInPlace) {
  TempDir tmp;
  const auto path = tmp.path() / "auth.db";
  {
    // The version 1 schema, as a build before operator keys wrote it, with one admin key.
    auto db = SqliteDb::Open({path, false, true, 1000});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec(R"sql(
      CREATE TABLE api_keys(key_id TEXT PRIMARY KEY NOT NULL, secret_sha256 TEXT NOT NULL, tenant TEXT NOT NULL,
        user TEXT NOT NULL, admin INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL, revoked_ms INTEGER,
        rate_per_second REAL, label TEXT NOT NULL DEFAULT '');
      CREATE INDEX api_keys_by_principal ON api_keys(tenant, user);
      CREATE TABLE principals(tenant TEXT NOT NULL, user TEXT NOT NULL, groups TEXT NOT NULL,
        clearance TEXT NOT NULL DEFAULT '', disabled INTEGER NOT NULL DEFAULT 0, updated_ms INTEGER NOT NULL,
        PRIMARY KEY(tenant, user)) WITHOUT ROWID;
      INSERT INTO api_keys(key_id, secret_sha256, tenant, user, admin, created_ms)
        VALUES('0123456789ab', 'ff', 'acme', 'root', 1, 1);
      PRAGMA user_version = 1;)sql").ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA application_id = " + std::to_string(kAuthApplicationId)).ok());
  }
  auto store = OpenStore(path);
  auto old = store->LookupKey("0123456789ab");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_TRUE((*old)->admin);
  EXPECT_FALSE((*old)->deployment_operator) << "an old admin key stays a tenant admin";
  auto op = store->CreateKey({"default", "ops", false, "", std::nullopt, /*deployment_operator=*/true});
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  auto read = store->LookupKey(op->record.key_id);
  ASSERT_TRUE(read.ok() && read->has_value());
  EXPECT_TRUE((*read)->deployment_operator);
  EXPECT_TRUE((*read)->admin) << "an operator key is an admin too";
  store.reset();
  auto db = SqliteDb::Open({path, true, false, 1000});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(*QueryInt(**db, "PRAGMA user_version", 0), kAuthSchemaVersion);
}

// ---------------------------------------------------------------- Identity

TEST(Identity, ScopeIsCanonicalAndSeparatesPermissions) {
  Identity a{"acme", "alice", {"b", "a"}, "internal", false, "k1", "api_key"};
  Identity b{"acme", "bob", {"a", "b", "a"}, "internal", false, "k2", "jwt"};
  EXPECT_EQ(a.Scope(), b.Scope()) << "same permissions, same scope whoever asks";
  Identity c = a;
  c.tenant = "globex";
  EXPECT_NE(a.Scope(), c.Scope());
  c = a;
  c.clearance = "public";
  EXPECT_NE(a.Scope(), c.Scope());
  c = a;
  c.admin = true;
  EXPECT_NE(a.Scope(), c.Scope());
  c = a;
  c.groups = {"a"};
  EXPECT_NE(a.Scope(), c.Scope());
  // No ambiguity from separators inside names.
  Identity d{"acme", "u", {"a,b"}, "", false, "", ""};
  Identity e{"acme", "u", {"a", "b"}, "", false, "", ""};
  EXPECT_NE(d.Scope(), e.Scope());
  Identity f{"acme", "u", {"\xff"}, "\xfe", false, "", ""};
  EXPECT_NE(f.Scope(), d.Scope()) << "any bytes, no exception";
}

// ---------------------------------------------------------------- Authenticator

class AuthenticatorTest : public ::testing::Test {
 protected:
  std::unique_ptr<Authenticator> Make(std::chrono::milliseconds ttl, bool anonymous = false) {
    AuthOptions o;
    o.auth_db = tmp_.path() / "auth.db";
    o.jwt_hs256_secret = kHsSecret;
    o.jwt_rs256_public_key_pem = Rsa().public_pem();
    o.jwt_allow_hs256_and_rs256 = true;
    o.jwt_issuer = "https://idp.example";
    o.jwt_audience = "attest";
    o.group_cache_ttl = ttl;
    o.allow_anonymous = anonymous;
    auto a = Authenticator::Create(o);
    EXPECT_TRUE(a.ok()) << a.error().message;
    return std::move(a).value();
  }
  AuthStore& Store() {
    if (!store_) store_ = OpenStore(tmp_.path() / "auth.db");
    return *store_;
  }
  std::string NewKey(const std::string& user, bool admin = false) {
    auto k = Store().CreateKey({"acme", user, admin, "", 2.5});
    EXPECT_TRUE(k.ok());
    return k->plaintext;
  }
  static std::string Error(const ApiResult<Identity>& r) { return r.ok() ? "" : std::string(ApiErrorCodeName(r.error().code)) + ": " + r.error().message; }
  TempDir tmp_;
  std::unique_ptr<AuthStore> store_;
};

TEST_F(AuthenticatorTest, ApiKeyByHeaderOrBearer) {
  std::string key = NewKey("alice", /*admin=*/true);
  ASSERT_TRUE(Store().SetPrincipal({"acme", "alice", {"eng"}, "internal", false, 0}).ok());
  auto auth = Make(std::chrono::milliseconds(0));
  for (auto headers : {std::map<std::string, std::string>{{"x-api-key", key}},
                       std::map<std::string, std::string>{{"authorization", "Bearer " + key}},
                       std::map<std::string, std::string>{{"authorization", "bearer  " + key + " "}}}) {
    auto id = auth->Authenticate(headers);
    ASSERT_TRUE(id.ok()) << Error(id);
    EXPECT_EQ(id.value().tenant, "acme");
    EXPECT_EQ(id.value().user, "alice");
    EXPECT_EQ(id.value().groups, std::vector<std::string>{"eng"});
    EXPECT_EQ(id.value().clearance, "internal");
    EXPECT_TRUE(id.value().admin);
    EXPECT_EQ(id.value().method, "api_key");
    EXPECT_EQ(id.value().credential_id, ParseApiKey(key)->key_id);
    EXPECT_DOUBLE_EQ(id.value().rate_per_second, 2.5);
  }
  // A key without a directory entry: no groups.
  std::string bob = NewKey("bob");
  auto id = auth->Authenticate({{"x-api-key", bob}});
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(id.value().groups.empty());
  EXPECT_FALSE(id.value().admin);
}

TEST_F(AuthenticatorTest, WrongMissingAndRevokedCredentials) {
  std::string key = NewKey("alice");
  auto auth = Make(std::chrono::milliseconds(0));
  std::string wrong = key;
  wrong.back() = wrong.back() == 'A' ? 'Q' : 'A';
  if (!ParseApiKey(wrong)) wrong[wrong.size() - 2] = wrong[wrong.size() - 2] == 'A' ? 'Q' : 'A';
  EXPECT_EQ(Error(auth->Authenticate({{"x-api-key", wrong}})), "unauthorized: invalid API key");
  std::string unknown = "att_000000000000_" + key.substr(17);
  EXPECT_EQ(Error(auth->Authenticate({{"x-api-key", unknown}})), "unauthorized: invalid API key");
  EXPECT_NE(Error(auth->Authenticate({{"x-api-key", "att_nonsense"}})).find("malformed API key"), std::string::npos);
  EXPECT_NE(Error(auth->Authenticate({})).find("unauthorized: missing credential"), std::string::npos);
  EXPECT_NE(Error(auth->Authenticate({{"authorization", "Basic dXNlcjpwYXNz"}})).find("scheme"), std::string::npos);
  EXPECT_NE(Error(auth->Authenticate({{"authorization", "Bearer " + key}, {"x-api-key", key}})).find("not both"),
            std::string::npos);
  ASSERT_TRUE(Store().RevokeKey(ParseApiKey(key)->key_id).ok());
  EXPECT_EQ(Error(auth->Authenticate({{"x-api-key", key}})), "unauthorized: API key revoked");

  auto anon = Make(std::chrono::milliseconds(0), /*anonymous=*/true);
  auto id = anon->Authenticate({});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id.value().tenant, "default");
  EXPECT_TRUE(id.value().groups.empty());
  EXPECT_FALSE(id.value().admin);
  EXPECT_EQ(Error(anon->Authenticate({{"x-api-key", wrong}})), "unauthorized: invalid API key")
      << "a bad credential is not downgraded to anonymous";
}

TEST_F(AuthenticatorTest, JwtGroupsFromDirectoryElseClaims) {
  auto auth = Make(std::chrono::milliseconds(0));
  std::string token = MakeToken({{"alg", "HS256"}}, Claims({{"clearance", "public"}}), kHsSecret);
  auto id = auth->Authenticate({{"authorization", "Bearer " + token}});
  ASSERT_TRUE(id.ok()) << Error(id);
  EXPECT_EQ(id.value().groups, (std::vector<std::string>{"all", "eng"})) << "from the token";
  EXPECT_EQ(id.value().clearance, "public");
  EXPECT_EQ(id.value().method, "jwt");
  EXPECT_EQ(id.value().credential_id, "jwt:https://idp.example:alice");
  ASSERT_TRUE(Store().SetPrincipal({"acme", "alice", {"sales"}, "confidential", false, 0}).ok());
  id = auth->Authenticate({{"authorization", "Bearer " + token}});
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id.value().groups, std::vector<std::string>{"sales"}) << "the directory wins over the token";
  EXPECT_EQ(id.value().clearance, "confidential");
  id = auth->Authenticate({{"authorization", "Bearer " + Rsa().Token(Claims({{"sub", "carol"}}))}});
  ASSERT_TRUE(id.ok()) << Error(id);
  EXPECT_EQ(id.value().user, "carol");
  std::string expired = MakeToken({{"alg", "HS256"}}, Claims({{"exp", NowS() - 100}}), kHsSecret);
  EXPECT_EQ(Error(auth->Authenticate({{"authorization", "Bearer " + expired}})), "unauthorized: token expired");
}

TEST_F(AuthenticatorTest, GroupChangesTakeEffectAfterTheCacheTtl) {
  const auto ttl = std::chrono::milliseconds(200);
  std::string key = NewKey("alice");
  ASSERT_TRUE(Store().SetPrincipal({"acme", "alice", {"old"}, "", false, 0}).ok());
  auto auth = Make(ttl);
  EXPECT_EQ(auth->revocation_delay(), ttl);
  auto first = auth->Authenticate({{"x-api-key", key}});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value().groups, std::vector<std::string>{"old"});
  auto changed_at = std::chrono::steady_clock::now();
  // Another connection (as `attest principals set` in another process would).
  auto cli = OpenStore(tmp_.path() / "auth.db");
  ASSERT_TRUE(cli->SetPrincipal({"acme", "alice", {"new"}, "", false, 0}).ok());
  auto cached = auth->Authenticate({{"x-api-key", key}});
  auto refreshed = auth->Refresh(first.value());
  if (std::chrono::steady_clock::now() - changed_at < ttl / 2) {
    ASSERT_TRUE(cached.ok() && refreshed.ok());
    EXPECT_EQ(cached.value().groups, std::vector<std::string>{"old"}) << "cached until the TTL";
    EXPECT_EQ(refreshed.value().groups, std::vector<std::string>{"old"});
  }
  std::this_thread::sleep_for(ttl + std::chrono::milliseconds(50));
  auto later = auth->Authenticate({{"x-api-key", key}});
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later.value().groups, std::vector<std::string>{"new"});
  refreshed = auth->Refresh(first.value());
  ASSERT_TRUE(refreshed.ok());
  EXPECT_EQ(refreshed.value().groups, std::vector<std::string>{"new"}) << "Refresh sees the change too";

  // Revoking the key: still accepted within the TTL at most, refused after it.
  ASSERT_TRUE(cli->RevokeKey(first.value().credential_id).ok());
  std::this_thread::sleep_for(ttl + std::chrono::milliseconds(50));
  EXPECT_EQ(Error(auth->Authenticate({{"x-api-key", key}})), "unauthorized: API key revoked");
  EXPECT_EQ(Error(auth->Refresh(first.value())), "unauthorized: API key revoked");
}

TEST_F(AuthenticatorTest, DisabledPrincipalIsForbidden) {
  std::string key = NewKey("mallory");
  ASSERT_TRUE(Store().SetPrincipal({"acme", "mallory", {"eng"}, "", true, 0}).ok());
  auto auth = Make(std::chrono::milliseconds(0));
  EXPECT_EQ(Error(auth->Authenticate({{"x-api-key", key}})), "forbidden: principal disabled");
  std::string token = MakeToken({{"alg", "HS256"}}, Claims({{"sub", "mallory"}}), kHsSecret);
  EXPECT_EQ(Error(auth->Authenticate({{"authorization", "Bearer " + token}})), "forbidden: principal disabled");
  // Disabled after authentication: Refresh notices.
  std::string ok_key = NewKey("trent");
  auto id = auth->Authenticate({{"x-api-key", ok_key}});
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(Store().SetPrincipal({"acme", "trent", {}, "", true, 0}).ok());
  EXPECT_EQ(Error(auth->Refresh(id.value())), "forbidden: principal disabled");
}

TEST_F(AuthenticatorTest, OnlyTheCredentialDecidesGroups) {
  // Authenticate() sees headers only; headers other than the credential change nothing.
  std::string key = NewKey("alice");
  auto auth = Make(std::chrono::milliseconds(0));
  auto plain = auth->Authenticate({{"x-api-key", key}});
  auto extra = auth->Authenticate({{"x-api-key", key}, {"x-groups", "admin,finance"}, {"x-tenant", "globex"},
                                   {"groups", "[\"finance\"]"}, {"x-admin", "true"}});
  ASSERT_TRUE(plain.ok() && extra.ok());
  EXPECT_EQ(plain.value().Scope(), extra.value().Scope());
  EXPECT_TRUE(extra.value().groups.empty());
  EXPECT_EQ(extra.value().tenant, "acme");
  EXPECT_FALSE(extra.value().admin);
}

TEST_F(AuthenticatorTest, JwtOnlyConfigurationRefusesApiKeys) {
  AuthOptions o;
  o.jwt_hs256_secret = kHsSecret;
  auto a = Authenticator::Create(o);
  ASSERT_TRUE(a.ok());
  std::string key = NewKey("alice");
  EXPECT_NE(Error(a.value()->Authenticate({{"x-api-key", key}})).find("not accepted"), std::string::npos);
  AuthOptions none;
  none.auth_db = tmp_.path() / "auth.db";
  auto b = Authenticator::Create(none);
  ASSERT_TRUE(b.ok());
  std::string token = MakeToken({{"alg", "HS256"}}, Claims(), kHsSecret);
  EXPECT_NE(Error(b.value()->Authenticate({{"authorization", "Bearer " + token}})).find("not accepted"),
            std::string::npos);
}

// Expiry was checked only at authentication: Refresh (sentence boundaries of a stream) kept a
// JWT identity alive after its exp.
TEST_F(AuthenticatorTest, Regression_RefreshRechecksJwtExpiry) {
  AuthOptions o;
  o.auth_db = tmp_.path() / "auth.db";
  o.jwt_hs256_secret = kHsSecret;
  o.clock_skew = std::chrono::seconds(0);
  auto auth = std::move(Authenticator::Create(o)).value();
  const int64_t exp = NowS() + 2;
  auto id = auth->Authenticate({{"authorization", "Bearer " + MakeToken({{"alg", "HS256"}}, Claims({{"exp", exp}}), kHsSecret)}});
  ASSERT_TRUE(id.ok()) << Error(id);
  auto before = auth->Refresh(id.value());
  if (NowS() < exp) {
    EXPECT_TRUE(before.ok()) << Error(before);
  }
  while (NowS() < exp) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Error(auth->Refresh(id.value())), "unauthorized: token expired");
}

TEST_F(AuthenticatorTest, OnlyOperatorCredentialsAreDeploymentOperators) {
  auto auth = Make(std::chrono::milliseconds(0));
  auto admin = auth->Authenticate({{"x-api-key", NewKey("root", /*admin=*/true)}});
  ASSERT_TRUE(admin.ok()) << Error(admin);
  EXPECT_TRUE(admin.value().admin);
  EXPECT_FALSE(admin.value().deployment_operator) << "a tenant admin is no operator";
  auto k = Store().CreateKey({"default", "ops", false, "", std::nullopt, /*deployment_operator=*/true});
  ASSERT_TRUE(k.ok());
  auto ops = auth->Authenticate({{"x-api-key", k->plaintext}});
  ASSERT_TRUE(ops.ok()) << Error(ops);
  EXPECT_TRUE(ops.value().deployment_operator);
  EXPECT_TRUE(ops.value().admin);
  EXPECT_EQ(ops.value().tenant, "default");
  auto refreshed = auth->Refresh(ops.value());
  ASSERT_TRUE(refreshed.ok());
  EXPECT_TRUE(refreshed.value().deployment_operator);
  // A token's admin claim is no operator; its operator claim is refused unless allowed.
  auto jwt_admin = auth->Authenticate(
      {{"authorization", "Bearer " + MakeToken({{"alg", "HS256"}}, Claims({{"admin", true}}), kHsSecret)}});
  ASSERT_TRUE(jwt_admin.ok()) << Error(jwt_admin);
  EXPECT_TRUE(jwt_admin.value().admin);
  EXPECT_FALSE(jwt_admin.value().deployment_operator);
  const std::string op_token = MakeToken({{"alg", "HS256"}}, Claims({{"operator", true}}), kHsSecret);
  EXPECT_EQ(Error(auth->Authenticate({{"authorization", "Bearer " + op_token}})),
            "unauthorized: token claims deployment operator access, which this deployment does not accept from "
            "tokens");
  AuthOptions o;
  o.jwt_hs256_secret = kHsSecret;
  o.jwt_allow_operator_claim = true;
  auto allowing = std::move(Authenticator::Create(o)).value();
  auto jwt_ops = allowing->Authenticate({{"authorization", "Bearer " + op_token}});
  ASSERT_TRUE(jwt_ops.ok()) << Error(jwt_ops);
  EXPECT_TRUE(jwt_ops.value().deployment_operator);
  EXPECT_TRUE(jwt_ops.value().admin);
  EXPECT_NE(Error(allowing->Authenticate({{"authorization", "Bearer " + MakeToken({{"alg", "HS256"}},
                                                                                     Claims({{"operator", "yes"}}),
                                                                                     kHsSecret)}})),
                  "")
      << "a non-boolean operator claim";
}

TEST_F(AuthenticatorTest, RefreshChecksTokenTimesAgainstTheInjectedClock) {
  using std::chrono::seconds;
  std::chrono::system_clock::time_point now{seconds(1'800'000'000)};
  AuthOptions o;
  o.jwt_hs256_secret = kHsSecret;
  o.clock_skew = seconds(30);
  o.clock = [&now] { return now; };
  auto auth = std::move(Authenticator::Create(o)).value();
  const std::string token = MakeToken(
      {{"alg", "HS256"}}, Claims({{"exp", 1'800'000'100}, {"nbf", 1'800'000'000}}), kHsSecret);
  auto id = auth->Authenticate({{"authorization", "Bearer " + token}});
  ASSERT_TRUE(id.ok()) << Error(id);
  ASSERT_TRUE(id.value().token_exp.has_value());
  EXPECT_DOUBLE_EQ(*id.value().token_exp, 1'800'000'100);
  now += seconds(129);  // exp + skew - 1
  EXPECT_TRUE(auth->Refresh(id.value()).ok());
  now += seconds(1);  // exp + skew
  EXPECT_EQ(Error(auth->Refresh(id.value())), "unauthorized: token expired");
  now = std::chrono::system_clock::time_point{seconds(1'800'000'000 - 31)};  // the clock went back past nbf - skew
  EXPECT_EQ(Error(auth->Refresh(id.value())), "unauthorized: token not yet valid (nbf is in the future)");
  // An API key identity carries no token times.
  std::string key = NewKey("alice");
  AuthOptions ko;
  ko.auth_db = tmp_.path() / "auth.db";
  ko.clock = [&now] { return now; };
  auto keys = std::move(Authenticator::Create(ko)).value();
  auto kid = keys->Authenticate({{"x-api-key", key}});
  ASSERT_TRUE(kid.ok());
  EXPECT_FALSE(kid.value().token_exp.has_value());
  now += seconds(1'000'000);
  EXPECT_TRUE(keys->Refresh(kid.value()).ok());
}

// ---------------------------------------------------------------- CLI (black box)

TEST(AuthCli, KeysAndPrincipals) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  auto created = RunAttest({"keys", "create", "--tenant", "acme", "--user", "alice", "--label", "ci", "--rate", "3",
                            "--json", "--data", data});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  json c = json::parse(created.out);
  const std::string key = c["key"], key_id = c["key_id"];
  EXPECT_EQ(key.rfind("att_" + key_id + "_", 0), 0u);
  EXPECT_EQ(c["tenant"], "acme");
  EXPECT_EQ(c["rate_per_second"], 3.0);
  auto plain = RunAttest({"--data", data, "keys", "create", "--tenant", "acme", "--user", "root", "--admin"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_TRUE(ParseApiKey(plain.out.substr(0, plain.out.find('\n'))).has_value()) << plain.out;

  auto list = RunAttest({"--data", data, "keys", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json l = json::parse(list.out);
  ASSERT_EQ(l["keys"].size(), 2u);
  EXPECT_EQ(l["keys"][0]["key_id"], key_id);
  EXPECT_EQ(l["keys"][0]["label"], "ci");
  EXPECT_TRUE(l["keys"][0]["revoked_ms"].is_null());
  EXPECT_EQ(list.out.find(key.substr(17)), std::string::npos) << "list never shows secrets";
  auto table = RunAttest({"--data", data, "keys", "list"});
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find(key_id), std::string::npos);
  EXPECT_NE(table.out.find("active"), std::string::npos);
  EXPECT_EQ(table.out.find(key.substr(17)), std::string::npos);

  // The key works through an Authenticator reading the same file.
  AuthOptions o;
  o.auth_db = std::filesystem::path(data) / "auth.db";
  auto auth = std::move(Authenticator::Create(o)).value();
  EXPECT_TRUE(auth->Authenticate({{"x-api-key", key}}).ok());

  EXPECT_EQ(RunAttest({"--data", data, "keys", "revoke", key_id}).exit_code, 0);
  l = json::parse(RunAttest({"--data", data, "keys", "list", "--json"}).out);
  EXPECT_TRUE(l["keys"][0]["revoked_ms"].is_number());
  EXPECT_NE(RunAttest({"--data", data, "keys", "list"}).out.find("revoked"), std::string::npos);
  // `auth` may serve the cached key for its TTL (5 s by default); a new authenticator reads afresh.
  auto fresh = std::move(Authenticator::Create(o)).value();
  EXPECT_EQ(fresh->Authenticate({{"x-api-key", key}}).error().message, "API key revoked");
  EXPECT_EQ(RunAttest({"--data", data, "keys", "revoke", "0123456789ab"}).exit_code, 1);
  EXPECT_EQ(RunAttest({"--data", data, "keys", "revoke", "not-a-key"}).exit_code, 2);
  auto bad_tenant = RunAttest({"--data", data, "keys", "create", "--tenant", "../acme", "--user", "x"});
  EXPECT_EQ(bad_tenant.exit_code, 2);
  EXPECT_NE(bad_tenant.err.find("tenant"), std::string::npos) << bad_tenant.err;
  EXPECT_EQ(RunAttest({"--data", data, "keys", "create", "--tenant", "acme", "--user", "x", "--rate", "-1"}).exit_code,
            2);

  auto set = RunAttest({"--data", data, "principals", "set", "--tenant", "acme", "--user", "alice", "--groups",
                        "eng,all", "--clearance", "internal"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  auto show = RunAttest({"--data", data, "principals", "show", "--tenant", "acme", "--user", "alice", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  json p = json::parse(show.out);
  EXPECT_EQ(p["groups"], json({"all", "eng"}));
  EXPECT_EQ(p["clearance"], "internal");
  EXPECT_EQ(p["disabled"], false);
  ASSERT_EQ(RunAttest({"--data", data, "principals", "set", "--tenant", "acme", "--user", "alice", "--groups", "",
                       "--disable"})
                .exit_code,
            0);
  auto text = RunAttest({"--data", data, "principals", "show", "--tenant", "acme", "--user", "alice"});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("disabled"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(none)"), std::string::npos) << text.out;
  EXPECT_EQ(RunAttest({"--data", data, "principals", "show", "--tenant", "acme", "--user", "nobody"}).exit_code, 1);
  EXPECT_EQ(RunAttest({"--data", data, "principals", "set", "--tenant", "acme", "--user", "a", "--groups", "x,,y"})
                .exit_code,
            2);
  EXPECT_EQ(RunAttest({"--data", data, "principals", "set", "--tenant", "ACME", "--user", "a", "--groups", "x"})
                .exit_code,
            2);
  EXPECT_EQ(RunAttest({"--data", data, "keys"}).exit_code, 2) << "a keys subcommand is required";
  // A fresh data dir: list reads nothing and creates nothing.
  const std::string empty = tmp.str("empty");
  auto none = RunAttest({"--data", empty, "keys", "list"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no API keys"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(empty));
  // auth.db created before the first ingest does not stop the store from being created there.
  testing_support::WriteFile(tmp.path() / "docs" / "a.md", "# Title\n\nSome text about replication.\n");
  auto ingest = RunAttest({"--data", data, "ingest", tmp.str("docs")});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.err;
}

}  // namespace
}  // namespace attest::service
