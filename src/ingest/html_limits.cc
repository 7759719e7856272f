// The HTML pre-scan: a tokenizer that only finds tags (and reads attributes as the HTML tokenizer
// does, so quoted values may hold '>'), feeding html_shape_model.h, which replays the tree
// construction (docs/ingestion.md, "Limits"). Linear in the input whatever the markup.
#include "ingest/html_limits.h"

#include <gumbo.h>

#include <algorithm>
#include <string>

#include "ingest/html_shape_model.h"
#include "ingest/html_tag_set.h"

namespace attest {
namespace {

using ingest::IsHtmlSpace;
using ingest::TagId;

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

class ShapeScanner {
 public:
  ShapeScanner(std::string_view s, const HtmlLimits* limits) : s_(s), limits_(limits), model_(limits) {}

  // Runs the scan; returns the limit that stopped it (kNone: the whole input was read).
  ingest::HtmlLimitHit Run() {
    while (pos_ < s_.size() && exceeded_ == ingest::HtmlLimitHit::kNone &&
           model_.exceeded() == ingest::HtmlLimitHit::kNone) {
      Step();
    }
    return exceeded_ != ingest::HtmlLimitHit::kNone ? exceeded_ : model_.exceeded();
  }

  HtmlShape shape() const {
    HtmlShape s = model_.shape();
    s.max_attributes = max_attributes_;
    s.max_attribute_bytes = max_attribute_bytes_;
    return s;
  }
  size_t stopped_at() const { return exceeded_ != ingest::HtmlLimitHit::kNone ? stopped_at_ : model_.stopped_at(); }

 private:
  void Stop(ingest::HtmlLimitHit why, size_t at) {
    exceeded_ = why;
    stopped_at_ = at;
    pos_ = s_.size();
  }

  void Step() {
    const size_t lt = s_.find('<', pos_);
    if (lt == std::string_view::npos) {
      model_.Text(s_.substr(pos_), pos_);
      pos_ = s_.size();
      return;
    }
    if (lt > pos_) model_.Text(s_.substr(pos_, lt - pos_), pos_);
    pos_ = lt;
    const char c1 = At(lt + 1);
    if (c1 == '!') {
      if (s_.substr(lt, 4) == "<!--") return Comment();
      if (model_.ForeignContent() && s_.substr(lt, 9) == "<![CDATA[") return SkipPast("]]>", lt + 9);
      return SkipPast(">", lt + 2);
    }
    if (c1 == '?') return SkipPast(">", lt + 2);
    if (c1 == '/') {
      const char c2 = At(lt + 2);
      if (IsAlpha(c2)) return Tag(lt + 2, /*end=*/true);
      if (c2 == '>') {
        pos_ = lt + 3;
        return;
      }
      return SkipPast(">", lt + 2);
    }
    if (IsAlpha(c1)) return Tag(lt + 1, /*end=*/false);
    pos_ = lt + 1;  // a literal '<'
    model_.Text("<", lt);
  }

  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  void SkipPast(std::string_view terminator, size_t from) {
    const size_t at = s_.find(terminator, from);
    pos_ = at == std::string_view::npos ? s_.size() : at + terminator.size();
  }

  // "<!--" ... "-->" (or "--!>"; "<!-->" and "<!--->" are empty comments).
  void Comment() {
    size_t p = pos_ + 4;
    if (At(p) == '>') {
      pos_ = p + 1;
      return;
    }
    if (At(p) == '-' && At(p + 1) == '>') {
      pos_ = p + 2;
      return;
    }
    for (;;) {
      const size_t d = s_.find("--", p);
      if (d == std::string_view::npos) {
        pos_ = s_.size();
        return;
      }
      if (At(d + 2) == '>') {
        pos_ = d + 3;
        return;
      }
      if (At(d + 2) == '!' && At(d + 3) == '>') {
        pos_ = d + 4;
        return;
      }
      p = d + 1;
    }
  }

