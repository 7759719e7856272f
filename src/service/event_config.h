// The connectors of `POST /v1/events`, read from `attest serve --events-config FILE`
// (docs/http_api.md, "Events"; docs/security.md, "Connector secrets"):
//
//   {"tolerance_seconds": 300,
//    "connectors": [{"name": "wiki", "tenant": "acme",
//                    "secret_env": ["WIKI_WEBHOOK_SECRET", "WIKI_WEBHOOK_SECRET_PREVIOUS"]}]}
//
// Each connector is bound to one tenant. Its secrets (whsec_<base64>) come from the environment
// variables it names, never from the file: a file holding a "secret" key is refused. Names are
// unique, and no secret may serve two connectors (the verifying secret identifies the connector).
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "service/webhook_signature.h"

namespace attest::service {

inline constexpr size_t kMaxConnectors = 256;
inline constexpr size_t kMaxSecretsPerConnector = 4;

struct EventsConfig {
  std::vector<Connector> connectors;
  std::chrono::seconds tolerance{300};  // Standard Webhooks' reference libraries use 5 minutes
};

// Parses the file's text; `env` looks a variable up (nullopt = unset). kInvalidArgument naming the
// JSON path ("connectors[1].secret_env[0]: ...") for anything wrong.
Result<EventsConfig> ParseEventsConfig(std::string_view text,
                                       const std::function<std::optional<std::string>(const std::string&)>& env);

}  // namespace attest::service
