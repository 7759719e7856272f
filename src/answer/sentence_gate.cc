#include "answer/sentence_gate.h"

#include <algorithm>
#include <cctype>

#include "evidence/evidence.h"
#include "verify/verifier.h"
#include "write/quote_recovery.h"

namespace attest {
namespace {

EvidencePassage PassageOf(const AnswerSource& s) {
  EvidencePassage p;
  p.id = s.id;
  p.doc_id = s.doc_id;
  p.chunk_id = s.chunk_id;
  p.url = s.url;
  p.title = s.title;
  p.site = s.site;
  p.date = s.date;
  p.version = s.version;
  p.source_type = s.source_type;
  p.authority = s.authority;
  p.text = s.text;
  p.subject = s.subject;
  p.score = s.score;
  p.flagged = s.flagged;
  p.flag_reason = s.flag_reason;
  return p;
}

}  // namespace

void SentenceGate::SetQuestion(std::string_view focus, std::string subject) {
  asks_.focus = Focus::kNone;
  for (int f = static_cast<int>(Focus::kNone); f <= static_cast<int>(Focus::kReason); ++f) {
    if (focus == FocusName(static_cast<Focus>(f))) asks_.focus = static_cast<Focus>(f);
  }
  asks_.subject = std::move(subject);
}

std::optional<GateVerdict> SentenceGate::Check(std::string_view text, const std::vector<std::string>& cites) {
  // Trailing punctuation after the last marker is not a sentence.
  if (std::none_of(text.begin(), text.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); })) {
    return std::nullopt;
  }
  GateVerdict out;
  out.sentence_id = NextId();
  ids_.push_back(out.sentence_id);
  text_[out.sentence_id] = std::string(text);
  DraftClaim claim{out.sentence_id, std::string(text), {}};
  std::vector<EvidencePassage> cited;
  for (const std::string& c : cites) {
    for (const AnswerSource& s : sources_) {
      if (s.id != c) continue;
      // The model writes prose: the quote is recovered from the passage, as the writer does.
      const std::string quote = RecoverQuote(text, s.text);
      claim.cites.push_back({s.id, quote});
      out.citations.push_back({s.id, s.doc_id, s.chunk_id, quote});
      cited.push_back(PassageOf(s));
    }
  }
  if (out.citations.empty()) {  // shown as it streamed, but it cites nothing: withdrawn
    out.reason = "uncited";
    return out;
  }
  // Verified as it completes: the mechanical quote check, relevance and the built-in support checks.
  VerifyOptions vo;
  vo.asks = asks_;
  const ClaimVerdict verdict = VerifyDraft(cited, {claim}, vo).front();
  if (verdict.verdict != Verdict::kSupported && verdict.verdict != Verdict::kPartial) {
    out.reason = VerdictName(verdict.verdict);
    return out;
  }
  out.release = true;
  out.verified = VerdictName(verdict.verdict);
  return out;
}

std::string SentenceGate::StreamedText(const std::string& id) const {
  auto it = text_.find(id);
  return it == text_.end() ? std::string() : it->second;
}

}  // namespace attest
