#include "crawl/link_header.h"

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

bool IsTchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

class LinkCursor {
 public:
  explicit LinkCursor(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void Skip() { ++i_; }
  // OWS, and line breaks between joined field lines; true when a line break was among them.
  bool Whitespace() {
    bool line_break = false;
    while (!Done() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\r' || Peek() == '\n')) {
      line_break = line_break || Peek() == '\r' || Peek() == '\n';
      ++i_;
    }
    return line_break;
  }
  std::string Token() {
    const size_t start = i_;
    while (!Done() && IsTchar(Peek())) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  // After the opening quote; false when the closing quote is missing.
  bool QuotedString(std::string* out) {
    while (!Done()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (c == '\\' && !Done()) {
        out->push_back(s_[i_++]);
      } else {
        out->push_back(c);
      }
    }
    return false;
  }
  // After "<": the text up to ">", false when there is none.
  bool Target(std::string* out) {
    const size_t close = s_.find('>', i_);
    if (close == std::string_view::npos) return false;
    *out = std::string(Trim(s_.substr(i_, close - i_)));
    i_ = close + 1;
    return true;
  }
  // Past the next comma that is outside a quoted string and outside "<...>".
  void SkipValue() {
    bool quoted = false, angled = false;
    while (!Done()) {
      const char c = s_[i_++];
      if (quoted) {
        if (c == '\\' && !Done()) ++i_;
        else if (c == '"') quoted = false;
      } else if (angled) {
        if (c == '>') angled = false;
      } else if (c == '"') {
        quoted = true;
      } else if (c == '<') {
        angled = true;
      } else if (c == ',') {
        return;
      }
    }
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// The parameters after a target, up to the comma that ends the link-value; false when they do not
// follow the grammar (the cursor is then past that link-value).
bool ReadParams(LinkCursor& c, LinkValue* link) {
  while (true) {
    const bool line_break = c.Whitespace();
    if (c.Done()) return true;
    if (c.Peek() == ',') {
      c.Skip();
      return true;
    }
    if (line_break && c.Peek() == '<') return true;  // the next field line
    if (c.Peek() != ';') break;
    c.Skip();
    c.Whitespace();
    if (c.Peek() == ';' || c.Peek() == ',' || c.Done()) continue;  // an empty parameter
    std::string name = AsciiLower(c.Token());
    if (name.empty()) break;
    c.Whitespace();
    std::string value;
    if (c.Peek() == '=') {
      c.Skip();
      c.Whitespace();
      if (c.Peek() == '"') {
        c.Skip();
        if (!c.QuotedString(&value)) return false;
      } else {
        value = c.Token();
      }
    }
    link->params.emplace_back(std::move(name), std::move(value));
  }
  c.SkipValue();
  return false;
}

}  // namespace

std::optional<std::string_view> LinkValue::Param(std::string_view name) const {
  for (const auto& [n, v] : params) {
    if (ingest::EqualsIgnoreCase(n, name)) return std::string_view(v);
  }
  return std::nullopt;
}

bool LinkValue::HasRel(std::string_view relation) const {
  const std::optional<std::string_view> rel = Param("rel");
  if (!rel) return false;
  size_t i = 0;
  const std::string_view s = *rel;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i && ingest::EqualsIgnoreCase(s.substr(i, j - i), relation)) return true;
    i = j;
  }
  return false;
}

std::vector<LinkValue> ParseLinkHeader(std::string_view field_value, size_t max_links) {
  std::vector<LinkValue> out;
  LinkCursor c(field_value);
  while (out.size() < max_links) {
    c.Whitespace();
    while (c.Peek() == ',') {  // empty list elements (RFC 9110 §5.6.1)
      c.Skip();
      c.Whitespace();
    }
    if (c.Done()) break;
    if (c.Peek() != '<') {
      c.SkipValue();
      continue;
    }
    c.Skip();
    LinkValue link;
    if (!c.Target(&link.target)) break;
    if (ReadParams(c, &link)) out.push_back(std::move(link));
  }
  return out;
}

}  // namespace attest
