// One document published in several formats: a rendered HTML page and the source it was built
// from (git-rebase.html and git-rebase.txt, guide.html and guide.md), side by side in a folder.
// A search that collapses chunks to documents shows such siblings once, as the rendered page:
// they hold the same text, and listing both pushes another document out of the top k.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attest {

struct FormatSibling {
  std::string stem;     // the path without its extension: siblings share it
  uint8_t preference;   // lower is preferred: 0 rendered HTML, 1 Markdown, 2 plain text / markup sources
};

// The sibling key of a document id that is a file path with a text format extension (case-insensitive:
// .html .htm .xhtml, .md .markdown, .txt .adoc .asciidoc .rst); nullopt for any other id (BEIR ids,
// URLs with a query, paths of other formats), which are never folded.
std::optional<FormatSibling> FormatSiblingOf(std::string_view doc_id);

}  // namespace attest
