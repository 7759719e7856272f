#include "text/word_segmenter.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <array>
#include <memory>

namespace attest {
namespace {

// UAX #29 Word_Break classes of the ASCII characters, as ICU's root rules use them.
// ':' is MidLetter in UAX #29 but ICU's default rules exclude it, so it is Other here; ICU adds '@'
// to ALetter.
enum AsciiClass : uint8_t {
  kOther = 0,
  kLetter,      // ALetter: A-Z a-z
  kDigit,       // Numeric: 0-9
  kExtendNum,   // ExtendNumLet: '_'
  kMidNumLet,   // MidNumLetQ: '.' and '\'' (Single_Quote)
  kMidNum,      // MidNum: ',' ';'
  kAtSign,      // '@': ICU's rules add it to ALetter (keeps e-mail addresses whole), but it is no letter
};

constexpr std::array<uint8_t, 128> MakeAsciiClasses() {
  std::array<uint8_t, 128> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kLetter;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  t['_'] = kExtendNum;
  t['.'] = kMidNumLet;
  t['\''] = kMidNumLet;
  t[','] = kMidNum;
  t[';'] = kMidNum;
  t['@'] = kAtSign;
  return t;
}
constexpr std::array<uint8_t, 128> kAsciiClass = MakeAsciiClasses();

inline bool IsAsciiSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Per-thread ICU word iterator; ICU iterators are not thread-safe.
struct IcuWordIterator {
  std::unique_ptr<icu::BreakIterator> iter;
  UText* utext = nullptr;
  IcuWordIterator() {
    UErrorCode status = U_ZERO_ERROR;
    iter.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) iter.reset();
  }
  ~IcuWordIterator() {
    if (utext != nullptr) utext_close(utext);
  }
};

IcuWordIterator& ThreadWordIterator() {
  thread_local IcuWordIterator it;
  return it;
}

bool ContainsLetterOrDigit(std::string_view text, int32_t begin, int32_t end) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  int32_t i = begin;
  while (i < end) {
    UChar32 c;
    U8_NEXT(s, i, end, c);
    if (c >= 0 && u_isalnum(c)) return true;
  }
  return false;
}

}  // namespace

void SegmentWordsAscii(std::string_view text, uint32_t base, std::vector<WordSpan>* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  // The rules see '@' as ALetter; `alnum` (does the segment hold a real letter or digit) does not.
  auto cls = [&](size_t k) -> uint8_t {
    const uint8_t c = kAsciiClass[s[k] & 0x7F];
    return c == kAtSign ? static_cast<uint8_t>(kLetter) : c;
  };
  auto is_alnum = [&](size_t k) {
    const uint8_t c = kAsciiClass[s[k] & 0x7F];
    return c == kLetter || c == kDigit;
  };
  size_t i = 0;
  while (i < n) {
    uint8_t prev = cls(i);
    if (prev != kLetter && prev != kDigit && prev != kExtendNum) {
      ++i;  // a segment never starts with a Mid* or Other character
      continue;
    }
    const size_t start = i;
    bool alnum = is_alnum(i);
    ++i;
    while (i < n) {
      const uint8_t y = cls(i);
      if (y == kLetter || y == kDigit || y == kExtendNum) {
        // WB5, WB8, WB9, WB10, WB13a, WB13b: letters, digits and '_' never break among themselves.
        alnum |= is_alnum(i);
        prev = y;
        ++i;
        continue;
      }
      if ((y == kMidNumLet || y == kMidNum) && i + 1 < n) {
        const uint8_t z = cls(i + 1);
        // WB6/WB7: ALetter × MidNumLetQ ALetter; WB11/WB12: Numeric × (MidNum|MidNumLetQ) Numeric.
        if ((prev == kLetter && y == kMidNumLet && z == kLetter) || (prev == kDigit && z == kDigit)) {
          alnum |= is_alnum(i + 1);
          prev = z;
          i += 2;
          continue;
        }
      }
      break;
    }
    if (alnum) out->push_back({base + static_cast<uint32_t>(start), base + static_cast<uint32_t>(i)});
  }
}

void SegmentWordsIcu(std::string_view text, uint32_t base, std::vector<WordSpan>* out) {
  if (text.empty()) return;
  IcuWordIterator& it = ThreadWordIterator();
  if (!it.iter) return;  // ICU data missing: nothing sensible to do
  UErrorCode status = U_ZERO_ERROR;
  it.utext = utext_openUTF8(it.utext, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_FAILURE(status)) return;
  it.iter->setText(it.utext, status);
  if (U_FAILURE(status)) return;
  int32_t begin = it.iter->first();
  for (int32_t end = it.iter->next(); end != icu::BreakIterator::DONE; begin = end, end = it.iter->next()) {
    if (it.iter->getRuleStatus() < UBRK_WORD_NONE_LIMIT) continue;
    if (!ContainsLetterOrDigit(text, begin, end)) continue;
    out->push_back({base + static_cast<uint32_t>(begin), base + static_cast<uint32_t>(end)});
  }
}

void SegmentWords(std::string_view text, SegmentationMode mode, std::vector<WordSpan>* out) {
  if (mode == SegmentationMode::kIcuOnly) {
    SegmentWordsIcu(text, 0, out);
    return;
  }
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t pos = 0;
  while (pos < n) {
    size_t k = pos;
    while (k < n && s[k] < 0x80) ++k;
    if (k == n) {
      SegmentWordsAscii(text.substr(pos), static_cast<uint32_t>(pos), out);
      return;
    }
    // The whitespace-delimited piece holding byte k starts at `piece_start`. ICU always breaks
    // before ASCII whitespace and after it when an ASCII character follows, so pieces are independent.
    size_t piece_start = k;
    while (piece_start > pos && !IsAsciiSpace(s[piece_start - 1])) --piece_start;
    if (piece_start > pos) {
      SegmentWordsAscii(text.substr(pos, piece_start - pos), static_cast<uint32_t>(pos), out);
    }
    // Extend the ICU region over following pieces that also contain non-ASCII bytes.
    size_t region_end = k;
    while (region_end < n && !IsAsciiSpace(s[region_end])) ++region_end;
    for (;;) {
      size_t q = region_end;
      while (q < n && IsAsciiSpace(s[q])) ++q;
      size_t r = q;
      bool non_ascii = false;
      while (r < n && !IsAsciiSpace(s[r])) non_ascii |= s[r++] >= 0x80;
      if (!non_ascii || q == n) break;
      region_end = r;
    }
    SegmentWordsIcu(text.substr(piece_start, region_end - piece_start), static_cast<uint32_t>(piece_start),
                    out);
    pos = region_end;
  }
}

uint32_t CountWordSegments(std::string_view text) {
  thread_local std::vector<WordSpan> spans;
  spans.clear();
  SegmentWords(text, SegmentationMode::kAuto, &spans);
  return static_cast<uint32_t>(spans.size());
}

}  // namespace attest
