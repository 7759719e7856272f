#include "answer/source_hierarchy.h"

#include <nlohmann/json.hpp>

namespace attest {

SourceHierarchy SourceHierarchy::Defaults() {
  SourceHierarchy h;
  auto put = [&](const char* type, int rank, const char* name, double weight, bool alone) {
    h.tiers_[type] = SourceTier{rank, name, weight, alone};
  };
  for (const char* t : {"official", "system_of_record", "docs"}) put(t, 4, "official", 1.0, true);
  put("release_notes", 3, "release_notes", 0.95, true);
  for (const char* t : {"vendor_blog", "wiki", "ticket"}) put(t, 2, "secondary", 0.75, true);
  for (const char* t : {"community", "chat", "forum", "blog"}) put(t, 1, "community", 0.5, false);
  h.unknown_ = SourceTier{2, "unclassified", 0.8, true};
  return h;
}

Result<SourceHierarchy> SourceHierarchy::FromJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::InvalidArgument("source hierarchy: expected a JSON object of source types");
  SourceHierarchy h = Defaults();
  for (const auto& [type, spec] : j.items()) {
    if (!spec.is_object()) return Status::InvalidArgument("source hierarchy: '" + type + "' is not an object");
    SourceTier t = h.TierOf(type);
    for (const auto& [k, v] : spec.items()) {
      if (k == "rank" && v.is_number_integer()) {
        t.rank = v.get<int>();
      } else if (k == "name" && v.is_string()) {
        t.name = v.get<std::string>();
      } else if (k == "weight" && v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 10) {
        t.weight = v.get<double>();
      } else if (k == "can_answer_alone" && v.is_boolean()) {
        t.can_answer_alone = v.get<bool>();
      } else {
        return Status::InvalidArgument("source hierarchy: '" + type + "." + k + "' is unknown or has a wrong type");
      }
    }
    h.tiers_[type] = t;
  }
  return h;
}

const SourceTier& SourceHierarchy::TierOf(const std::string& source_type) const {
  auto it = tiers_.find(source_type);
  return it == tiers_.end() ? unknown_ : it->second;
}

}  // namespace attest
