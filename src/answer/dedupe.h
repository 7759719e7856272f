// Duplicate sources: the same page under /docs/current/ and /docs/17/, a mirror, tracking
// parameters. Two results are one source when their canonical URLs are equal or their content
// fingerprints are (docs/answer.md, "Deduplication").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// Lowercased scheme and host (a leading "www." dropped), no fragment, no tracking parameters
// (utm_*, gclid, fbclid, mc_cid, mc_eid, ref, source) and the rest sorted, no trailing slash, and
// version path segments ("current", "stable", "latest", "devel", and numbers such as "17" or "15.4")
// replaced by "{v}" so that /docs/current/x and /docs/17/x compare equal. "" for "".
std::string CanonicalUrl(std::string_view url);

// A fingerprint of the text: SHA-256 (16 hex digits) of its case-folded words joined by single
// spaces, so whitespace, case and punctuation differences do not matter.
std::string ContentFingerprint(std::string_view text);

}  // namespace attest
