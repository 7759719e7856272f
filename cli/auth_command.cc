// keys and principals: manage `<data>/auth.db` (API keys and the principal directory,
// docs/auth.md) while a server may be reading it.
//   attest keys create --tenant T --user U [--admin] [--label L] [--rate R] [--json]
//   attest keys create --operator --user U [--tenant T] [--label L] [--rate R] [--json]
//   attest keys revoke KEY_ID
//   attest keys list [--json]
//   attest principals set --tenant T --user U --groups a,b [--clearance C] [--disable]
//   attest principals show --tenant T --user U [--json]
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "cli/commands.h"
#include "service/auth_store.h"

namespace attest::cli {
namespace {

using service::AuthStore;

std::string IsoTime(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int ExitFor(const Status& s) { return s.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure; }

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "attest: %s: %s\n", what, s.message().c_str());
  return ExitFor(s);
}

// Splits "a,b" into groups; every name must be valid (an empty --groups means no groups).
Result<std::vector<std::string>> ParseGroups(const std::string& csv) {
  std::vector<std::string> out;
  if (csv.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t comma = csv.find(',', start);
    std::string name = csv.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (std::string e = service::CheckGroup(name); !e.empty()) {
      return Status::InvalidArgument("--groups '" + csv + "': " + e);
    }
    out.push_back(std::move(name));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

class AuthCommandsImpl final : public AuthCommands {
 public:
  explicit AuthCommandsImpl(CLI::App& app) {
    keys_ = app.add_subcommand("keys", "manage API keys in <data>/auth.db (only hashes are stored)");
    keys_->require_subcommand(1);
    create_ = keys_->add_subcommand("create", "create an API key and print it once");
    create_->add_option("--tenant", tenant_,
                        "tenant of the key's principal (required, except for --operator: 'default')");
    create_->add_option("--user", user_, "user of the key's principal")->required();
    create_->add_flag("--admin", admin_, "the key may ingest and delete documents of its own tenant");
    create_->add_flag("--operator", operator_,
                      "a deployment operator key: an admin of every tenant, the only key that may name another "
                      "tenant than its own");
    create_->add_option("--label", label_, "a note for people (who holds the key)");
    rate_opt_ = create_->add_option("--rate", rate_, "requests per second for this key (default: the server's)");
    create_->add_flag("--json", json_, "JSON output");
    revoke_ = keys_->add_subcommand("revoke", "revoke an API key (effective within the server's cache TTL)");
    revoke_->add_option("key_id", key_id_, "the 12 hex digit key id")->required();
    list_ = keys_->add_subcommand("list", "list API keys (never their secrets)");
    list_->add_flag("--json", json_, "JSON output");

    principals_ = app.add_subcommand("principals", "manage the principal directory in <data>/auth.db");
    principals_->require_subcommand(1);
    set_ = principals_->add_subcommand("set", "set a principal's groups, clearance and status");
    set_->add_option("--tenant", tenant_, "tenant")->required();
    set_->add_option("--user", user_, "user (API key user or JWT sub)")->required();
    set_->add_option("--groups", groups_, "comma-separated groups ('' for none)")->required();
    set_->add_option("--clearance", clearance_, "clearance, e.g. public, internal, confidential");
    set_->add_flag("--disable", disable_, "disable the principal: its requests are refused");
    show_ = principals_->add_subcommand("show", "show a principal");
    show_->add_option("--tenant", tenant_, "tenant")->required();
    show_->add_option("--user", user_, "user")->required();
    show_->add_flag("--json", json_, "JSON output");
  }

  bool Selected() const override { return keys_->parsed() || principals_->parsed(); }

  int Run(const GlobalArgs& g) override {
    std::filesystem::path path = std::filesystem::path(g.data_dir) / "auth.db";
    bool writes = create_->parsed() || revoke_->parsed() || set_->parsed();
    if (!writes && !std::filesystem::exists(path)) {
      if (list_->parsed()) return PrintKeys({});
      std::fprintf(stderr, "attest: no principal %s/%s (no auth database at %s)\n", tenant_.c_str(), user_.c_str(),
                   path.string().c_str());
      return kExitFailure;
    }
    if (writes) {
      std::error_code ec;
      std::filesystem::create_directories(g.data_dir, ec);
      if (ec) {
        std::fprintf(stderr, "attest: cannot create %s: %s\n", g.data_dir.c_str(), ec.message().c_str());
        return kExitFailure;
      }
    }
    service::AuthStoreOpenArgs oa;
    oa.path = path;
    oa.create = writes;
    auto store = AuthStore::Open(oa);
    if (!store.ok()) return Fail("cannot open the auth database", store.status());
    if (create_->parsed()) return Create(**store);
    if (revoke_->parsed()) return Revoke(**store);
    if (list_->parsed()) {
      auto keys = (*store)->ListKeys();
      if (!keys.ok()) return Fail("cannot list keys", keys.status());
      return PrintKeys(*keys);
    }
    if (set_->parsed()) return SetPrincipal(**store);
    return ShowPrincipal(**store);
  }

 private:
  int Create(AuthStore& store) {
    if (tenant_.empty() && !operator_) {
      std::fprintf(stderr, "attest: keys create: --tenant is required (only an --operator key may leave it out)\n");
      return kExitUsage;
    }
    service::CreateKeyArgs a;
    a.tenant = tenant_.empty() ? "default" : tenant_;
    a.user = user_;
    a.admin = admin_;
    a.deployment_operator = operator_;
    a.label = label_;
    if (rate_opt_->count() > 0) a.rate_per_second = rate_;
    auto k = store.CreateKey(a);
    if (!k.ok()) return Fail("cannot create the key", k.status());
    const auto& r = k->record;
    if (json_) {
      nlohmann::json j = {{"key", k->plaintext}, {"key_id", r.key_id},   {"tenant", r.tenant},
                          {"user", r.user},      {"admin", r.admin},     {"operator", r.deployment_operator},
                          {"label", r.label},    {"created_ms", r.created_ms}};
      j["rate_per_second"] = r.rate_per_second ? nlohmann::json(*r.rate_per_second) : nlohmann::json(nullptr);
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s\n", k->plaintext.c_str());
      std::fprintf(stderr, "attest: created key %s for %s/%s%s; it is shown only this once (only its hash is kept)\n",
                   r.key_id.c_str(), r.tenant.c_str(), r.user.c_str(), Role(r));
    }
    return kExitOk;
  }

  static const char* Role(const service::ApiKeyRecord& r) {
    if (r.deployment_operator) return " (operator)";
    return r.admin ? " (admin)" : "";
  }

  int Revoke(AuthStore& store) {
    bool valid = key_id_.size() == 12 && key_id_.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!valid) {
      std::fprintf(stderr, "attest: '%s' is not a key id (12 lower-case hex digits, see 'attest keys list')\n",
                   key_id_.c_str());
      return kExitUsage;
    }
    Status s = store.RevokeKey(key_id_);
    if (!s.ok()) return Fail("cannot revoke", s);
    std::printf("revoked %s\n", key_id_.c_str());
    return kExitOk;
  }

  int PrintKeys(const std::vector<service::ApiKeyRecord>& keys) {
    if (json_) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& r : keys) {
        nlohmann::json j = {{"key_id", r.key_id}, {"tenant", r.tenant},         {"user", r.user},
                            {"admin", r.admin},   {"operator", r.deployment_operator},
                            {"created_ms", r.created_ms}, {"label", r.label}};
        j["revoked_ms"] = r.revoked_ms ? nlohmann::json(*r.revoked_ms) : nlohmann::json(nullptr);
        j["rate_per_second"] = r.rate_per_second ? nlohmann::json(*r.rate_per_second) : nlohmann::json(nullptr);
        arr.push_back(std::move(j));
      }
      std::printf("%s\n", nlohmann::json{{"keys", arr}}.dump(2).c_str());
      return kExitOk;
    }
    if (keys.empty()) {
      std::printf("no API keys\n");
      return kExitOk;
    }
    std::printf("%-12s  %-20s  %-7s  %-24s  %-10s  %s\n", "KEY_ID", "CREATED", "STATUS", "TENANT/USER", "RATE", "LABEL");
    for (const auto& r : keys) {
      std::string who = r.tenant + "/" + r.user + Role(r);
      char rate[32] = "default";
      if (r.rate_per_second) std::snprintf(rate, sizeof rate, "%g/s", *r.rate_per_second);
      std::printf("%-12s  %-20s  %-7s  %-24s  %-10s  %s\n", r.key_id.c_str(), IsoTime(r.created_ms).c_str(),
                  r.revoked_ms ? "revoked" : "active", who.c_str(), rate, r.label.c_str());
    }
    return kExitOk;
  }

