// Authenticator: credentials (API key or JWT) -> Identity, with the principal directory and two
// bounded TTL caches (principals by (tenant, user), API keys by key id). Both caches use the same
// TTL, so a revoked key, a disabled principal or a changed group list takes effect within
// group_cache_ttl. Database reads happen outside the cache mutex.
#include "service/authenticator.h"

#include <optional>
#include <unordered_map>
#include <utility>

#include "common/strings.h"
#include "common/thread_annotations.h"
#include "service/auth_store.h"
#include "service/jwt.h"

namespace attest::service {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxCacheEntries = 10000;

ApiError Unauthorized(std::string message) { return ApiError{ApiErrorCode::kUnauthorized, std::move(message), ""}; }

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

// A bounded map with per-entry expiry. Not thread-safe by itself (the caller holds a mutex).
template <class K, class V, class Hash = std::hash<K>>
class TtlCache {
 public:
  std::optional<V> Get(const K& key, SteadyClock::time_point now) const {
    auto it = map_.find(key);
    if (it == map_.end() || it->second.expires <= now) return std::nullopt;
    return it->second.value;
  }
  void Put(const K& key, V value, SteadyClock::time_point expires, SteadyClock::time_point now) {
    if (map_.size() >= kMaxCacheEntries && map_.find(key) == map_.end()) {
      for (auto it = map_.begin(); it != map_.end();) it = it->second.expires <= now ? map_.erase(it) : std::next(it);
      if (map_.size() >= kMaxCacheEntries) map_.clear();
    }
    map_[key] = Entry{std::move(value), expires};
  }

 private:
  struct Entry {
    V value;
    SteadyClock::time_point expires;
  };
  std::unordered_map<K, Entry, Hash> map_;
};

struct PairHash {
  size_t operator()(const std::pair<std::string, std::string>& p) const {
    return std::hash<std::string>()(p.first) * 31 + std::hash<std::string>()(p.second);
  }
};

class AuthenticatorImpl final : public Authenticator {
 public:
  AuthenticatorImpl(AuthOptions options, std::unique_ptr<AuthStore> store, std::unique_ptr<JwtVerifier> jwt)
      : options_(std::move(options)), store_(std::move(store)), jwt_(std::move(jwt)) {}

  ApiResult<Identity> Authenticate(const std::map<std::string, std::string>& headers) override {
    auto auth = headers.find("authorization");
    auto api_key = headers.find("x-api-key");
    if (auth != headers.end() && api_key != headers.end()) {
      return Unauthorized("send one credential: Authorization or X-API-Key, not both");
    }
    if (api_key != headers.end()) return FromApiKey(std::string(Trim(api_key->second, kHttpWhitespace)));
    if (auth == headers.end()) {
      if (options_.allow_anonymous) return Anonymous();
      return Unauthorized("missing credential: send Authorization: Bearer <token> or X-API-Key");
    }
    std::string value(Trim(auth->second, kHttpWhitespace));
    if (!StartsWithNoCase(value, "bearer ")) {
      return Unauthorized("unsupported Authorization scheme (expected Bearer)");
    }
    std::string token(Trim(std::string_view(value).substr(7), kHttpWhitespace));
    if (token.empty()) return Unauthorized("empty bearer token");
    if (token.size() > kMaxJwtBytes) return Unauthorized("token too large");
    if (token.rfind("att_", 0) == 0) return FromApiKey(token);
    return FromJwt(token);
  }

  ApiResult<Identity> Refresh(const Identity& identity) override {
    if (identity.method == "anonymous") return identity;
    Identity out = identity;
    if (identity.method == "api_key") {
      auto rec = LookupKey(identity.credential_id);
      if (!rec.ok()) return rec.error();
      if (!rec.value() || rec.value()->revoked_ms) return Unauthorized("API key revoked");
      out.admin = rec.value()->admin || rec.value()->deployment_operator;
      out.deployment_operator = rec.value()->deployment_operator;
    } else if (identity.method == "jwt") {
      // The token is not kept, its times are: it expires mid-stream like at authentication.
      if (!identity.token_exp) return Unauthorized("token has no exp claim");
      std::string problem = TokenTimeProblem(*identity.token_exp, identity.token_nbf, Now(), options_.clock_skew);
      if (!problem.empty()) return Unauthorized(std::move(problem));
    } else {
      return Unauthorized("unknown credential method '" + identity.method + "'");
    }
    auto found = ApplyPrincipal(&out);
    if (!found.ok()) return found.error();
    if (!found.value() && identity.method == "api_key") {
      out.groups.clear();  // no directory entry: an API key carries no groups
      out.clearance.clear();
    }
    // A JWT identity without a directory entry keeps the groups of its (still valid) token.
    return out;
  }

  std::chrono::milliseconds revocation_delay() const override { return options_.group_cache_ttl; }

 private:
  std::chrono::system_clock::time_point Now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
  }

  Identity Anonymous() const {
    Identity id;
    id.tenant = "default";
    id.user = "anonymous";
    id.credential_id = "anonymous";
    id.method = "anonymous";
    return id;
  }

