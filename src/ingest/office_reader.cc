// DOCX / ODT body XML to blocks with expat.
#include "ingest/office_reader.h"

#include <expat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/strings.h"

namespace attest {
namespace {

constexpr char kSep = '|';
const std::string kW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main|";
const std::string kMc = "http://schemas.openxmlformats.org/markup-compatibility/2006|";
const std::string kText = "urn:oasis:names:tc:opendocument:xmlns:text:1.0|";
const std::string kOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0|";
constexpr size_t kMaxTitleBytes = 120;

struct Para {
  std::string text;
  int level = 0;  // heading level, 0 = not a heading
  bool title = false;
  bool list = false;
};

const char* Attr(const XML_Char** attrs, const std::string& name) {
  for (int i = 0; attrs[i] != nullptr; i += 2) {
    if (name == attrs[i]) return attrs[i + 1];
  }
  return nullptr;
}

// "Heading1", "heading 2" -> 1, 2; "Title" handled by the caller; other styles -> 0.
int HeadingLevelOfStyle(std::string_view style) {
  std::string s = AsciiLower(style);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  if (s.size() == 8 && s.starts_with("heading") && s[7] >= '1' && s[7] <= '9') return std::min(6, s[7] - '0');
  return 0;
}

class OfficeXml {
 public:
  OfficeXml(OfficeFormat format, ParsedDocument* doc) : format_(format), doc_(doc) {}

  void Start(const std::string& name, const XML_Char** attrs) {
    if (skip_depth_ > 0 || IsSkipped(name)) {
      ++skip_depth_;
      return;
    }
    if (format_ == OfficeFormat::kDocx) {
      StartDocx(name, attrs);
    } else {
      StartOdt(name, attrs);
    }
  }

  void End(const std::string& name) {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return;
    }
    if (format_ == OfficeFormat::kDocx) {
      if (name == kW + "p") Close();
      if (name == kW + "t") --in_t_;
    } else {
      if (name == kText + "p" || name == kText + "h") Close();
      if (name == kText + "list-item") --list_depth_;
    }
  }

  void Text(std::string_view s) {
    if (skip_depth_ > 0 || stack_.empty()) return;
    if (format_ == OfficeFormat::kDocx && in_t_ == 0) return;
    stack_.back().text.append(s);
  }

  void Finish(std::string_view fallback_title) {
    while (!stack_.empty()) Close();
    if (doc_->title.empty()) doc_->title = first_heading_;
    if (doc_->title.empty() && !doc_->blocks.empty() && doc_->blocks[0].text.size() < kMaxTitleBytes) {
      doc_->title = doc_->blocks[0].text;
    }
    if (doc_->title.empty()) doc_->title = std::string(fallback_title);
  }

 private:
  bool IsSkipped(const std::string& name) const {
    if (format_ == OfficeFormat::kDocx) return name == kMc + "Fallback";
    return name == kText + "note" || name == kText + "tracked-changes" || name == kOffice + "annotation";
  }

  void StartDocx(const std::string& name, const XML_Char** attrs) {
    if (name == kW + "p") {
      stack_.emplace_back();
      return;
    }
    if (name == kW + "t") {
      ++in_t_;
      return;
    }
    if (stack_.empty()) return;
    Para& p = stack_.back();
    if (name == kW + "tab" || name == kW + "br" || name == kW + "cr") {
      p.text.push_back(' ');
    } else if (name == kW + "noBreakHyphen") {
      p.text.push_back('-');
    } else if (name == kW + "pStyle") {
      const char* val = Attr(attrs, kW + "val");
      if (val == nullptr) return;
      if (AsciiLower(val) == "title") {
        p.title = true;
        p.level = 1;
      } else if (int level = HeadingLevelOfStyle(val); level > 0) {
        p.level = level;
      }
    } else if (name == kW + "outlineLvl") {
      const char* val = Attr(attrs, kW + "val");
      const int level = val != nullptr ? std::atoi(val) + 1 : 0;
      if (level >= 1 && level <= 9 && p.level == 0) p.level = std::min(6, level);  // 9 = body text
    } else if (name == kW + "numPr") {
      p.list = true;
    }
  }

  void StartOdt(const std::string& name, const XML_Char** attrs) {
    if (name == kText + "p" || name == kText + "h") {
      Para p;
      if (name == kText + "h") {
        const char* lvl = Attr(attrs, kText + "outline-level");
        p.level = std::clamp(lvl != nullptr ? std::atoi(lvl) : 1, 1, 6);
      }
      const char* style = Attr(attrs, kText + "style-name");
      if (style != nullptr && AsciiLower(style) == "title") {
        p.title = true;
        p.level = 1;
      }
      p.list = list_depth_ > 0;
      stack_.push_back(std::move(p));
      return;
    }
    if (name == kText + "list-item") ++list_depth_;
    if (stack_.empty()) return;
    if (name == kText + "s") {
      const char* c = Attr(attrs, kText + "c");
      stack_.back().text.append(static_cast<size_t>(std::clamp(c != nullptr ? std::atoi(c) : 1, 1, 100)), ' ');
    } else if (name == kText + "tab" || name == kText + "line-break") {
      stack_.back().text.push_back(' ');
    }
  }

