#include "search/format_siblings.h"

#include "common/strings.h"

namespace attest {

std::optional<FormatSibling> FormatSiblingOf(std::string_view doc_id) {
  const size_t slash = doc_id.find_last_of('/');
  const size_t dot = doc_id.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0 || (slash != std::string_view::npos && dot < slash + 2)) {
    return std::nullopt;  // no extension, or a hidden file's name (".profile")
  }
  if (doc_id.find_first_of("?#") != std::string_view::npos) return std::nullopt;
  const std::string ext = AsciiLower(doc_id.substr(dot + 1));
  uint8_t preference;
  if (ext == "html" || ext == "htm" || ext == "xhtml") {
    preference = 0;
  } else if (ext == "md" || ext == "markdown") {
    preference = 1;
  } else if (ext == "txt" || ext == "adoc" || ext == "asciidoc" || ext == "rst") {
    preference = 2;
  } else {
    return std::nullopt;
  }
  return FormatSibling{std::string(doc_id.substr(0, dot)), preference};
}

}  // namespace attest
