#include "verify/screen_fold.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include <unordered_map>

namespace attest {
namespace {

// One spoof checker for the process; uspoof_getSkeleton only reads it (thread-safe per ICU).
const USpoofChecker* SpoofChecker() {
  static const USpoofChecker* checker = [] {
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker* c = uspoof_open(&status);
    return U_FAILURE(status) ? nullptr : c;
  }();
  return checker;
}

// The UTS #39 skeleton of one code point, lower-cased, when it is ASCII; "" otherwise.
const std::string& AsciiSkeleton(UChar32 c) {
  thread_local std::unordered_map<UChar32, std::string> cache;
  auto it = cache.find(c);
  if (it != cache.end()) return it->second;
  std::string out;
  if (const USpoofChecker* checker = SpoofChecker()) {
    UChar in[2];
    int32_t in_len = 0;
    UBool error = false;
    U16_APPEND(in, in_len, 2, c, error);
    if (error) return cache.emplace(c, std::string()).first->second;
    UChar skeleton[32];
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = uspoof_getSkeleton(checker, 0, in, in_len, skeleton, 32, &status);
    if (U_SUCCESS(status) && n > 0) {
      for (int32_t i = 0; i < n; ++i) {
        const UChar u = skeleton[i];
        if (u >= 0x80 || u == 0) {
          out.clear();
          break;
        }
        out.push_back(static_cast<char>(u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u));
      }
    }
  }
  return cache.emplace(c, std::move(out)).first->second;
}

bool Invisible(UChar32 c) {
  return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_charType(c) == U_FORMAT_CHAR;
}

// Words that mix Latin letters with look-alike letters of another script, read on the text before
// case folding. A word counts when it has 4+ letters, no letter of another script without an ASCII
// look-alike, at least one Latin and one look-alike letter, and reads as an ordinary word: lower case
// after an optional capital ("ignоre", "Рlеаsе"), or all capitals ("IGNОRE"). Scientific names that
// append a Greek letter to capitals ("PPARγ", "GFRα1", "FcγRs") have neither shape. Letters of the
// Common and Inherited scripts (modifier letters such as the Hawaiian ʻokina, IPA length marks) are
// skipped.
int CountHomoglyphWords(const icu::UnicodeString& text) {
  int words = 0;
  int latin_lower = 0, latin_upper_inner = 0, latin_upper = 0, lookalike = 0, lookalike_lower_or_first = 0,
      lookalike_upper = 0, other = 0, letters = 0;
  auto end_word = [&] {
    const bool lower_shape = latin_lower > 0 && latin_upper_inner == 0 && lookalike_lower_or_first > 0;
    const bool upper_shape = latin_lower == 0 && latin_upper > 0 && lookalike_upper == lookalike;
    if (other == 0 && lookalike > 0 && letters >= 4 && (lower_shape || upper_shape)) ++words;
    latin_lower = latin_upper_inner = latin_upper = lookalike = lookalike_lower_or_first = lookalike_upper = other =
        letters = 0;
  };
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    i += U16_LENGTH(c);
    if (!u_isalpha(c)) {
      if (!u_isdigit(c) && u_charType(c) != U_NON_SPACING_MARK) end_word();
      continue;
    }
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(c, &status);
    if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED) continue;
    const bool first = letters == 0;
    ++letters;
    const bool upper = u_isupper(c) || u_istitle(c);
    if (script == USCRIPT_LATIN) {
      if (upper) {
        ++latin_upper;
        if (!first) ++latin_upper_inner;
      } else {
        ++latin_lower;
      }
    } else if (!AsciiSkeleton(c).empty()) {
      ++lookalike;
      if (upper) ++lookalike_upper;
      if (!upper || first) ++lookalike_lower_or_first;
    } else {
      ++other;
    }
  }
  end_word();
  return words;
}

}  // namespace

ScreenText FoldForScreening(std::string_view text) {
  ScreenText r;
  // 1. Invisible characters out.
  icu::UnicodeString visible;
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t len = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < len;) {
    UChar32 c;
    U8_NEXT(bytes, i, len, c);
    if (c < 0) c = 0xFFFD;
    if (Invisible(c)) {
      ++r.invisible_chars;
      continue;
    }
    visible.append(c);
  }
  // 2-3. NFKC case folding, then canonical decomposition without combining marks.
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  icu::UnicodeString folded = visible;
  if (U_SUCCESS(status)) folded = nfkc_cf->normalize(visible, status);
  if (U_SUCCESS(status)) folded = nfd->normalize(folded, status);
  if (U_FAILURE(status)) folded = visible.foldCase();
  // 4. Look-alikes to ASCII.
  r.homoglyph_words = CountHomoglyphWords(visible);
  std::string& out = r.folded;
  out.reserve(text.size());
  for (int32_t i = 0; i < folded.length();) {
    const UChar32 c = folded.char32At(i);
    i += U16_LENGTH(c);
    if (u_charType(c) == U_NON_SPACING_MARK) continue;
    if (c < 0x80) {
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
      continue;
    }
    const std::string& skeleton = AsciiSkeleton(c);
    if (!skeleton.empty()) {
      out += skeleton;
    } else {
      icu::UnicodeString one(c);
      one.toUTF8String(out);
    }
  }
  return r;
}

}  // namespace attest
