#include "service/identity.h"

#include <algorithm>

namespace attest::service {
namespace {

void Field(std::string* out, char tag, const std::string& value) {
  out->push_back(tag);
  *out += std::to_string(value.size());
  out->push_back(':');
  *out += value;
}

}  // namespace

// "t<len>:<tenant>" "g<count>" then "<len>:<group>" per sorted unique group, "c<len>:<clearance>",
// "a0"/"a1". Length prefixes make it unambiguous whatever bytes the strings hold, and it is equal
// for two identities exactly when they may read the same chunks. The user and the credential are
// deliberately not part of it: users with equal permissions share cache entries.
std::string Identity::Scope() const {
  std::vector<std::string> sorted = groups;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  Field(&out, 't', tenant);
  out.push_back('g');
  out += std::to_string(sorted.size());
  for (const std::string& g : sorted) Field(&out, ':', g);
  Field(&out, 'c', clearance);
  out += admin ? "a1" : "a0";
  return out;
}

}  // namespace attest::service
