#include "text/sentence_splitter.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <memory>
#include <string>

#include "text/abbreviations.h"

namespace attest {
namespace {

struct IcuSentenceIterator {
  std::unique_ptr<icu::BreakIterator> iter;
  UText* utext = nullptr;
  IcuSentenceIterator() {
    UErrorCode status = U_ZERO_ERROR;
    iter.reset(icu::BreakIterator::createSentenceInstance(icu::Locale::getEnglish(), status));
    if (U_FAILURE(status)) iter.reset();
  }
  ~IcuSentenceIterator() {
    if (utext != nullptr) utext_close(utext);
  }
};

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Length of a (Unicode) whitespace character ending at text[end-1], 0 if none.
size_t SpaceLengthBefore(std::string_view text, size_t end) {
  if (end == 0) return 0;
  if (IsAsciiSpace(text[end - 1])) return 1;
  if (end >= 2 && text.compare(end - 2, 2, "\xC2\xA0") == 0) return 2;      // U+00A0
  if (end >= 3 && text.compare(end - 3, 3, "\xE3\x80\x80") == 0) return 3;  // U+3000
  return 0;
}
size_t SpaceLengthAt(std::string_view text, size_t i) {
  if (i >= text.size()) return 0;
  if (IsAsciiSpace(text[i])) return 1;
  if (text.compare(i, 2, "\xC2\xA0") == 0) return 2;
  if (text.compare(i, 3, "\xE3\x80\x80") == 0) return 3;
  return 0;
}

bool IsOpeningPunct(char c) { return c == '(' || c == '[' || c == '{' || c == '"' || c == '\''; }

// Replaces each single line break inside a paragraph by a space (same byte length) so that ICU,
// which always breaks after a line feed, does not cut hard-wrapped lines into sentences.
// A blank line (two line breaks with only spaces or tabs between) is kept as a paragraph break.
std::string UnwrapSingleLineBreaks(std::string_view text) {
  std::string s(text);
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    if (s[i] != '\n') continue;
    size_t prev = i;
    if (prev > 0 && s[prev - 1] == '\r') --prev;
    size_t a = prev;
    while (a > 0 && (s[a - 1] == ' ' || s[a - 1] == '\t')) --a;
    size_t b = i + 1;
    while (b < n && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
    const bool blank_before = a > 0 && s[a - 1] == '\n';
    const bool blank_after = b < n && s[b] == '\n';
    if (!blank_before && !blank_after && a > 0 && b < n) {
      for (size_t k = prev; k <= i; ++k) s[k] = ' ';
    }
  }
  return s;
}

bool StartsWithCapital(std::string_view text, size_t i) {
  while (i < text.size() && (SpaceLengthAt(text, i) != 0 || IsOpeningPunct(text[i]))) {
    i += std::max<size_t>(1, SpaceLengthAt(text, i));
  }
  if (i >= text.size()) return false;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto len = static_cast<int32_t>(text.size());
  auto pos = static_cast<int32_t>(i);
  UChar32 c;
  U8_NEXT(s, pos, len, c);
  return c >= 0 && (u_isupper(c) || u_istitle(c));
}

// Whether the ICU boundary at `boundary` (start of the next sentence) follows an abbreviation.
bool FollowsAbbreviation(std::string_view text, size_t sentence_start, size_t boundary) {
  size_t end = boundary;
  while (end > sentence_start) {
    const size_t sp = SpaceLengthBefore(text, end);
    if (sp == 0) break;
    end -= sp;
  }
  if (end == sentence_start || text[end - 1] != '.') return false;
  size_t begin = end;
  while (begin > sentence_start && SpaceLengthBefore(text, begin) == 0) --begin;
  while (begin < end && IsOpeningPunct(text[begin])) ++begin;
  switch (ClassifyAbbreviation(text.substr(begin, end - begin))) {
    case AbbreviationKind::kAlwaysMerge: return true;
    case AbbreviationKind::kMergeUnlessCapitalized: return !StartsWithCapital(text, boundary);
    case AbbreviationKind::kNone: return false;
  }
  return false;
}

void AddTrimmedSpan(std::string_view text, size_t start, size_t end, std::vector<SentenceSpan>* out) {
  while (start < end) {
    const size_t sp = SpaceLengthAt(text, start);
    if (sp == 0 || start + sp > end) break;
    start += sp;
  }
  while (end > start) {
    const size_t sp = SpaceLengthBefore(text, end);
    if (sp == 0 || end - sp < start) break;
    end -= sp;
  }
  if (end > start) out->push_back({static_cast<uint32_t>(start), static_cast<uint32_t>(end)});
}

}  // namespace

std::vector<SentenceSpan> SplitSentences(std::string_view text) {
  std::vector<SentenceSpan> spans;
  if (text.empty()) return spans;
  thread_local IcuSentenceIterator it;
  const std::string unwrapped = UnwrapSingleLineBreaks(text);
  UErrorCode status = U_ZERO_ERROR;
  if (it.iter) {
    it.utext = utext_openUTF8(it.utext, unwrapped.data(), static_cast<int64_t>(unwrapped.size()), &status);
    if (U_SUCCESS(status)) it.iter->setText(it.utext, status);
  }
  if (!it.iter || U_FAILURE(status)) {
    AddTrimmedSpan(text, 0, text.size(), &spans);  // no ICU data: the whole text is one sentence
    return spans;
  }
  size_t sentence_start = 0;
  it.iter->first();
  for (int32_t b = it.iter->next(); b != icu::BreakIterator::DONE; b = it.iter->next()) {
    const auto boundary = static_cast<size_t>(b);
    if (boundary < text.size() && FollowsAbbreviation(unwrapped, sentence_start, boundary)) continue;
    AddTrimmedSpan(text, sentence_start, boundary, &spans);
    sentence_start = boundary;
  }
  if (sentence_start < text.size()) AddTrimmedSpan(text, sentence_start, text.size(), &spans);
  return spans;
}

}  // namespace attest
