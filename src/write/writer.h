// AnswerWriter: the interface between the answer pipeline and whatever turns an evidence pack into a
// draft (the default extractive writer, or LlmWriter which asks a chat model).
//
// Contract for every implementation:
// - The only text a writer may use is the pack (`*args.pack`); the only ids a draft may cite are the
//   pack's EvidencePassage::id values. A citation of any other id is dropped and recorded in
//   Draft::dropped_markers (never returned as a citation).
// - At most `max_sentences` claims are returned (extra ones are dropped, not truncated mid-claim).
// - `on_delta`, when set, receives the answer text as it is produced (clean text: no citation
//   markers, never half a marker). Writers that do not stream call it once with the whole text, or
//   not at all when the text is empty. It is called on the thread that called Write().
// - `pack` must be non-null (an empty pack is allowed: the writer then returns an empty draft or an
//   error; it never invents sources). A null pack is kInvalidArgument.
//
// Thread-safety: implementations state their own; LlmWriter and the extractive writer allow
// concurrent Write() calls on one object.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/evidence.h"
#include "evidence/relevance.h"
#include "attest/status.h"

namespace attest {

struct WriteArgs {
  std::string question;
  // What the question asks (the plan's focus and subject): the extractive writer leads with the
  // passage that answers it and names the subject when a quote omits it.
  RelevanceQuestion asks;
  const std::vector<EvidencePassage>* pack = nullptr;  // borrowed; must outlive the Write() call
  size_t max_sentences = 3;
  std::function<void(std::string_view delta)> on_delta;  // streaming text, optional
  // Streaming writers: called when a sentence is complete, with the pack ids it cites (never an id
  // outside the pack), after its text went to on_delta. Optional.
  std::function<void(std::string_view sentence, const std::vector<std::string>& cites)> on_sentence;
  // Polled while a streaming writer receives text: true = stop generating (the client went away);
  // Write() then fails with kCancelled. Optional.
  std::function<bool()> cancelled;
};

class AnswerWriter {
 public:
  virtual ~AnswerWriter() = default;
  virtual Result<Draft> Write(const WriteArgs& args) = 0;
};

}  // namespace attest
