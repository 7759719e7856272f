// The default writer: deterministic and offline. It composes a short answer from the best evidence
// sentences of the pack, in pack order (best first): each chosen passage becomes one claim whose
// text is the passage text and whose single citation quotes that text verbatim, so every claim is
// checkable by construction. It skips passages the injection screen flagged, passages that
// repeat an already chosen one (most of their content words already said) and passages scoring
// below 40% of the best one, and stops at `max_sentences` claims.
//
// Thread-safety: stateless; Write() may run concurrently.
#pragma once

#include "write/writer.h"

namespace attest {

class ExtractiveWriter final : public AnswerWriter {
 public:
  Result<Draft> Write(const WriteArgs& args) override;
};

}  // namespace attest
