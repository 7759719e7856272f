// The parsed form of a source document, independent of its original format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/date.h"

namespace attest {

// kDefinition: a definition list entry's term line or a paragraph of its description (subject =
// the term); kTableRow: one body row of a table with headers (subject = its row header).
enum class BlockKind : uint8_t { kHeading, kParagraph, kListItem, kTable, kCode, kDefinition, kTableRow };

// One structural block of text in reading order. Headings carry a level (1 = h1).
struct Block {
  BlockKind kind = BlockKind::kParagraph;
  int level = 0;
  std::string text;
  // What the block is about when the markup says so: a definition list entry's term(s)
  // ("core.eol", "-i, --interactive"), a table row's header cell. "" = the enclosing heading.
  std::string subject;
};

struct ParsedDocument {
  std::string id;            // stable id: BEIR `_id`, or derived from the canonical URL / path
  std::string url;           // canonical link, or the file path when there is none
  std::string title;
  std::string site;          // host of the canonical URL, or a configured label
  std::optional<DayNumber> published;
  std::optional<DayNumber> updated;
  std::string version;       // version label, e.g. "15" or "15.4"
  std::string source_type;   // e.g. "docs", "release_notes", "wiki", "ticket"
  std::string language = "en";
  std::vector<Block> blocks;
  std::map<std::string, std::string> metadata;  // extra string metadata from the source
};

}  // namespace attest
