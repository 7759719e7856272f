// NFKC case folding (ICU Normalizer2 NFKC_Casefold) with an ASCII fast path.
// Thread-safe (the ICU normalizer instance is immutable and shared).
#pragma once

#include <string>
#include <string_view>

namespace attest {

// Appends the NFKC case fold of `text` to `out`. Invalid UTF-8 becomes U+FFFD.
void AppendCaseFolded(std::string_view text, std::string* out);

}  // namespace attest
