#include "verify/quote_match.h"

#include <algorithm>
#include <cstdint>

#include "text/case_fold.h"
#include "text/sentence_splitter.h"

namespace attest {
namespace {

// Decodes one UTF-8 code point at `i` (already valid: the case folder replaced invalid bytes).
// Returns the code point and advances `i`; a malformed sequence yields U+FFFD and advances one byte.
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || *i + len > s.size()) {
    ++*i;
    return 0xFFFD;
  }
  uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[*i + k]);
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *i += len;
  return cp;
}

bool IsSpace(uint32_t cp) {
  return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

// The replacement of a typographic variant, or nullptr to keep the code point as it is.
const char* Unify(uint32_t cp) {
  switch (cp) {
    case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032: case 0x2035: case 0x0060:
    case 0x00B4:
      return "'";
    case 0x201C: case 0x201D: case 0x201E: case 0x201F: case 0x2033: case 0x2036: case 0x00AB:
    case 0x00BB:
      return "\"";
    case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2015: case 0x2212:
      return "-";
    case 0x2026:
      return "...";
    default:
      return nullptr;
  }
}

}  // namespace

std::string NormalizeForQuoteMatch(std::string_view text) {
  std::string folded;
  folded.reserve(text.size());
  AppendCaseFolded(text, &folded);
  std::string out;
  out.reserve(folded.size());
  bool pending_space = false;
  size_t i = 0;
  while (i < folded.size()) {
    const size_t start = i;
    const uint32_t cp = NextCodePoint(folded, &i);
    if (IsSpace(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) {
      out.push_back(' ');
      pending_space = false;
    }
    if (const char* rep = Unify(cp)) {
      out.append(rep);
    } else if (cp == 0xFFFD && folded.compare(start, 3, "\xEF\xBF\xBD") != 0) {
      out.append("\xEF\xBF\xBD");  // a malformed byte the folder let through
    } else {
      out.append(folded, start, i - start);
    }
  }
  return out;
}

bool QuoteOccursIn(std::string_view quote, std::string_view passage) {
  const std::string q = NormalizeForQuoteMatch(quote);
  if (q.empty()) return false;
  return NormalizeForQuoteMatch(passage).find(q) != std::string::npos;
}

NormalizedPassage::NormalizedPassage(std::string_view passage) {
  // Each sentence (with the text before it since the previous one) is normalized on its own and the
  // results are joined by one space where the passage had whitespace: the same string
  // NormalizeForQuoteMatch(passage) gives (the verifier fuzz target checks it).
  size_t prev = 0;
  bool space_before = false;  // whitespace followed the text appended so far (trimmed from it)
  auto append_piece = [&](std::string_view piece) {
    // ICU may end a sentence with no space after it ("ok?Next"): join with a space only where the
    // passage had whitespace, at the start of this piece or at the end of the ones before (a
    // sentence keeps a trailing line separator), so that every verbatim substring of the passage is
    // found and nothing else is.
    std::string folded;
    AppendCaseFolded(piece, &folded);  // drops ignorables (a zero-width space before the blank)
    bool first_space = false, last_space = false;
    for (size_t i = 0; i < folded.size();) {
      const bool first = i == 0;
      last_space = IsSpace(NextCodePoint(folded, &i));
      if (first) first_space = last_space;
    }
    std::string n = NormalizeForQuoteMatch(piece);
    if (n.empty()) {  // only whitespace (or nothing once ignorables are dropped)
      space_before = space_before || !folded.empty();
      return;
    }
    if (!text_.empty() && (space_before || first_space)) text_.push_back(' ');
    space_before = last_space;
    sentence_starts_.push_back(text_.size());
    text_ += n;
  };
  for (const SentenceSpan& span : SplitSentences(passage)) {
    if (span.end <= prev || span.end > passage.size()) continue;
    append_piece(passage.substr(prev, span.end - prev));
    prev = span.end;
  }
  if (prev < passage.size()) append_piece(passage.substr(prev));
  if (sentence_starts_.empty()) sentence_starts_.push_back(0);
}

size_t NormalizedPassage::Find(std::string_view normalized_quote) const {
  if (normalized_quote.empty()) return std::string::npos;
  return text_.find(normalized_quote);
}

std::string NormalizedPassage::SentencesAround(size_t begin, size_t end) const {
  if (text_.empty()) return {};
  begin = std::min(begin, text_.size() - 1);
  end = std::clamp(end, begin + 1, text_.size());
  // First sentence starting at or before `begin`; last sentence starting before `end`.
  auto first = std::upper_bound(sentence_starts_.begin(), sentence_starts_.end(), begin);
  const size_t from = *(first - 1);
  auto last = std::lower_bound(sentence_starts_.begin(), sentence_starts_.end(), end);
  const size_t to = last == sentence_starts_.end() ? text_.size() : *last - 1;  // drop the joining space
  return text_.substr(from, to - from);
}

}  // namespace attest
