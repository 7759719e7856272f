#include "service/identity.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace attest::service {

// A JSON array [tenant, [groups sorted and unique], clearance, admin]: unambiguous whatever the
// strings contain, and equal for two identities exactly when they may read the same chunks.
// The user and the credential are deliberately not part of it: users with equal permissions
// share cache entries.
std::string Identity::Scope() const {
  std::vector<std::string> sorted = groups;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  return nlohmann::json::array({tenant, sorted, clearance, admin}).dump();
}

}  // namespace attest::service
