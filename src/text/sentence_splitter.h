// Sentence boundaries from ICU's sentence BreakIterator, with exceptions for common abbreviations
// (Dr., Mr., Mrs., Ms., Prof., St., e.g., i.e., etc., vs., cf., U.S., U.K., a.m., p.m., Fig., No., ...)
// and initials, so that "Dr. Smith arrived at 3 p.m. on Monday." stays one sentence.
// Thread-safe: uses per-thread ICU iterators.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace attest {

struct SentenceSpan {
  uint32_t start;  // byte offset in the input
  uint32_t end;    // one past the last byte, trailing whitespace excluded
};

std::vector<SentenceSpan> SplitSentences(std::string_view text);

}  // namespace attest