  ApiResult<Identity> FromApiKey(const std::string& key) {
    if (!store_) return Unauthorized("API keys are not accepted (no auth database configured)");
    auto parsed = ParseApiKey(key);
    if (!parsed) return Unauthorized("malformed API key (expected att_<12 hex>_<43 base64url>)");
    auto rec = LookupKey(parsed->key_id);
    if (!rec.ok()) return rec.error();
    // Unknown id and wrong secret give the same answer: key ids cannot be probed.
    if (!rec.value() || !ApiKeySecretMatches(*rec.value(), parsed->secret)) return Unauthorized("invalid API key");
    const ApiKeyRecord& r = *rec.value();
    if (r.revoked_ms) return Unauthorized("API key revoked");
    Identity id;
    id.tenant = r.tenant;
    id.user = r.user;
    id.admin = r.admin || r.deployment_operator;
    id.deployment_operator = r.deployment_operator;
    id.credential_id = r.key_id;
    id.method = "api_key";
    id.rate_per_second = r.rate_per_second.value_or(0);
    auto found = ApplyPrincipal(&id);
    if (!found.ok()) return found.error();
    return id;
  }

  ApiResult<Identity> FromJwt(const std::string& token) {
    if (!jwt_) return Unauthorized("JWT bearer tokens are not accepted (no JWT key configured)");
    auto claims = jwt_->Verify(token, Now());
    if (!claims.ok()) return claims.error();
    JwtClaims& c = claims.value();
    Identity id;
    id.tenant = c.tenant;
    id.user = c.sub;
    id.admin = c.admin || c.deployment_operator;
    id.deployment_operator = c.deployment_operator;
    id.token_exp = c.exp;
    id.token_nbf = c.nbf;
    id.credential_id = "jwt:" + c.iss + ":" + c.sub;
    id.method = "jwt";
    auto found = ApplyPrincipal(&id);
    if (!found.ok()) return found.error();
    if (!found.value()) {
      if (c.groups) id.groups = std::move(*c.groups);
      id.clearance = std::move(c.clearance);
    }
    return id;
  }

  // Takes groups and clearance from the directory entry of `id`'s principal, if there is one
  // (returns whether there was); forbidden when the principal is disabled.
  ApiResult<bool> ApplyPrincipal(Identity* id) {
    auto principal = LookupPrincipal(id->tenant, id->user);
    if (!principal.ok()) return principal.error();
    const auto& p = principal.value();
    if (!p) return false;
    if (p->disabled) return ApiError{ApiErrorCode::kForbidden, "principal disabled", ""};
    id->groups = p->groups;
    id->clearance = p->clearance;
    return true;
  }

  ApiResult<std::optional<ApiKeyRecord>> LookupKey(const std::string& key_id) {
    if (!store_) return std::optional<ApiKeyRecord>();
    auto now = SteadyClock::now();
    {
      MutexLock lock(mu_);
      if (auto hit = keys_.Get(key_id, now)) return std::move(*hit);
    }
    auto rec = store_->LookupKey(key_id);
    if (!rec.ok()) return ApiError{ApiErrorCode::kUnavailable, "auth database: " + rec.status().message(), ""};
    MutexLock lock(mu_);
    keys_.Put(key_id, *rec, now + options_.group_cache_ttl, now);
    return std::move(*rec);
  }

  ApiResult<std::optional<Principal>> LookupPrincipal(const std::string& tenant, const std::string& user) {
    if (!store_) return std::optional<Principal>();
    auto now = SteadyClock::now();
    auto key = std::make_pair(tenant, user);
    {
      MutexLock lock(mu_);
      if (auto hit = principals_.Get(key, now)) return std::move(*hit);
    }
    auto p = store_->GetPrincipal(tenant, user);
    if (!p.ok()) return ApiError{ApiErrorCode::kUnavailable, "auth database: " + p.status().message(), ""};
    MutexLock lock(mu_);
    principals_.Put(key, *p, now + options_.group_cache_ttl, now);
    return std::move(*p);
  }

  const AuthOptions options_;
  std::unique_ptr<AuthStore> store_;  // null when no auth_db is configured
  std::unique_ptr<JwtVerifier> jwt_;  // null when no JWT key is configured
  Mutex mu_;
  TtlCache<std::string, std::optional<ApiKeyRecord>> keys_ GUARDED_BY(mu_);
  TtlCache<std::pair<std::string, std::string>, std::optional<Principal>, PairHash> principals_ GUARDED_BY(mu_);
};

}  // namespace

ApiResult<std::unique_ptr<Authenticator>> Authenticator::Create(AuthOptions options) {
  if (options.group_cache_ttl.count() < 0) return InvalidField("group_cache_ttl", "must not be negative");
  if (options.clock_skew.count() < 0) return InvalidField("clock_skew", "must not be negative");
  std::unique_ptr<AuthStore> store;
  if (!options.auth_db.empty()) {
    AuthStoreOpenArgs oa;
    oa.path = options.auth_db;
    auto s = AuthStore::Open(oa);
    if (!s.ok()) return InvalidField("auth_db", s.status().message());
    store = std::move(*s);
  }
  std::unique_ptr<JwtVerifier> jwt;
  if (!options.jwt_hs256_secret.empty() || !options.jwt_rs256_public_key_pem.empty()) {
    JwtVerifierOptions jo;
    jo.hs256_secret = options.jwt_hs256_secret;
    jo.rs256_public_key_pem = options.jwt_rs256_public_key_pem;
    jo.issuer = options.jwt_issuer;
    jo.audience = options.jwt_audience;
    jo.clock_skew = options.clock_skew;
    jo.allow_hs256_and_rs256 = options.jwt_allow_hs256_and_rs256;
    jo.allow_operator_claim = options.jwt_allow_operator_claim;
    auto v = JwtVerifier::Create(std::move(jo));
    if (!v.ok()) return v.error();
    jwt = std::move(v).value();
  }
  return std::unique_ptr<Authenticator>(
      std::make_unique<AuthenticatorImpl>(std::move(options), std::move(store), std::move(jwt)));
}

}  // namespace attest::service
