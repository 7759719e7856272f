// The link policy (verify/url_sanitizer.h) applied to everything the answer path shows
// (docs/verification.md, "Links in the output").
//
// Two places assemble output, and both pass through here:
//  - SanitizeAnswer(): the finished AnswerResult, called by SealManifest() at every exit of
//    RunAnswer(), so the JSON body, the CLI text, the manifest and the service's rebuilt text and
//    replayed stream all read sanitized fields: answer text, claims (text, quotes, reasons), sources
//    (text, title, URL, flag reason), result hits (title, snippet, URL), hops, warnings.
//  - SanitizingEvents: the streaming callbacks of one answer (sources, text deltas, finished
//    sentences). Deltas go through a LinkStreamFilter, which holds back what the link policy cannot
//    decide yet (a word or link that may still be growing); the held text is released before each
//    finished sentence and at the end.
// Metadata URL fields keep only http(s) and relative URLs (SafeUrl); everything else is text.
//
// Thread-safety: SanitizeAnswer is a pure function of its argument; a SanitizingEvents belongs to
// the thread running one answer.
#pragma once

#include "attest/answer.h"
#include "verify/url_sanitizer.h"

namespace attest {

void SanitizeAnswer(AnswerResult* result);
void SanitizeHit(SearchHit* hit);
void SanitizeSource(AnswerSource* source);

// Wraps `inner` (may be null): events() forwards sanitized sources, deltas and sentences to it.
class SanitizingEvents {
 public:
  explicit SanitizingEvents(const AnswerEvents* inner);
  SanitizingEvents(const SanitizingEvents&) = delete;
  SanitizingEvents& operator=(const SanitizingEvents&) = delete;

  // null when there is no inner observer.
  const AnswerEvents* events() const { return inner_ ? &wrapped_ : nullptr; }
  // Releases the text held back by the delta filter (end of the writer's stream).
  void Flush();

 private:
  const AnswerEvents* inner_;
  AnswerEvents wrapped_;
  LinkStreamFilter filter_;
};

}  // namespace attest
