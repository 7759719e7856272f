// Snowball "english" stemming (libstemmer) with a per-thread cache.
//
// Thread-safety: libstemmer handles are not thread-safe, so each thread gets its own handle and its
// own bounded term -> stem cache. The function itself may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// Replaces `*term` (case-folded UTF-8) with its Snowball English stem.
void StemEnglishInPlace(std::string* term);

}  // namespace attest
