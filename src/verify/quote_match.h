// Quote matching for the verifier: the mechanical half of citation checking ("does the quoted text
// occur in the cited passage?").
//
// Writers (LLMs especially) reproduce quotes with cosmetic drift: curly instead of straight quotes,
// an em dash instead of a hyphen, "…" instead of "...", different case, line breaks inside the
// quote. NormalizeForQuoteMatch() removes exactly that drift and nothing more: the match is still a
// substring match, so a paraphrased or fabricated quote is not found.
//
// Normalisation, in order: NFKC case folding (ICU NFKC_Casefold; also drops default-ignorable
// characters such as zero-width spaces and soft hyphens), then single/double curly quotes, primes and
// guillemets -> ' and ", hyphen/dash/minus variants (U+2010..U+2015, U+2212) -> '-', U+2026 -> "...",
// and every run of whitespace (ASCII and Unicode spaces, line/paragraph separators) -> one ' ',
// trimmed at both ends. Invalid UTF-8 becomes U+FFFD (never a crash).
//
// Thread-safety: all functions are pure and may be called from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attest {

std::string NormalizeForQuoteMatch(std::string_view text);

// True when the normalized `quote` is a non-empty substring of the normalized `passage`.
bool QuoteOccursIn(std::string_view quote, std::string_view passage);

// A passage normalized sentence by sentence, so that a quote found in it can be widened to the
// sentences that contain it (the verifier judges a quote fragment in the context of its sentence:
// "now defaults to on" is about the subject named earlier in the same sentence, and a fragment that
// omits a "not" standing just before it is caught).
class NormalizedPassage {
 public:
  explicit NormalizedPassage(std::string_view passage);

  const std::string& text() const { return text_; }
  // Byte offset of the normalized quote in text(), or npos when absent (or the quote is empty).
  size_t Find(std::string_view normalized_quote) const;
  // The sentences (normalized, joined by ' ') overlapping [begin, end) of text().
  std::string SentencesAround(size_t begin, size_t end) const;

 private:
  std::string text_;
  std::vector<size_t> sentence_starts_;  // offsets into text_, ascending, first is 0
};

}  // namespace attest