  // A start or end tag whose name starts at `name_at`. Attributes are read as the HTML tokenizer
  // reads them (quoted values may hold '>'). A tag cut off by the end of input is dropped.
  void Tag(size_t name_at, bool end) {
    size_t i = name_at;
    while (i < s_.size() && !IsHtmlSpace(s_[i]) && s_[i] != '/' && s_[i] != '>') ++i;
    const std::string_view name = s_.substr(name_at, i - name_at);
    size_t attributes = 0;
    bool self_closing = false;
    uint64_t attr_hash = 1469598103934665603ull;
    for (;;) {
      while (i < s_.size() && (IsHtmlSpace(s_[i]) || s_[i] == '/')) {
        self_closing = s_[i] == '/' && At(i + 1) == '>';
        ++i;
      }
      if (i >= s_.size()) return Finish();
      if (s_[i] == '>') {
        ++i;
        break;
      }
      const size_t attr_at = i;
      ++i;  // the first character of a name may be anything, '=' included
      while (i < s_.size() && !IsHtmlSpace(s_[i]) && s_[i] != '/' && s_[i] != '>' && s_[i] != '=') ++i;
      size_t j = i;
      while (j < s_.size() && IsHtmlSpace(s_[j])) ++j;
      if (j < s_.size() && s_[j] == '=') {
        ++j;
        while (j < s_.size() && IsHtmlSpace(s_[j])) ++j;
        if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'')) {
          const size_t close = s_.find(s_[j], j + 1);
          if (close == std::string_view::npos) return Finish();
          i = close + 1;
        } else {
          while (j < s_.size() && !IsHtmlSpace(s_[j]) && s_[j] != '>') ++j;
          i = j;
        }
      }
      ++attributes;
      const size_t bytes = i - attr_at;
      for (size_t k = attr_at; k < i; ++k) attr_hash = (attr_hash ^ static_cast<uint8_t>(Lower(s_[k]))) * 1099511628211ull;
      attr_hash = (attr_hash ^ 0xff) * 1099511628211ull;
      max_attribute_bytes_ = std::max(max_attribute_bytes_, bytes);
      max_attributes_ = std::max(max_attributes_, attributes);
      if (limits_ && bytes > limits_->max_attribute_bytes) return Stop(ingest::HtmlLimitHit::kAttributeBytes, attr_at);
      if (limits_ && attributes > limits_->max_attributes) return Stop(ingest::HtmlLimitHit::kAttributes, attr_at);
    }
    const size_t tag_at = name_at - (end ? 2 : 1);
    pos_ = i;
    // gumbo matches HTML elements by their enum: every unknown name is the same tag, GUMBO_TAG_UNKNOWN.
    const TagId tag = gumbo_tagn_enum(name.data(), static_cast<unsigned>(name.size()));
    if (end) return model_.EndTag(tag, name, tag_at);
    switch (model_.StartTag(tag, name, attr_hash, self_closing, tag_at)) {
      case ingest::HtmlShapeModel::Next::kMarkup:
        break;
      case ingest::HtmlShapeModel::Next::kRawText:
        SkipRawText(gumbo_normalized_tagname(static_cast<GumboTag>(tag)));
        break;
      case ingest::HtmlShapeModel::Next::kText:
        pos_ = s_.size();
        break;
    }
  }

  void Finish() { pos_ = s_.size(); }

  // Skips raw text up to "</name" followed by a space, '/' or '>'.
  void SkipRawText(std::string_view name) {
    size_t p = pos_;
    for (;;) {
      const size_t at = s_.find("</", p);
      if (at == std::string_view::npos || at + 2 + name.size() > s_.size()) {
        pos_ = s_.size();
        return;
      }
      bool match = true;
      for (size_t k = 0; k < name.size() && match; ++k) match = Lower(s_[at + 2 + k]) == name[k];
      const char after = At(at + 2 + name.size());
      if (match && (IsHtmlSpace(after) || after == '/' || after == '>')) {
        pos_ = at;
        return;
      }
      p = at + 2;
    }
  }

  std::string_view s_;
  const HtmlLimits* limits_;
  ingest::HtmlShapeModel model_;
  size_t pos_ = 0;
  size_t max_attributes_ = 0;
  size_t max_attribute_bytes_ = 0;
  ingest::HtmlLimitHit exceeded_ = ingest::HtmlLimitHit::kNone;
  size_t stopped_at_ = 0;
};

}  // namespace

HtmlShape MeasureHtmlShape(std::string_view html) {
  ShapeScanner scanner(html, nullptr);
  scanner.Run();
  return scanner.shape();
}

Status CheckHtmlShape(std::string_view html, const HtmlLimits& limits) {
  if (html.size() > limits.max_bytes) {
    return Status::ResourceExhausted("html: document is " + std::to_string(html.size()) + " bytes, over " +
                                     std::to_string(limits.max_bytes) + " (limit html.max_bytes)");
  }
  ShapeScanner scanner(html, &limits);
  const ingest::HtmlLimitHit why = scanner.Run();
  const std::string at = " at byte " + std::to_string(scanner.stopped_at());
  switch (why) {
    case ingest::HtmlLimitHit::kNone:
      return Status::Ok();
    case ingest::HtmlLimitHit::kDepth:
      return Status::ResourceExhausted("html: elements nest deeper than " + std::to_string(limits.max_depth) + at +
                                       " (limit html.max_depth)");
    case ingest::HtmlLimitHit::kElements:
      return Status::ResourceExhausted("html: more than " + std::to_string(limits.max_elements) + " elements" + at +
                                       " (limit html.max_elements)");
    case ingest::HtmlLimitHit::kAttributes:
      return Status::ResourceExhausted("html: more than " + std::to_string(limits.max_attributes) +
                                       " attributes on one tag" + at + " (limit html.max_attributes)");
    case ingest::HtmlLimitHit::kAttributeBytes:
      return Status::ResourceExhausted("html: an attribute longer than " + std::to_string(limits.max_attribute_bytes) +
                                       " bytes" + at + " (limit html.max_attribute_bytes)");
  }
  return Status::Ok();
}

uint64_t HtmlParseBudgetMs(const HtmlLimits& limits, uint64_t bytes) {
  if (limits.parse_ms_base == 0 && limits.parse_ms_per_mib == 0) return 0;
  return limits.parse_ms_base + (bytes * limits.parse_ms_per_mib >> 20);
}

}  // namespace attest
