// The write and verify stages of the answer path (answer_stages.h): the writer's arguments, the
// built-in checks, the optional judge and the LLM writer's one repair round.
#include "answer/answer_stages.h"
#include "verify/verifier.h"

namespace attest {

WriteArgs WriteArgsFor(const std::string& question, const RelevanceQuestion& asks,
                       const std::vector<EvidencePassage>& writer_pack, size_t max_sentences,
                       const AnswerEvents* events) {
  WriteArgs wa;
  wa.question = question;
  wa.asks = asks;
  wa.pack = &writer_pack;
  wa.max_sentences = max_sentences;
  if (events && events->on_delta) wa.on_delta = events->on_delta;
  if (events && events->on_sentence) wa.on_sentence = events->on_sentence;
  if (events && events->cancelled) wa.cancelled = events->cancelled;
  return wa;
}

VerifiedAnswer VerifyForAnswer(const VerifyInput& in, Draft draft) {
  VerifiedAnswer out;
  const std::vector<EvidencePassage>& pack = *in.pack;
  // The built-in checks, then (optionally) the judge, which can only confirm or downgrade.
  auto verify = [&](const Draft& d) {
    VerifyOptions vo;
    vo.asks = in.asks;
    std::vector<ClaimVerdict> v = VerifyDraft(pack, d.claims, vo);
    if (in.judge) {
      auto judged = in.judge->Judge(pack, d.claims, v, &out.judge_usage);
      if (judged.ok()) {
        v = std::move(judged).value();
      } else {
        out.degraded.push_back("llm_judge_failed: " + judged.status().message());
      }
    }
    return v;
  };
  out.verdicts = verify(draft);
  if (in.repairer) {
    // The LLM writer may be asked once to repair the claims the verifier rejected.
    bool failing = false;
    for (const ClaimVerdict& v : out.verdicts) failing |= v.verdict != Verdict::kSupported;
    if (failing) {
      // The repair is not streamed: sentences already shown are replaced or retracted afterwards.
      WriteArgs wa = *in.write_args;
      wa.on_delta = nullptr;
      wa.on_sentence = nullptr;
      auto repaired = in.repairer->Repair(wa, draft, out.verdicts);
      out.repair_calls = repaired.ok() ? repaired->model_calls : 1;  // a failed repair made its call
      if (repaired.ok()) {
        draft = std::move(repaired).value();
        out.repair_prompt_tokens = draft.prompt_tokens;
        out.repair_completion_tokens = draft.completion_tokens;
        out.verdicts = verify(draft);
        out.warnings.push_back("the model was asked once to repair unsupported claims");
      } else {
        out.degraded.push_back("repair_failed: " + repaired.status().message());
      }
    }
  }
  out.draft = std::move(draft);
  return out;
}

}  // namespace attest
