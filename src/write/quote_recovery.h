// RecoverQuote: finds a verbatim quote in a passage for a sentence that cites it without one (the
// prose fallback of LlmWriter yields "[n]" markers but no quotes; the verifier needs a quote).
//
// Rule: the passage is split into sentences (text/sentence_splitter.h). Each is scored by the
// number of DISTINCT content words it shares with `sentence` (content words: maximal runs of ASCII
// letters/digits or non-ASCII bytes, ASCII-lowercased, minus Lucene's English stopwords and
// one-letter tokens). The best score wins; ties go to the longer passage sentence, then to the
// earlier one. The quote is returned byte-for-byte as it appears in the passage (a substring of
// `passage`), so the verifier's "quote occurs in the passage" check holds by construction; whether
// it SUPPORTS the claim is still the verifier's decision. When no passage sentence shares a
// content word, the result is "" (the verifier will then report quote_not_found).
//
// Thread-safety: a pure function; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace attest {

std::string RecoverQuote(std::string_view sentence, std::string_view passage);

}  // namespace attest
