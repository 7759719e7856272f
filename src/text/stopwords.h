// Lucene's English stopword set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, 33 words).
#pragma once

#include <string_view>

namespace attest {

// `term` must already be case-folded. Thread-safe.
bool IsEnglishStopword(std::string_view term);

}  // namespace attest
