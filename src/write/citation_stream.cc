#include "write/citation_stream.h"

#include <algorithm>
#include <cctype>

namespace attest {
namespace {

constexpr size_t kMaxMarkerBytes = 64;
constexpr size_t kMaxMarkerItems = 16;
constexpr size_t kMaxItemDigits = 4;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsTerminal(char c) { return c == '.' || c == '!' || c == '?'; }
bool IsCloser(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

CitationStreamParser::CitationStreamParser(std::vector<std::string> pack_ids) : pack_ids_(std::move(pack_ids)) {
  for (const std::string& id : pack_ids_) by_upper_id_.emplace(Upper(id), id);
}

CitationStreamParser::Scan CitationStreamParser::ScanMarker(std::string_view buf,
                                                            std::vector<std::string>* items) const {
  items->clear();
  if (buf.size() > kMaxMarkerBytes) return Scan::kInvalid;
  size_t i = 1;  // buf[0] == '['
  auto skip_spaces = [&] {
    while (i < buf.size() && buf[i] == ' ') ++i;
  };
  for (;;) {
    skip_spaces();
    if (i == buf.size()) return Scan::kPrefix;
    std::string item;
    if (buf[i] == 'S' || buf[i] == 's') {
      item.push_back('S');
      ++i;
      if (i == buf.size()) return Scan::kPrefix;
    }
    size_t digits = 0;
    while (i < buf.size() && IsDigit(buf[i])) {
      if (++digits > kMaxItemDigits) return Scan::kInvalid;
      item.push_back(buf[i++]);
    }
    if (i == buf.size()) return Scan::kPrefix;
    if (digits == 0) return Scan::kInvalid;
    items->push_back(std::move(item));
    if (items->size() > kMaxMarkerItems) return Scan::kInvalid;
    skip_spaces();
    if (i == buf.size()) return Scan::kPrefix;
    if (buf[i] == ']') return i + 1 == buf.size() ? Scan::kComplete : Scan::kInvalid;
    if (buf[i] != ',') return Scan::kInvalid;
    ++i;
  }
}

void CitationStreamParser::Feed(std::string_view delta, std::vector<CitationStreamEvent>* out) {
  for (char c : delta) Char(c, out);
}

void CitationStreamParser::Finish(std::vector<CitationStreamEvent>* out) {
  // A pending "[..." that never closed is text; re-reading it may open another prefix, so loop.
  while (!marker_.empty()) {
    const std::string held = std::move(marker_);
    marker_.clear();
    TextChar('[', out);
    for (size_t k = 1; k < held.size(); ++k) Char(held[k], out);
  }
  pending_ws_.clear();  // trailing whitespace is dropped
  CloseSentence(out);
}

void CitationStreamParser::Char(char c, std::vector<CitationStreamEvent>* out) {
  if (!marker_.empty()) {
    marker_.push_back(c);
    std::vector<std::string> items;
    switch (ScanMarker(marker_, &items)) {
      case Scan::kPrefix:
        return;
      case Scan::kComplete:
        marker_.clear();
        Marker(items, out);
        return;
      case Scan::kInvalid: {
        const std::string held = std::move(marker_);
        marker_.clear();
        TextChar('[', out);
        for (size_t k = 1; k < held.size(); ++k) Char(held[k], out);
        return;
      }
    }
    return;
  }
  if (c == '[') {
    marker_ = "[";
    return;
  }
  TextChar(c, out);
}

void CitationStreamParser::TextChar(char c, std::vector<CitationStreamEvent>* out) {
  if (IsSpace(c)) {
    pending_ws_.push_back(c);
    if (c == '\n') line_break_ = true;
    if (after_terminal_) gap_ = true;
    return;
  }
  if (!sentence_.empty()) {
    const bool lower = c >= 'a' && c <= 'z';
    if (line_break_ || (after_terminal_ && gap_ && !lower)) CloseSentence(out);
  }
  line_break_ = false;
  if (!pending_ws_.empty()) {
    EmitText(pending_ws_, out);
    if (!sentence_.empty()) sentence_ += pending_ws_;
    pending_ws_.clear();
  }
  const char one[1] = {c};
  EmitText(std::string_view(one, 1), out);
  sentence_.push_back(c);
  after_terminal_ = IsTerminal(c) || (after_terminal_ && !gap_ && IsCloser(c));
  gap_ = false;
}

void CitationStreamParser::Marker(const std::vector<std::string>& items, std::vector<CitationStreamEvent>* out) {
  pending_ws_.clear();  // "battery [1]." -> "battery."; a line break in it still counts
  for (const std::string& item : items) {
    CitationStreamEvent e;
    e.marker = "[" + item + "]";
    const std::string* id = nullptr;
    if (item.front() == 'S') {
      auto it = by_upper_id_.find(item);
      if (it != by_upper_id_.end()) id = &it->second;
    } else {
      const size_t n = static_cast<size_t>(std::stoul(item));  // <= 4 digits: cannot throw
      if (n >= 1 && n <= pack_ids_.size()) id = &pack_ids_[n - 1];
    }
    if (id != nullptr) {
      e.kind = CitationStreamEvent::Kind::kCitation;
      e.source = *id;
      AddCite(*id);
    } else {
      e.kind = CitationStreamEvent::Kind::kDropped;
      dropped_.push_back(e.marker);
    }
    out->push_back(std::move(e));
  }
  if (after_terminal_) gap_ = true;
}

void CitationStreamParser::EmitText(std::string_view s, std::vector<CitationStreamEvent>* out) {
  if (s.empty()) return;
  clean_.append(s);
  if (!out->empty() && out->back().kind == CitationStreamEvent::Kind::kText) {
    out->back().text.append(s);
    return;
  }
  CitationStreamEvent e;
  e.kind = CitationStreamEvent::Kind::kText;
  e.text.assign(s);
  out->push_back(std::move(e));
}

void CitationStreamParser::AddCite(const std::string& id) {
  if (std::find(sentence_cites_.begin(), sentence_cites_.end(), id) == sentence_cites_.end()) {
    sentence_cites_.push_back(id);
  }
}

void CitationStreamParser::CloseSentence(std::vector<CitationStreamEvent>* out) {
  size_t b = 0;
  size_t e = sentence_.size();
  while (b < e && IsSpace(sentence_[b])) ++b;
  while (e > b && IsSpace(sentence_[e - 1])) --e;
  if (b < e) {
    CitationStreamEvent ev;
    ev.kind = CitationStreamEvent::Kind::kSentenceDone;
    ev.text = sentence_.substr(b, e - b);
    ev.cites = std::move(sentence_cites_);
    out->push_back(std::move(ev));
    sentence_cites_.clear();
  }
  sentence_.clear();
  after_terminal_ = false;
  gap_ = false;
  line_break_ = false;
}

}  // namespace attest
