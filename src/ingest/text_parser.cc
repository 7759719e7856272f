#include "ingest/text_parser.h"

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {

void ParsePlainText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc) {
  constexpr size_t kMaxTitleBytes = 120;
  std::vector<std::string> paragraphs = ingest::SplitParagraphs(text);
  std::string first_line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    first_line = CollapseWhitespace(text.substr(start, end - start), Nbsp::kAsSpace);
    if (!first_line.empty()) break;
    start = end + 1;
  }
  const bool short_title = !first_line.empty() && first_line.size() < kMaxTitleBytes;
  doc->title = short_title ? first_line : std::string(fallback_title);
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    const bool heading = i == 0 && short_title && paragraphs[0] == first_line && paragraphs.size() > 1;
    doc->blocks.push_back(Block{heading ? BlockKind::kHeading : BlockKind::kParagraph, heading ? 1 : 0,
                                std::move(paragraphs[i])});
  }
}

}  // namespace attest
