// Duplicate sources: the same page under /docs/current/ and /docs/17/, a mirror, tracking
// parameters. Two results are one source when their canonical URLs are equal or their content
// fingerprints are (docs/answer.md, "Deduplication").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// Lowercased scheme and host (a leading "www." dropped, http taken as https), no fragment, no
// tracking parameters (utm_*, gclid, fbclid, mc_cid, mc_eid, ref, source) and the rest sorted, no
// trailing slash or index.html. A moving path segment ("current", "stable", "latest") is replaced by
// `version`, the version the document described when it was fetched, so /docs/current/x of a
// version-17 page equals /docs/17/x; without a version it stays (a page of another version is
// another document). "" for "".
std::string CanonicalUrl(std::string_view url, std::string_view version = {});

// A fingerprint of the text: SHA-256 (16 hex digits) of its case-folded words joined by single
// spaces, so whitespace, case and punctuation differences do not matter.
std::string ContentFingerprint(std::string_view text);

}  // namespace attest
