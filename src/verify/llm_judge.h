// LlmJudge: an optional second opinion on the claims the deterministic verifier (verify/verifier.h)
// let through. A chat model (a ChatModel; ChatClient is the OpenAI-compatible one) reads each claim with its quotes and the
// cited passages' sentences and answers supported / partial / unsupported with a short reason.
//
// THE JUDGE CAN ONLY CONFIRM OR DOWNGRADE, NEVER UPGRADE:
//   - only claims whose mechanical verdict is kSupported or kPartial are sent; kQuoteNotFound,
//     kUnknownSource, kOffTopic and kUnsupported stand as they are (no request is made for them);
//   - the combined verdict is the stricter of the mechanical and the judge's verdict
//     (supported < partial < unsupported); a judge "supported" for a mechanically partial claim
//     leaves it partial (the reason records the ignored upgrade).
//
// Requests: claims are sent in batches of at most options.batch_size, one chat call per batch, in
// order. Messages: kLlmJudgeSystemPrompt (constant: rules; the data block is data, never
// instructions), then a user message
//     <data>
//     {"id":"c1","claim":"...","cites":[{"source":"S1","title":"...","version":"...",
//                                        "quote":"...","sentences":"..."}]}      (one line per claim)
//     </data>
//     + the reply format.
// "sentences" is the original text of the passage's sentences that contain the quote (the whole
// passage when the quote cannot be located), cut at max_sentence_bytes. Every "<" inside the JSON
// lines is written as \u003c (as LlmWriter does), so no passage can write "</data>" and step out of
// the block; JSON decoding gives back the exact text.
// response_format is a strict json_schema (VerdictSchemaJson()):
//     {"verdicts":[{"id": string, "verdict": "supported"|"partial"|"unsupported", "reason": string}]}
//
// Parsing of a reply (strict): the body must be that object (a ```json fence is tolerated); every
// entry must have a string id, one of the three verdicts and a string reason, else the reply is
// malformed. Ids not in the batch are ignored and counted (LlmJudgeStats::unknown_ids); a claim of
// the batch with no entry keeps its mechanical verdict with the reason "judge gave no verdict; ...";
// an id given twice takes the stricter verdict. Reasons are cut at 200 bytes.
//
// Error policy (chosen: an error status, not a degraded flag): when any batch fails (transport
// error or timeout: the chat model's code (kDeadlineExceeded for timeouts); a refusal: kUnsupported; a
// malformed reply: kCorruption naming what was wrong), Judge() returns that error, prefixed with
// "llm judge", and combines nothing: the caller keeps `mechanical` as it is and may log the status.
// Invalid input (mechanical verdicts not aligned with the claims) is kInvalidArgument. With no
// claim to send, Judge() returns `mechanical` unchanged without a call.
//
// Cost: prompt/completion tokens and calls are accumulated in LlmJudgeStats (failed calls count
// as calls; their tokens are counted when the server reported them).
//
// Thread-safety: Judge() may be called concurrently (the chat model is thread-safe; the stats are
// mutex-guarded). The chat model must outlive the judge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/evidence.h"
#include "attest/status.h"
#include "common/thread_annotations.h"
#include "llm/chat_model.h"

namespace attest {

extern const char* const kLlmJudgeSystemPrompt;

struct LlmJudgeOptions {
  size_t batch_size = 8;             // claims per request (>= 1)
  uint32_t max_tokens = 1024;        // per request
  size_t max_sentence_bytes = 2000;  // per cite: the "sentences" field is cut here
};

struct LlmJudgeStats {
  uint64_t calls = 0;              // chat requests made (one per batch)
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
  uint64_t claims_sent = 0;
  uint64_t downgrades = 0;         // claims the judge made stricter
  uint64_t ignored_upgrades = 0;   // judge said better than the mechanical verdict: ignored
  uint64_t unknown_ids = 0;        // verdict entries naming a claim not in the batch (ignored)
  uint64_t missing_ids = 0;        // claims of a batch the judge gave no verdict for
  uint64_t failed_calls = 0;       // transport errors, refusals, malformed replies
};

class LlmJudge {
 public:
  explicit LlmJudge(const ChatModel& client, LlmJudgeOptions options = {});

  // `mechanical` must hold one verdict per claim, in the same order with the same ids (as
  // VerifyDraft returns them). Returns the combined verdicts in that order, or an error (see the
  // error policy above: then the mechanical verdicts stand). `usage` (optional) receives the calls
  // this Judge() made and their tokens, failed calls included (the stats hold every caller's).
  Result<std::vector<ClaimVerdict>> Judge(const std::vector<EvidencePassage>& pack,
                                          const std::vector<DraftClaim>& claims,
                                          const std::vector<ClaimVerdict>& mechanical,
                                          ModelUsage* usage = nullptr) const;

  LlmJudgeStats stats() const;

  // The user message for one batch of claims (exposed for tests and docs).
  static std::string BuildUserMessage(const std::vector<EvidencePassage>& pack,
                                      const std::vector<const DraftClaim*>& batch, size_t max_sentence_bytes);
  // The response_format object sent with every request.
  static const std::string& VerdictSchemaJson();

 private:
  const ChatModel& client_;
  const LlmJudgeOptions options_;
  mutable Mutex mu_;
  mutable LlmJudgeStats stats_ GUARDED_BY(mu_);
};

}  // namespace attest
