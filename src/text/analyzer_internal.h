// Internals of the Analyzer exposed for the exact-oracle tests (fast path vs ICU path).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "text/analyzer.h"
#include "text/token.h"
#include "text/word_segmenter.h"

namespace attest {

// Analyzer::Analyze with an explicit segmentation mode; Analyze uses SegmentationMode::kAuto.
uint32_t AnalyzeWithMode(const AnalyzerOptions& options, std::string_view text, SegmentationMode mode,
                         std::vector<Token>* out, uint32_t first_position);

// Byte length of the identifier joiner starting at text[i] ('_', '-', '.', '/', ':', '@' and their
// full-width forms, U+2010 HYPHEN, U+2011 NON-BREAKING HYPHEN), or 0 when there is none.
size_t JoinerLengthAt(std::string_view text, size_t i);

}  // namespace attest
