// ExtractPdfText / ParsePdfText: pdftotext in a child process, then pages to blocks.
#include "ingest/pdf_reader.h"

#include <map>
#include <vector>

#include "common/strings.h"
#include "ingest/child_process.h"
#include "ingest/text_parser.h"

namespace attest {
namespace {

struct Page {
  std::vector<std::string> lines;  // as printed, without '\n'
};

std::vector<Page> SplitPages(std::string_view text) {
  std::vector<Page> pages;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\f', start);
    if (end == std::string_view::npos) end = text.size();
    Page page;
    const std::string_view body = text.substr(start, end - start);
    size_t ls = 0;
    while (ls < body.size()) {
      size_t le = body.find('\n', ls);
      if (le == std::string_view::npos) le = body.size();
      page.lines.emplace_back(body.substr(ls, le - ls));
      ls = le + 1;
    }
    pages.push_back(std::move(page));
    start = end + 1;
  }
  return pages;
}

// Index of the first (from_end = false) or last non-blank line, or -1.
int EdgeLine(const Page& page, bool from_end) {
  const int n = static_cast<int>(page.lines.size());
  for (int k = 0; k < n; ++k) {
    const int i = from_end ? n - 1 - k : k;
    if (!Trim(page.lines[i]).empty()) return i;
  }
  return -1;
}

// "7", "- 7 -", "7/12": digits with dashes, slashes and spaces only.
bool IsPageNumber(std::string_view line) {
  line = Trim(line);
  if (line.empty() || line.size() > 12) return false;
  bool digit = false;
  for (char c : line) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != ' ' && c != '-' && c != '/') {
      return false;
    }
  }
  return digit;
}

// Drops bare page numbers and running headers/footers at the top and bottom of pages. Returns
// the running header found most often at the top of pages ("" if none): usually the title.
std::string DropFurniture(std::vector<Page>* pages) {
  std::string header;
  int header_count = 0;
  for (int round = 0; round < 2; ++round) {  // twice: a footer may sit above a page number
    for (bool from_end : {false, true}) {
      std::map<std::string, int> count;
      for (const Page& p : *pages) {
        const int i = EdgeLine(p, from_end);
        if (i >= 0) ++count[std::string(Trim(p.lines[i]))];
      }
      for (Page& p : *pages) {
        const int i = EdgeLine(p, from_end);
        if (i < 0) continue;
        const std::string line(Trim(p.lines[i]));
        const int seen = count[line];
        const bool running = pages->size() >= 3 && seen >= 3 && 2 * seen >= static_cast<int>(pages->size());
        if (running && !from_end && round == 0 && seen > header_count && !IsPageNumber(line)) {
          header = line;
          header_count = seen;
        }
        if (running || (pages->size() >= 2 && IsPageNumber(line))) p.lines.erase(p.lines.begin() + i);
      }
    }
  }
  return header;
}

// A paragraph that is only a list bullet: pdftotext prints the bullet column apart from the text.
bool IsLoneBullet(std::string_view text) {
  for (std::string_view bullet : {"\u2022", "\u25e6", "\u25aa", "\u2023", "\u2043", "\u2013", "-", "*", "\u00b7"}) {
    if (text == bullet) return true;
  }
  return false;
}

std::string JoinLines(const Page& page) {
  std::string out;
  for (const std::string& l : page.lines) {
    out += l;
    out.push_back('\n');
  }
  return out;
}

}  // namespace

Result<std::string> ExtractPdfText(const std::filesystem::path& path, const PdfLimits& limits,
                                   uint64_t max_text_bytes) {
  const std::optional<std::string> program = ingest::FindProgram(limits.pdftotext);
  if (!program) {
    return Status::Unsupported("PDF support needs pdftotext (Debian package poppler-utils); \"" + limits.pdftotext +
                               "\" was not found");
  }
  // An absolute path: a file name starting with '-' must not read as an option.
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::absolute(path, ec);
  ingest::ChildLimits child;
  child.max_stdout_bytes = max_text_bytes;
  child.timeout_ms = limits.timeout_ms;
  child.cpu_seconds = limits.cpu_seconds;
  child.max_memory_bytes = limits.max_memory_bytes;
  return ingest::RunCapturingStdout(
      {*program, "-enc", "UTF-8", "-eol", "unix", ec ? path.string() : file.string(), "-"}, child);
}

void ParsePdfText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc) {
  std::vector<Page> pages = SplitPages(text);
  const std::string running_header = DropFurniture(&pages);
  int nonblank_pages = 0;
  for (const Page& p : pages) nonblank_pages += EdgeLine(p, false) >= 0 ? 1 : 0;
  bool titled = false;
  for (size_t n = 0; n < pages.size(); ++n) {
    if (EdgeLine(pages[n], false) < 0) continue;
    ParsedDocument page;
    ParsePlainText(JoinLines(pages[n]), fallback_title, &page);
    if (!titled) {
      doc->title = page.title;
      titled = true;
    } else if (!page.blocks.empty() && page.blocks[0].kind == BlockKind::kHeading) {
      page.blocks[0].kind = BlockKind::kParagraph;  // a page's first line is not a title
      page.blocks[0].level = 0;
    }
    if (nonblank_pages > 1) {
      doc->blocks.push_back(Block{BlockKind::kHeading, 1, "Page " + std::to_string(n + 1), ""});
    }
    for (Block& b : page.blocks) {
      if (!IsLoneBullet(b.text)) doc->blocks.push_back(std::move(b));
    }
  }
  if (!titled) doc->title = std::string(fallback_title);
  if (!running_header.empty() && running_header.size() < 120) doc->title = running_header;
}

}  // namespace attest
