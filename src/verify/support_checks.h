// The support checks of the verifier: small deterministic tests of whether the quotes a claim cites
// establish the claim. Each check looks at one kind of evidence and returns a verdict level plus a
// reason that names the check ("numbers: claim says 60 days, quote says 30 days"). VerifyDraft
// (verify/verifier.h) runs them in a fixed order; docs/verification.md lists them with their blind
// spots. They reduce unsupported claims; they do not certify that a claim is true.
//
// Every text argument except `claim` is already normalized with NormalizeForQuoteMatch. Three views
// of the cited evidence are used:
//   quotes   the quotes themselves (strict: numbers must be stated here)
//   local    each quote widened by the few words before it in its sentence (negation and absolute
//            quantifiers: "is not supported" quoted as "supported" is caught)
//   context  the sentences containing the quotes (content words and names: a quoted fragment is read
//            in its sentence)
//
// Thread-safety: pure functions; the Analyzer they use is immutable and shared.
#pragma once

#include <string>
#include <string_view>

namespace attest {

enum class CheckLevel { kPass, kPartial, kFail };

struct CheckResult {
  CheckLevel level = CheckLevel::kPass;
  std::string reason;  // starts with the check's name; also set on a pass (for the verdict's reason)
};

struct SupportEvidence {
  std::string quotes;
  std::string local;
  std::string context;
  std::string scope;  // the cited passages' version, title and doc id (normalized): where "release 17" may be
};

// Content-word coverage: the share of the claim's content words (analyzer terms, stemmed, minus
// function words, negations, quantifiers and the numbers the numbers check owns) present in the
// context. >= supported -> pass, >= partial -> partial, else fail.
CheckResult CheckContentCoverage(std::string_view claim, const SupportEvidence& evidence,
                                 double supported_coverage, double partial_coverage);

// Every number, date, version, percentage and unit in the claim is stated in the quotes (version
// scopes such as "release 17" may instead be in the context or the cited passages' metadata).
CheckResult CheckNumbers(std::string_view claim, const SupportEvidence& evidence);

// The claim and the local quote text agree on negation ("not", "no", "never", "n't", "without",
// "cannot", "none", "nor").
CheckResult CheckNegation(std::string_view claim, const SupportEvidence& evidence);

// Absolute quantifiers in the claim ("entirely", "always", "all", "only", "guaranteed", "100%", ...)
// are matched by a word of the same class in the local quote text.
CheckResult CheckAbsoluteQuantifiers(std::string_view claim, const SupportEvidence& evidence);

// Capitalised names and identifiers of the claim (ExampleDB, lr_example_parallel_apply, CLI, pg15)
// occur in the context. A miss caps the verdict at partial.
CheckResult CheckNamedEntities(std::string_view claim, const SupportEvidence& evidence);

// The claim's text with the byte ranges of its quantities blanked out (used by the coverage check).
std::string BlankQuantities(std::string_view normalized_claim);

}  // namespace attest
