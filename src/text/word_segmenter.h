// Word segmentation for the analyzer and the chunker's token counter.
//
// The reference behaviour is ICU's word BreakIterator (UAX #29, root locale), keeping only segments
// whose rule status is "word" (letters, numbers, ideographs, kana) and that contain at least one
// letter or digit (ICU also gives word status to runs of '_' alone; we drop those).
//
// SegmentWordsAscii() reproduces exactly those segments for pure-ASCII text without calling ICU
// (tests/text_fastpath_test.cc checks it against SegmentWordsIcu() on random and real text).
// SegmentWords() in kAuto mode splits the input at ASCII whitespace, sends maximal runs of pure-ASCII
// pieces through the fast path and the remaining pieces through ICU. Offsets are byte offsets into
// the original UTF-8 input; invalid UTF-8 bytes are treated as separators (ICU maps them to U+FFFD).
//
// Thread-safety: all functions are thread-safe; the ICU iterator is kept per thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace attest {

struct WordSpan {
  uint32_t start;  // byte offset of the first byte of the segment
  uint32_t end;    // one past the last byte
};

enum class SegmentationMode : uint8_t {
  kAuto,     // ASCII fast path where possible, ICU elsewhere
  kIcuOnly,  // every byte through ICU: the exact oracle
};

// Appends the word segments of `text` to `out`.
void SegmentWords(std::string_view text, SegmentationMode mode, std::vector<WordSpan>* out);

// `text` must be pure ASCII. Offsets in `out` are `base` + offset within `text`.
void SegmentWordsAscii(std::string_view text, uint32_t base, std::vector<WordSpan>* out);

// Any bytes. Offsets in `out` are `base` + offset within `text`.
void SegmentWordsIcu(std::string_view text, uint32_t base, std::vector<WordSpan>* out);

// Number of word segments of `text` (kAuto), without materializing them.
uint32_t CountWordSegments(std::string_view text);

}  // namespace attest
