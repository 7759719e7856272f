// Disagreeing sources. Two evidence sentences from different documents conflict when they speak
// about the same thing (most content words shared once values are set aside) but state different
// values: different numbers, dates or versions, opposite switch words (on/off, enabled/disabled,
// true/false, yes/no), or opposite polarity (one negated). Documents of different versions never
// conflict here: they are labelled with their versions instead.
//
// The pipeline resolves a conflict by the source hierarchy (the lower tier's claim is dropped) and
// presents an equal-rank conflict as both views with their dates (docs/answer.md, "Conflicts").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "evidence/evidence.h"

namespace attest {

struct Conflict {
  size_t a = 0, b = 0;   // indexes into the passages given
  std::string reason;    // e.g. "on vs off", "30 vs 60", "negated in one"
};

std::vector<Conflict> FindConflicts(const std::vector<const EvidencePassage*>& passages);

}  // namespace attest
