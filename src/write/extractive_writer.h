// The default writer: deterministic and offline. It composes a short answer from the best evidence
// sentences of the pack: each chosen passage becomes one claim whose single citation quotes the
// passage text verbatim, so every claim is checkable by construction. Passages that answer the
// question (evidence/relevance.h: about its subject and with content of its focus) come first, in
// pack order (best first): those whose subject names the question's subject before those that only
// mention it; then the others. A claim cites its passage and every other document's
// passage of the pack with the same text (a copy). A claim's text is its quote, prefixed with the passage's
// subject ("max_wal_senders: The default is 10.") when the passage is about the question's subject
// and the quote does not name it. It skips passages the injection screen flagged, passages that
// repeat an already chosen one (most of their content words already said) and passages scoring
// below 40% of the best one (except the leading one), and stops at `max_sentences` claims.
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
