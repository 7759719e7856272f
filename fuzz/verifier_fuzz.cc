// Fuzz target: the verifier and the injection screen on arbitrary bytes (invalid UTF-8 included).
// Input layout: passage 0x1E claim 0x1E quote (missing parts are derived from the passage).
// Invariants: one verdict per claim, in order, each with a reason; an ASCII quote cut verbatim from
// an ASCII passage is always found (never quote_not_found / unknown_source); QuoteOccursIn agrees
// with that, and the verifier's sentence-by-sentence normalisation of the passage equals the whole
// text's; every item UnsupportedActions returns is a substring of the answer it was given; the
// screen returns a reason exactly when it flags.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "verify/injection_screen.h"
#include "verify/quote_match.h"
#include "verify/verifier.h"

namespace {

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80 || c == '\0') return false;
  }
  return true;
}

bool HasNonSpace(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && !(c >= 0x09 && c <= 0x0D)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= input.size(); ++i) {
    if (i == input.size() || input[i] == '\x1E') {
      parts.push_back(input.substr(start, i - start));
      start = i + 1;
    }
  }
  const std::string_view passage_text = parts[0];
  const std::string_view claim_text = parts.size() > 1 ? parts[1] : passage_text;
  // The quote: given, or a verbatim slice of the passage chosen by the first bytes.
  std::string_view quote;
  bool verbatim = false;
  if (parts.size() > 2) {
    quote = parts[2];
  } else if (!passage_text.empty()) {
    const size_t b = static_cast<unsigned char>(passage_text[0]) % passage_text.size();
    const size_t len = 1 + static_cast<unsigned char>(passage_text.back()) % (passage_text.size() - b);
    quote = passage_text.substr(b, len);
    verbatim = true;
  }

  attest::EvidencePassage passage;
  passage.id = "S1";
  passage.text = std::string(passage_text);
  attest::EvidencePassage flagged = passage;
  flagged.id = "S2";
  flagged.flagged = true;
  const std::vector<attest::DraftClaim> claims = {
      {"c1", std::string(claim_text), {{"S1", std::string(quote)}}},
      {"c2", std::string(claim_text), {{"S2", std::string(quote)}}},
      {"c3", std::string(claim_text), {{"S9", std::string(quote)}}},
      {"c4", std::string(claim_text), {}},
  };
  const std::vector<attest::ClaimVerdict> verdicts = attest::VerifyDraft({passage, flagged}, claims);
  FUZZ_CHECK(verdicts.size() == claims.size());
  for (size_t i = 0; i < verdicts.size(); ++i) {
    FUZZ_CHECK(verdicts[i].claim_id == claims[i].id);
    FUZZ_CHECK(!verdicts[i].reason.empty());
  }
  FUZZ_CHECK(verdicts[1].verdict != attest::Verdict::kSupported && verdicts[1].verdict != attest::Verdict::kPartial);
  FUZZ_CHECK(verdicts[2].verdict == attest::Verdict::kUnknownSource);
  FUZZ_CHECK(verdicts[3].verdict == attest::Verdict::kUnsupported);
  if (verbatim && IsAscii(passage_text) && HasNonSpace(quote)) {
    FUZZ_CHECK(attest::QuoteOccursIn(quote, passage_text));
    FUZZ_CHECK(verdicts[0].verdict != attest::Verdict::kQuoteNotFound);
  }
  if (verdicts[0].verdict != attest::Verdict::kQuoteNotFound) {
    FUZZ_CHECK(attest::QuoteOccursIn(quote, passage_text));
  }
  FUZZ_CHECK(attest::NormalizedPassage(passage_text).text() == attest::NormalizeForQuoteMatch(passage_text));

  for (std::string_view text : {passage_text, claim_text, quote}) {
    const attest::InjectionFinding f = attest::ScreenPassage(text);
    FUZZ_CHECK(f.flagged == !f.reason.empty());
  }
  for (const std::string& item : attest::UnsupportedActions(claim_text, {std::string(quote)})) {
    FUZZ_CHECK(!item.empty());
    FUZZ_CHECK(claim_text.find(item) != std::string_view::npos);
  }
  return 0;
}
