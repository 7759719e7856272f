// The text the injection screen reads: one folded view per passage in which look-alike spellings of
// the same words compare equal.
//
// FoldForScreening(text), in order:
//  1. Invisible characters are removed and counted: default-ignorable code points (zero-width
//     space/joiners, word joiner, BOM, soft hyphen, bidi controls, variation selectors, Unicode tag
//     characters) and other format characters (general category Cf).
//  2. NFKC case folding (ICU NFKC_Casefold): fullwidth, mathematical-alphanumeric and compatibility
//     forms become plain letters ("ＩＧＮＯＲＥ", "𝐈𝐠𝐧𝐨𝐫𝐞" -> "ignore"), and case is folded.
//  3. Canonical decomposition with combining marks dropped ("ìgnöre" -> "ignore").
//  4. Confusables: every remaining non-ASCII code point is replaced by its UTS #39 skeleton
//     (ICU uspoof_getSkeleton) when that skeleton is ASCII, lower-cased: Cyrillic "о" and Greek "ο"
//     -> "o", "і" -> "i", "ɡ" -> "g", "’" -> "'". ASCII is never mapped (UTS #39 would turn "m" into
//     "rn" and "l" into "I", which makes unrelated English words collide). Characters whose skeleton
//     is not ASCII are kept as they are after step 3.
//
// It also counts homoglyph words: words of at least 4 letters that mix Latin letters with letters of
// another script that fold to ASCII ("ignоre" with a Cyrillic о). Genuine text in other scripts
// ("Все права защищены") and Greek symbols in science ("NF-κB", "TGF-β") are not counted.
//
// The folded view is for matching only (it is never shown and offsets do not map back).
// Thread-safety: pure function; the ICU spoof checker it uses is created once and only read.
#pragma once

#include <string>
#include <string_view>

namespace attest {

struct ScreenText {
  std::string folded;       // lower-case, NFKC, marks and invisible characters removed, look-alikes folded
  int invisible_chars = 0;  // default-ignorable and format characters removed in step 1
  int homoglyph_words = 0;  // words mixing Latin letters with look-alike letters of another script
};

ScreenText FoldForScreening(std::string_view text);

}  // namespace attest
