// xml:base resolution on the generic RFC 3986 resolver of the URL identity (crawl/url.h).
#include "crawl/uri_reference.h"

#include "crawl/url.h"

namespace attest {

std::optional<std::string> ResolveUriReference(std::string_view base, std::string_view reference) {
  const UriReference ref = SplitUriReference(reference);
  const UriReference b = SplitUriReference(base);
  // §5.2.1: the base must be absolute, unless the reference is itself (then it is taken as is,
  // with its dot segments removed, §5.2.2).
  if (!ref.scheme && !b.scheme) return std::nullopt;
  return RecomposeUri(ResolveReference(b, ref));
}

}  // namespace attest
