// Fuzz target: the crawler's URL parser, reference resolution and canonical form on arbitrary bytes.
// Invariants: a parse either gives a URL or a named error with an offset inside the input; a parsed
// URL re-parses from its Spec() to itself (normalization is idempotent) and its serialization has no
// control character, space or non-ASCII byte; the canonical form parses and is its own canonical
// form; resolving the input as a link against a fixed base obeys the same rules; RemoveDotSegments
// leaves no "." or ".." segment in an absolute path.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "crawl/url.h"
#include "fuzz_check.h"

namespace {

void CheckUrl(const attest::Url& url) {
  const std::string spec = url.Spec();
  for (char c : spec) {
    const auto u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u > 0x20 && u < 0x7F);
  }
  FUZZ_CHECK(!url.host.empty());
  FUZZ_CHECK(!url.path.empty() && url.path[0] == '/');
  const attest::UrlParse again = attest::ParseUrl(spec);
  if (!again.ok()) std::fprintf(stderr, "%.200s: %s\n", spec.c_str(), again.error.ToString().c_str());
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again.url == url);
  const std::string canonical = attest::CanonicalUrl(url);
  const attest::UrlParse c = attest::ParseUrl(canonical);
  FUZZ_CHECK(c.ok());
  FUZZ_CHECK(attest::CanonicalUrl(*c.url) == canonical);
  FUZZ_CHECK(attest::SameSite(url, *c.url));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const attest::UrlParse p = attest::ParseUrl(input);
  if (p.ok()) {
    CheckUrl(*p.url);
  } else {
    FUZZ_CHECK(p.error.offset <= input.size() || p.error.code == attest::UrlErrorCode::kTooLong);
    FUZZ_CHECK(!attest::UrlErrorName(p.error.code).empty());
  }
  static const attest::Url base = *attest::ParseUrl("https://docs.example.org/15/a/b.html?x=1").url;
  const attest::UrlParse r = attest::ResolveUrl(base, input);
  if (r.ok()) CheckUrl(*r.url);
  if (!input.empty() && input[0] == '/') {
    const std::string out = attest::RemoveDotSegments(input);
    FUZZ_CHECK(out.find("/./") == std::string::npos && out.find("/../") == std::string::npos);
    FUZZ_CHECK(!out.ends_with("/.") && !out.ends_with("/.."));
  }
  return 0;
}
