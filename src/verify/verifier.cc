#include "verify/verifier.h"

#include <algorithm>
#include <map>
#include <memory>

#include "verify/quote_match.h"
#include "verify/support_checks.h"

namespace attest {
namespace {

std::string Shorten(std::string_view s, size_t limit = 80) {
  if (s.size() <= limit) return std::string(s);
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return std::string(s.substr(0, cut)) + "...";
}

// The quote widened by up to `words` words before it, within its sentence.
std::string LocalWindow(const std::string& sentence, size_t quote_pos, size_t quote_len, int words) {
  size_t begin = quote_pos;
  int seen = 0;
  while (begin > 0 && seen < words) {
    --begin;
    while (begin > 0 && sentence[begin] == ' ') --begin;
    while (begin > 0 && sentence[begin - 1] != ' ') --begin;
    ++seen;
  }
  return sentence.substr(begin, quote_pos + quote_len - begin);
}

std::string ScopeText(const EvidencePassage& p) {
  std::string s = p.version + " " + p.title + " " + p.doc_id;
  for (char& c : s) {
    if (c == '-' || c == '_' || c == '/') c = ' ';  // "rel-17-notes" -> "rel 17 notes"
  }
  return NormalizeForQuoteMatch(s);
}

void Append(std::string* out, std::string_view piece) {
  if (!out->empty()) out->append(" | ");
  out->append(piece);
}

// The relevance check over a claim's citations: about the subject when one cited passage is, of
// the focus when one quoted sentence is (evidence/relevance.h).
class Relevance {
 public:
  explicit Relevance(const RelevanceQuestion& asks) : asks_(asks) {}

  void Add(const EvidencePassage& passage, const std::string& sentence) {
    const RelevanceCheck r = CheckRelevance(asks_, passage.subject, passage.title, sentence);
    about_ |= r.about_subject;
    focus_ |= r.answers_focus;
    if (!r.about_subject && other_.empty()) other_ = passage.id + " is about " + Shorten(passage.subject, 60);
  }

  // "" when the claim is relevant, else the reason naming what is missing.
  std::string Missing() const {
    if (!about_) return "relevance: not about " + Shorten(asks_.subject, 60) + " (" + other_ + ")";
    if (!focus_) {
      return std::string("relevance: no quoted sentence states a ") + FocusName(asks_.focus) + " (the question asks for one)";
    }
    return "";
  }

 private:
  const RelevanceQuestion& asks_;
  bool about_ = false;
  bool focus_ = false;
  std::string other_;
};

ClaimVerdict Decide(const DraftClaim& claim, Verdict v, std::string reason) {
  return ClaimVerdict{claim.id, v, std::move(reason)};
}

}  // namespace

std::vector<ClaimVerdict> VerifyDraft(const std::vector<EvidencePassage>& pack, const std::vector<DraftClaim>& claims,
                                      const VerifyOptions& options) {
  std::map<std::string, const EvidencePassage*, std::less<>> by_id;
  for (const EvidencePassage& p : pack) by_id.emplace(p.id, &p);  // first wins on duplicate ids
  std::map<std::string, std::unique_ptr<NormalizedPassage>, std::less<>> normalized;  // lazily built

  std::vector<ClaimVerdict> verdicts;
  verdicts.reserve(claims.size());
  for (const DraftClaim& claim : claims) {
    if (claim.cites.empty()) {
      verdicts.push_back(Decide(claim, Verdict::kUnsupported, "citation: the claim cites no source"));
      continue;
    }
    auto unknown = std::find_if(claim.cites.begin(), claim.cites.end(),
                                [&](const Citation& c) { return by_id.count(c.source) == 0; });
    if (unknown != claim.cites.end()) {
      verdicts.push_back(Decide(claim, Verdict::kUnknownSource,
                                "source: cites " + Shorten(unknown->source, 40) + ", which is not in the evidence pack"));
      continue;
    }
    SupportEvidence evidence;
    std::string not_found;
    std::string flagged;
    Relevance relevance(options.asks);
    for (const Citation& cite : claim.cites) {
      const EvidencePassage& passage = *by_id.at(cite.source);
      auto& np = normalized[passage.id];
      if (!np) np = std::make_unique<NormalizedPassage>(passage.text);
      const std::string quote = NormalizeForQuoteMatch(cite.quote);
      const size_t pos = np->Find(quote);
      if (pos == std::string::npos) {
        not_found = "quote: \"" + Shorten(cite.quote) + "\" does not occur in " + passage.id;
        break;
      }
      if (passage.flagged && flagged.empty()) {
        flagged = "injection screen: cites a flagged passage " + passage.id +
                  (passage.flag_reason.empty() ? "" : " (" + passage.flag_reason + ")");
      }
      const std::string sentence = np->SentencesAround(pos, pos + quote.size());
      const size_t in_sentence = sentence.find(quote);
      relevance.Add(passage, sentence);
      Append(&evidence.quotes, quote);
      Append(&evidence.context, sentence);
      // The passage's subject is part of what it says: a claim may name the entry it quotes.
      if (!passage.subject.empty()) Append(&evidence.context, NormalizeForQuoteMatch(passage.subject));
      Append(&evidence.local, in_sentence == std::string::npos
                                  ? quote
                                  : LocalWindow(sentence, in_sentence, quote.size(), options.local_window_words));
      Append(&evidence.scope, ScopeText(passage));
    }
    if (!not_found.empty()) {
      verdicts.push_back(Decide(claim, Verdict::kQuoteNotFound, not_found));
      continue;
    }
    if (!flagged.empty()) {
      verdicts.push_back(Decide(claim, Verdict::kUnsupported, flagged));
      continue;
    }
    if (std::string missing = relevance.Missing(); !missing.empty()) {
      verdicts.push_back(Decide(claim, Verdict::kOffTopic, std::move(missing)));
      continue;
    }
    CheckResult failed;
    bool decided = false;
    for (auto check : {&CheckNumbers, &CheckNegation, &CheckAbsoluteQuantifiers}) {
      CheckResult r = check(claim.text, evidence);
      if (r.level != CheckLevel::kPass) {
        failed = std::move(r);
        decided = true;
        break;
      }
    }
    if (decided) {
      verdicts.push_back(Decide(claim, Verdict::kUnsupported, failed.reason));
      continue;
    }
    CheckResult coverage =
        CheckContentCoverage(claim.text, evidence, options.supported_coverage, options.partial_coverage);
    if (coverage.level == CheckLevel::kFail) {
      verdicts.push_back(Decide(claim, Verdict::kUnsupported, coverage.reason));
      continue;
    }
    CheckResult names = CheckNamedEntities(claim.text, evidence);
    if (names.level != CheckLevel::kPass) {
      verdicts.push_back(Decide(claim, Verdict::kPartial, names.reason + "; " + coverage.reason));
      continue;
    }
    if (coverage.level == CheckLevel::kPartial) {
      verdicts.push_back(Decide(claim, Verdict::kPartial, coverage.reason));
      continue;
    }
    verdicts.push_back(Decide(claim, Verdict::kSupported, "all checks passed; " + coverage.reason));
  }
  return verdicts;
}

std::vector<std::string> KeptClaimIds(const std::vector<ClaimVerdict>& verdicts, bool keep_partial) {
  std::vector<std::string> kept;
  for (const ClaimVerdict& v : verdicts) {
    if (v.verdict == Verdict::kSupported || (keep_partial && v.verdict == Verdict::kPartial)) {
      kept.push_back(v.claim_id);
    }
  }
  return kept;
}

}  // namespace attest
