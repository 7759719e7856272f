// Access labels and clearance (docs/security.md, "Access labels and clearance").
#include <algorithm>

#include "attest/engine.h"

namespace attest {

void ResolveClearance(const std::vector<std::string>& levels, SearchFilter* filter) {
  if (!filter->clearance) return;
  // The lowest level is readable with any clearance; unlabelled documents are at the lowest level.
  std::vector<std::string> labels{""};
  const auto it = std::find(levels.begin(), levels.end(), *filter->clearance);
  const size_t top = it == levels.end() ? 0 : size_t(it - levels.begin());
  for (size_t i = 0; i <= top && i < levels.size(); ++i) labels.push_back(levels[i]);
  filter->labels = std::move(labels);
}

Status CheckAccessLabel(const std::vector<std::string>& levels, const std::string& label) {
  if (label.empty() || std::find(levels.begin(), levels.end(), label) != levels.end()) return Status::Ok();
  std::string names;
  for (const auto& l : levels) names += (names.empty() ? "" : ", ") + l;
  return Status::InvalidArgument("access_label: '" + label + "' is not one of the configured access levels (" + names +
                                 ")");
}

}  // namespace attest
