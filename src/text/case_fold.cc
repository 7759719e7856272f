#include "text/case_fold.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

namespace attest {

void AppendCaseFolded(std::string_view text, std::string* out) {
  bool ascii = true;
  for (unsigned char c : text) {
    if (c >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    // NFKC is the identity on ASCII and case folding is plain lowercasing.
    const size_t old = out->size();
    out->append(text);
    for (size_t i = old; i < out->size(); ++i) {
      char& c = (*out)[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* norm = icu::Normalizer2::getNFKCCasefoldInstance(status);
  icu::UnicodeString source = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (U_FAILURE(status) || norm == nullptr) {
    source.foldCase().toUTF8String(*out);
    return;
  }
  icu::UnicodeString folded = norm->normalize(source, status);
  if (U_FAILURE(status)) {
    source.foldCase().toUTF8String(*out);
    return;
  }
  folded.toUTF8String(*out);
}

}  // namespace attest