  int SetPrincipal(AuthStore& store) {
    auto groups = ParseGroups(groups_);
    if (!groups.ok()) return Fail("invalid groups", groups.status());
    service::Principal p;
    p.tenant = tenant_;
    p.user = user_;
    p.groups = std::move(*groups);
    p.clearance = clearance_;
    p.disabled = disable_;
    Status s = store.SetPrincipal(p);
    if (!s.ok()) return Fail("cannot set the principal", s);
    return ShowPrincipal(store);
  }

  int ShowPrincipal(AuthStore& store) {
    auto p = store.GetPrincipal(tenant_, user_);
    if (!p.ok()) return Fail("cannot read the principal", p.status());
    if (!p->has_value()) {
      std::fprintf(stderr, "attest: no principal %s/%s\n", tenant_.c_str(), user_.c_str());
      return kExitFailure;
    }
    const service::Principal& v = **p;
    if (json_) {
      nlohmann::json j = {{"tenant", v.tenant},       {"user", v.user},         {"groups", v.groups},
                          {"clearance", v.clearance}, {"disabled", v.disabled}, {"updated_ms", v.updated_ms}};
      std::printf("%s\n", j.dump(2).c_str());
      return kExitOk;
    }
    std::string groups;
    for (const auto& gname : v.groups) groups += (groups.empty() ? "" : ",") + gname;
    std::printf("principal  %s/%s\n", v.tenant.c_str(), v.user.c_str());
    std::printf("groups     %s\n", groups.empty() ? "(none)" : groups.c_str());
    std::printf("clearance  %s\n", v.clearance.empty() ? "(none)" : v.clearance.c_str());
    std::printf("status     %s\n", v.disabled ? "disabled" : "enabled");
    std::printf("updated    %s\n", IsoTime(v.updated_ms).c_str());
    return kExitOk;
  }

  CLI::App* keys_ = nullptr;
  CLI::App* create_ = nullptr;
  CLI::App* revoke_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* principals_ = nullptr;
  CLI::App* set_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::Option* rate_opt_ = nullptr;
  std::string tenant_, user_, label_, key_id_, groups_, clearance_;
  double rate_ = 0;
  bool admin_ = false, operator_ = false, json_ = false, disable_ = false;
};

}  // namespace

std::unique_ptr<AuthCommands> RegisterAuthCommands(CLI::App& app) { return std::make_unique<AuthCommandsImpl>(app); }

}  // namespace attest::cli