  void Close() {
    if (stack_.empty()) return;
    Para p = std::move(stack_.back());
    stack_.pop_back();
    std::string text = CollapseWhitespace(p.text, Nbsp::kAsSpace);
    if (text.empty()) return;
    if (p.title && doc_->title.empty()) doc_->title = text;
    if (p.level > 0 && first_heading_.empty()) first_heading_ = text;
    Block b;
    b.kind = p.level > 0 ? BlockKind::kHeading : p.list ? BlockKind::kListItem : BlockKind::kParagraph;
    b.level = p.level;
    b.text = std::move(text);
    doc_->blocks.push_back(std::move(b));
  }

  OfficeFormat format_;
  ParsedDocument* doc_;
  std::vector<Para> stack_;  // open paragraphs (a text box or note nests one inside another)
  int skip_depth_ = 0;
  int in_t_ = 0;
  int list_depth_ = 0;
  std::string first_heading_;
};

struct ParserState {
  XML_Parser parser;
  OfficeXml* xml;
  const char* refused = nullptr;
};

void RefuseDoctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  auto* s = static_cast<ParserState*>(data);
  s->refused = "a DTD";
  XML_StopParser(s->parser, XML_FALSE);
}

void RefuseEntity(void* data, const XML_Char*, int, const XML_Char*, int, const XML_Char*, const XML_Char*,
                  const XML_Char*, const XML_Char*) {
  auto* s = static_cast<ParserState*>(data);
  s->refused = "an entity declaration";
  XML_StopParser(s->parser, XML_FALSE);
}

int RefuseExternal(XML_Parser, const XML_Char*, const XML_Char*, const XML_Char*, const XML_Char*) {
  return XML_STATUS_ERROR;
}

}  // namespace

Status ParseOfficeXml(std::string_view xml, OfficeFormat format, std::string_view fallback_title,
                      ParsedDocument* doc) {
  const char* kind = format == OfficeFormat::kDocx ? "DOCX" : "ODT";
  std::unique_ptr<std::remove_pointer_t<XML_Parser>, void (*)(XML_Parser)> parser(XML_ParserCreateNS(nullptr, kSep),
                                                                                   &XML_ParserFree);
  if (!parser) return Status::Internal("expat: cannot create a parser");
  OfficeXml handler(format, doc);
  ParserState state{parser.get(), &handler};
  XML_SetUserData(parser.get(), &state);
  XML_SetParamEntityParsing(parser.get(), XML_PARAM_ENTITY_PARSING_NEVER);
  XML_SetStartDoctypeDeclHandler(parser.get(), &RefuseDoctype);
  XML_SetEntityDeclHandler(parser.get(), &RefuseEntity);
  XML_SetExternalEntityRefHandler(parser.get(), &RefuseExternal);
  XML_SetElementHandler(
      parser.get(),
      [](void* data, const XML_Char* name, const XML_Char** attrs) {
        static_cast<ParserState*>(data)->xml->Start(name, attrs);
      },
      [](void* data, const XML_Char* name) { static_cast<ParserState*>(data)->xml->End(name); });
  XML_SetCharacterDataHandler(parser.get(), [](void* data, const XML_Char* s, int len) {
    static_cast<ParserState*>(data)->xml->Text(std::string_view(s, static_cast<size_t>(len)));
  });
  // XML_Parse takes an int length: feed large bodies in pieces.
  constexpr size_t kPiece = 1 << 20;
  for (size_t off = 0; off == 0 || off < xml.size(); off += kPiece) {
    const size_t n = std::min(kPiece, xml.size() - off);
    const bool last = off + n >= xml.size();
    if (XML_Parse(parser.get(), xml.data() + off, static_cast<int>(n), last) != XML_STATUS_OK) {
      if (state.refused != nullptr) {
        return Status::InvalidArgument(std::string(kind) + " XML has " + state.refused + " (refused)");
      }
      return Status::Corruption(std::string(kind) + " XML error at line " +
                                std::to_string(XML_GetCurrentLineNumber(parser.get())) + ": " +
                                XML_ErrorString(XML_GetErrorCode(parser.get())));
    }
    if (last) break;
  }
  handler.Finish(fallback_title);
  return Status::Ok();
}

Status ReadOfficeDocument(const std::filesystem::path& path, OfficeFormat format, const ingest::ZipLimits& limits,
                          std::string_view fallback_title, ParsedDocument* doc) {
  const std::string entry = format == OfficeFormat::kDocx ? "word/document.xml" : "content.xml";
  Result<std::string> xml = ingest::ReadZipEntry(path, entry, limits);
  if (!xml.ok()) return xml.status();
  return ParseOfficeXml(*xml, format, fallback_title, doc);
}

}  // namespace attest
