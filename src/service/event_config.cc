// The connector configuration of POST /v1/events (service/event_config.h).
#include "service/event_config.h"

#include <set>

#include <nlohmann/json.hpp>

#include "service/contracts.h"

namespace attest::service {
namespace {

using nlohmann::json;

Status Bad(const std::string& path, const std::string& message) {
  return Status::InvalidArgument(path + ": " + message);
}

bool ValidConnectorName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

bool ValidEnvName(const std::string& s) {
  if (s.empty() || s.size() > 128 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

Result<EventsConfig> ParseEventsConfig(std::string_view text,
                                       const std::function<std::optional<std::string>(const std::string&)>& env) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return Status::InvalidArgument("the events config is not a JSON object");
  EventsConfig out;
  for (const auto& [key, value] : root.items()) {
    if (key == "tolerance_seconds") {
      if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > 3600) {
        return Bad(key, "must be an integer number of seconds in 1..3600");
      }
      out.tolerance = std::chrono::seconds(value.get<int64_t>());
    } else if (key != "connectors") {
      return Bad(key, "unknown key (known: connectors, tolerance_seconds)");
    }
  }
  if (!root.contains("connectors") || !root["connectors"].is_array() || root["connectors"].empty()) {
    return Bad("connectors", "must be a non-empty array");
  }
  if (root["connectors"].size() > kMaxConnectors) return Bad("connectors", "at most 256 connectors");
  std::set<std::string> names, keys;
  for (size_t i = 0; i < root["connectors"].size(); ++i) {
    const json& c = root["connectors"][i];
    const std::string path = "connectors[" + std::to_string(i) + "]";
    if (!c.is_object()) return Bad(path, "must be an object");
    Connector conn;
    std::vector<std::string> env_names;
    for (const auto& [key, value] : c.items()) {
      if (key == "name") {
        if (!value.is_string() || !ValidConnectorName(value.get<std::string>())) {
          return Bad(path + ".name", "must match [a-z0-9_-]{1,64}");
        }
        conn.name = value.get<std::string>();
      } else if (key == "tenant") {
        if (!value.is_string() || !ValidTenant(value.get<std::string>())) {
          return Bad(path + ".tenant", "must match [a-z0-9_-]{1,32}");
        }
        conn.tenant = value.get<std::string>();
      } else if (key == "secret_env") {
        if (value.is_string()) {
          env_names.push_back(value.get<std::string>());
        } else if (value.is_array() && !value.empty() && value.size() <= kMaxSecretsPerConnector) {
          for (const json& v : value) {
            if (!v.is_string()) return Bad(path + ".secret_env", "must hold variable names (strings)");
            env_names.push_back(v.get<std::string>());
          }
        } else {
          return Bad(path + ".secret_env", "must be a variable name or a list of 1..4 of them");
        }
      } else if (key == "secret" || key == "secrets") {
        return Bad(path + "." + key,
                   "secrets are never written in the config file: name the environment variable that holds it "
                   "in secret_env");
      } else {
        return Bad(path + "." + key, "unknown key (known: name, tenant, secret_env)");
      }
    }
    if (conn.name.empty()) return Bad(path + ".name", "is required");
    if (conn.tenant.empty()) return Bad(path + ".tenant", "is required");
    if (env_names.empty()) return Bad(path + ".secret_env", "is required");
    if (!names.insert(conn.name).second) return Bad(path + ".name", "'" + conn.name + "' is used by two connectors");
    for (size_t k = 0; k < env_names.size(); ++k) {
      const std::string at = path + ".secret_env" + (env_names.size() > 1 ? "[" + std::to_string(k) + "]" : "");
      if (!ValidEnvName(env_names[k])) return Bad(at, "'" + env_names[k] + "' is not a variable name");
      std::optional<std::string> value = env(env_names[k]);
      if (!value || value->empty()) return Bad(at, "the variable '" + env_names[k] + "' is not set or empty");
      Result<std::string> key = ParseWebhookSecret(*value);
      if (!key.ok()) return Bad(at, "the variable '" + env_names[k] + "': " + key.status().message());
      if (!keys.insert(*key).second) {
        return Bad(at, "the secret in '" + env_names[k] + "' is already used (each connector needs its own)");
      }
      conn.keys.push_back(std::move(key).value());
    }
    out.connectors.push_back(std::move(conn));
  }
  return out;
}

}  // namespace attest::service
