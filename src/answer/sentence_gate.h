// SentenceGate: verified streaming for any face of the answer path (HTTP events, the CLI, ...).
//
// A streaming writer (AnswerEvents::on_sentence) hands over each sentence as it completes, with
// the pack ids it cites. The gate numbers the sentence ("c1", "c2", ... in stream order, the ids
// the final claims carry), recovers a verbatim quote for every cited source from the sources
// given (the model writes prose), and verifies the sentence against those sources with the
// built-in checks (VerifyDraft), the relevance check included when the question's focus and
// subject were given (SetQuestion). The verdict is:
//   - release, with the citations, when the sentence is supported or partially supported;
//   - retract with reason "uncited" when it cites none of the sources given;
//   - retract with the verdict's name ("unsupported", "off_topic", ...) otherwise.
// Text without a letter or digit (trailing punctuation after the last marker) is not a sentence.
// What a face does at a release (access re-checks, emitting events) stays with the face.
//
// Thread-safety: one gate belongs to one answer's stream (the thread running the writer).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/answer.h"
#include "evidence/relevance.h"

namespace attest {

struct GateCitation {
  std::string source;  // "S1"
  std::string doc_id;
  ChunkId chunk_id;
  std::string quote;   // recovered from the source's text ("" when none was found)
};

struct GateVerdict {
  std::string sentence_id;  // "c<n>"
  bool release = false;
  std::string verified;     // release: "supported" or "partial"
  std::string reason;       // retract: "uncited" or the verdict name
  std::vector<GateCitation> citations;  // the cited sources among those given, in citation order
};

class SentenceGate {
 public:
  // The sources given to the writer (the `sources` event); may be called again to replace them.
  void SetSources(std::vector<AnswerSource> sources) { sources_ = std::move(sources); }
  const std::vector<AnswerSource>& sources() const { return sources_; }
  // What the question asks (AnswerEvents::on_question): the focus by its name (FocusName; an
  // unknown name is kNone) and the subject. Sentences are then checked for relevance too.
  void SetQuestion(std::string_view focus, std::string subject);

  // The id of the sentence being streamed now (deltas before its end carry it).
  std::string NextId() const { return "c" + std::to_string(ids_.size() + 1); }

  // A streamed sentence is complete. nullopt when it is not a sentence (then no id is used).
  std::optional<GateVerdict> Check(std::string_view text, const std::vector<std::string>& cites);

  // Sentences checked so far, in order, and the text each had when it streamed.
  const std::vector<std::string>& streamed_ids() const { return ids_; }
  bool Streamed(const std::string& id) const { return text_.count(id) > 0; }
  std::string StreamedText(const std::string& id) const;

 private:
  std::vector<AnswerSource> sources_;
  RelevanceQuestion asks_;
  std::vector<std::string> ids_;
  std::map<std::string, std::string> text_;
};

}  // namespace attest
