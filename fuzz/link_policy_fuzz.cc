// Fuzz target: the output link policy and the injection screen's link and structure rules on
// arbitrary bytes (invalid UTF-8 included).
// Invariants: SanitizeLinks is idempotent, equals its exhaustive oracle, and no script URL survives it (ScriptLinkScheme of the
// output is empty); the streaming filter, fed the input in pieces whose sizes come from the input's
// own bytes, gives the same text as SanitizeLinks of the whole (HTML included) and so lets no script
// URL through either; every host FindLinks returns is non-empty; the screen returns
// a reason exactly when it flags, with and without a link context, and a context only adds reasons.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "verify/injection_screen.h"
#include "verify/link_screen.h"
#include "verify/url_sanitizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string once = attest::SanitizeLinks(input);
  FUZZ_CHECK(attest::SanitizeLinks(once) == once);
  FUZZ_CHECK(attest::SanitizeLinksExhaustive(input) == once);  // the fast paths change nothing
  FUZZ_CHECK(attest::ScriptLinkScheme(once).empty());

  attest::LinkStreamFilter filter;
  std::string streamed;
  for (size_t i = 0, k = 0; i < input.size(); ++k) {
    const size_t len = 1 + (size > 0 ? data[k % size] % 13 : 0);
    streamed += filter.Feed(input.substr(i, len));
    i += len;
  }
  streamed += filter.Flush();
  FUZZ_CHECK(attest::ScriptLinkScheme(streamed).empty());
  FUZZ_CHECK(streamed == once);

  for (const attest::LinkRef& l : attest::FindLinks(input)) FUZZ_CHECK(!l.host.empty());
  const attest::InjectionFinding plain = attest::ScreenPassage(input);
  FUZZ_CHECK(plain.flagged == !plain.reason.empty());
  attest::LinkCorroboration links;
  links.AddDocument("self", "", input);
  links.AddDocument("other", "https://docs.example.org/", "docs.example.org");
  const attest::InjectionFinding with_links = attest::ScreenPassage(input, attest::ScreenContext{&links, "self"});
  FUZZ_CHECK(with_links.flagged == !with_links.reason.empty());
  FUZZ_CHECK(!plain.flagged || with_links.flagged);  // context only adds reasons
  return 0;
}
