// The deterministic verifier: one verdict per claim of a structured draft, deciding whether each
// claim's citations exist, quote their passages verbatim, and support the claim's text.
//
// Order of decisions for one claim (the first that decides wins; the reason names it):
//   1. no citation                              -> unsupported
//   2. a cite names an id not in the pack       -> unknown_source
//   3. a quote does not occur in its passage    -> quote_not_found   (NormalizeForQuoteMatch on both)
//   4. a cite points at a flagged passage       -> unsupported ("cites a flagged passage")
//   5. relevance (when VerifyOptions::asks names a subject or a testable focus): no cited passage is
//      about the question's subject, or no quoted sentence holds content of the focus's kind
//      (evidence/relevance.h: CheckRelevance)   -> off_topic (not kept; the reason names what is missing)
//   6. numbers/dates/units, 7. negation, 8. absolute quantifiers (verify/support_checks.h) -> unsupported
//   9. content-word coverage                    -> unsupported / partial / candidate supported
//  10. names and identifiers missing            -> at best partial
// The support checks compare the claim with the union of its quotes; a quote is read in the sentence
// of its passage that contains it, and with the passage's subject (a claim may name the entry it
// quotes: "max_wal_senders: The default is 10."). See docs/verification.md for the blind spots.
// The verifier reduces unsupported claims; it cannot certify that a claim is true.
//
// Thread-safety: pure functions; safe to call concurrently.
#pragma once

#include <string>
#include <vector>

#include "evidence/evidence.h"
#include "evidence/relevance.h"

namespace attest {

struct VerifyOptions {
  // Share of the claim's content words that must occur in the quotes' sentences. Tuned on the seed
  // scenario and tests/verify_verifier_test.cc: 0.8 keeps c2 ("keep their stored setting" vs "keep
  // the value that was stored": 5 of 6) and rejects claims that add a predicate of their own.
  double supported_coverage = 0.8;
  double partial_coverage = 0.5;
  // Words before a quote (same sentence) read with it by the negation and quantifier checks.
  int local_window_words = 4;
  // What the question asks (the plan's focus and subject), for the relevance check; the default
  // (no subject, no focus) passes every claim.
  RelevanceQuestion asks;
};

std::vector<ClaimVerdict> VerifyDraft(const std::vector<EvidencePassage>& pack, const std::vector<DraftClaim>& claims,
                                      const VerifyOptions& options = {});

// Ids of the claims to keep, in draft order: supported ones, and partial ones when `keep_partial`.
// (Flagged passages never support a claim: VerifyDraft already made such claims unsupported;
// off_topic claims are never kept.)
std::vector<std::string> KeptClaimIds(const std::vector<ClaimVerdict>& verdicts, bool keep_partial = false);

}  // namespace attest
