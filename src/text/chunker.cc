#include "text/chunker.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/strings.h"
#include "text/sentence_splitter.h"
#include "text/word_segmenter.h"

namespace attest {
namespace {

// How a piece is attached to the piece before it in the same chunk.
enum class Join : uint8_t { kNewBlock, kSpace, kNewline };

// Where a piece comes from: its block, the span role and subject it records, and its definition
// entry (a run of consecutive blocks with the same non-empty subject), which chunking keeps whole.
struct Origin {
  int32_t block = -1;  // index into the document's blocks; -1 = text the chunker adds (a bridge heading)
  SpanRole role = SpanRole::kText;
  std::string subject;
  uint32_t entry = 0;  // 1-based entry number; 0 = not part of an entry
};

struct Piece {
  std::string text;
  uint32_t tokens = 0;
  Join join = Join::kNewBlock;
  bool prose = true;       // sentences may be split off it and used for overlap
  bool splittable = true;  // prose that has not been split into sentences yet
  size_t section = 0;      // index into the section table
  Origin origin;
};

struct ChunkDraft {
  size_t section = 0;
  size_t last_section = 0;  // section of the last piece (a short chunk may run into the next sections)
  std::vector<Piece> pieces;
  uint32_t tokens = 0;
  uint32_t overlap_tokens = 0;  // tokens of the leading overlap piece, if any
  bool has_body = false;        // holds at least one piece that is not overlap
};

std::string JoinPath(const std::vector<std::string>& path, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < path.size(); ++i) {
    if (!out.empty()) out += " > ";
    out += path[i];
  }
  return out;
}

// Splits `text` into pieces of at most `window` words each, cutting before a word start.
std::vector<std::string> SplitOnWords(std::string_view text, uint32_t window) {
  std::vector<WordSpan> words;
  SegmentWords(text, SegmentationMode::kAuto, &words);
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t w = window; w < words.size(); w += window) {
    std::string_view part = Trim(text.substr(begin, words[w].start - begin));
    if (!part.empty()) out.emplace_back(part);
    begin = words[w].start;
  }
  std::string_view last = Trim(text.substr(begin));
  if (!last.empty()) out.emplace_back(last);
  return out;
}

class ChunkPacker {
 public:
  ChunkPacker(const ChunkerOptions& options, const std::vector<std::vector<std::string>>& sections,
              std::vector<uint32_t> entry_tokens)
      : sections_(sections), entry_tokens_(std::move(entry_tokens)) {
    max_ = std::max<uint32_t>(options.max_tokens, 1);
    min_ = std::min(options.min_tokens, max_);
    target_ = std::clamp(options.target_tokens, min_, max_);
    overlap_ = options.overlap_tokens;
  }

  void Add(Piece unit) {
    if (unit.tokens <= max_) {
      AddFitting(std::move(unit));
    } else if (unit.prose) {
      for (Piece& s : SplitProse(unit)) AddFitting(std::move(s));
    } else {
      for (Piece& s : SplitLines(unit)) AddFitting(std::move(s));
    }
  }

  std::vector<ChunkDraft> Finish() {
    if (cur_.has_body) {
      ChunkDraft* last = drafts_.empty() ? nullptr : &drafts_.back();
      const uint32_t body = cur_.tokens - cur_.overlap_tokens;
      if (cur_.tokens < min_ && last != nullptr && last->section == cur_.section && last->tokens + body <= max_) {
        // A short tail joins the previous chunk of its section instead of standing alone.
        for (size_t i = cur_.overlap_tokens > 0 ? 1 : 0; i < cur_.pieces.size(); ++i) {
          last->pieces.push_back(std::move(cur_.pieces[i]));
        }
        last->tokens += body;
      } else {
        drafts_.push_back(std::move(cur_));
      }
    }
    cur_ = ChunkDraft{};
    return std::move(drafts_);
  }

 private:
  // Sentences of a prose piece; a sentence longer than max_ is cut into word windows of target_.
  std::vector<Piece> SplitProse(const Piece& unit) const {
    std::vector<Piece> out;
    for (const SentenceSpan& span : SplitSentences(unit.text)) {
      std::string_view sentence = std::string_view(unit.text).substr(span.start, span.end - span.start);
      const uint32_t tokens = CountWordTokens(sentence);
      if (tokens == 0 && !out.empty()) {
        out.back().text.append(" ").append(sentence);  // stray punctuation stays with its sentence
        continue;
      }
      if (tokens <= max_) {
        out.push_back(Piece{std::string(sentence), tokens, Join::kSpace, true, false, unit.section, unit.origin});
        continue;
      }
      for (std::string& part : SplitOnWords(sentence, target_)) {
        const uint32_t t = CountWordTokens(part);
        out.push_back(Piece{std::move(part), t, Join::kSpace, true, false, unit.section, unit.origin});
      }
    }
    if (out.empty()) return {Piece{unit.text, unit.tokens, unit.join, true, false, unit.section, unit.origin}};
    out.front().join = unit.join;
    return out;
  }

  // Lines of a table or code block packed greedily up to target_ tokens per piece.
  std::vector<Piece> SplitLines(const Piece& unit) const {
    std::vector<Piece> out;
    std::string_view text = unit.text;
    auto flush = [&](std::string* acc, uint32_t* tokens) {
      if (acc->empty()) return;
      out.push_back(Piece{std::move(*acc), *tokens, out.empty() ? unit.join : Join::kNewline, false, false,
                          unit.section, unit.origin});
      acc->clear();
      *tokens = 0;
    };
    std::string acc;
    uint32_t acc_tokens = 0;
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t nl = text.find('\n', begin);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view line = text.substr(begin, nl - begin);
      const uint32_t t = CountWordTokens(line);
      if (t > max_) {
        flush(&acc, &acc_tokens);
        for (std::string& part : SplitOnWords(line, target_)) {
          std::string p = std::move(part);
          uint32_t pt = CountWordTokens(p);
          flush(&p, &pt);
        }
      } else {
        if (acc_tokens + t > target_) flush(&acc, &acc_tokens);
        if (!acc.empty()) acc.push_back('\n');
        acc.append(line);
        acc_tokens += t;
      }
      begin = nl + 1;
    }
    flush(&acc, &acc_tokens);
    return out;
  }

  void AddFitting(Piece unit) {
    // A heading is a boundary once: where the section changes, not at every later piece of it.
    if (cur_.has_body && unit.section != cur_.last_section) {
      if (cur_.tokens >= min_) {
        Flush();
      } else {
        AddBridgeHeading(unit.section);
      }
    }
    const uint32_t entry = unit.origin.entry;
    if (entry != entry_) {
      // A definition entry that fits in one chunk starts one rather than being split.
      entry_ = entry;
      entry_done_ = 0;
      if (cur_.has_body && entry != 0 && entry_tokens_[entry] <= max_ && cur_.tokens + entry_tokens_[entry] > max_) {
        Flush();
      }
    }
    entry_done_ += unit.tokens;
    if (cur_.has_body && cur_.tokens + unit.tokens > max_) {
      if (cur_.tokens < min_ && unit.prose && unit.splittable) {
        std::vector<Piece> sentences = SplitProse(unit);
        if (sentences.size() > 1) {
          for (Piece& s : sentences) AddFitting(std::move(s));
          return;
        }
      }
      Flush();
    }
    if (!cur_.has_body) StartChunk(unit);
    cur_.tokens += unit.tokens;
    cur_.last_section = unit.section;
    cur_.pieces.push_back(std::move(unit));
    cur_.has_body = true;
    // Past the target the chunk ends, unless the rest of the current entry still fits in it.
    const uint32_t entry_rest = entry_ == 0 ? 0 : entry_tokens_[entry_] - std::min(entry_done_, entry_tokens_[entry_]);
    if (cur_.tokens >= target_ && (entry_rest == 0 || cur_.tokens + entry_rest > max_)) Flush();
  }

  // When a short chunk continues into another section, the headings that its section path does
  // not show are kept as a line of body text.
  void AddBridgeHeading(size_t section) {
    const auto& from = sections_[cur_.section];
    const auto& to = sections_[section];
    size_t common = 0;
    while (common < from.size() && common < to.size() && from[common] == to[common]) ++common;
    std::string heading = JoinPath(to, common);
    if (heading.empty()) return;
    const uint32_t tokens = CountWordTokens(heading);
    cur_.tokens += tokens;
    cur_.pieces.push_back(
        Piece{std::move(heading), tokens, Join::kNewBlock, false, false, section, Origin{-1, SpanRole::kHeading, "", 0}});
  }

  void StartChunk(const Piece& unit) {
    cur_ = ChunkDraft{};
    cur_.section = unit.section;
    cur_.last_section = unit.section;
    // Overlap stays within a section and within an entry (or between text outside entries).
    if (!pending_overlap_.text.empty() && pending_overlap_.section == unit.section && unit.prose &&
        pending_overlap_.origin.entry == unit.origin.entry) {
      // Drop leading overlap sentences until the chunk fits.
      std::string_view text = pending_overlap_.text;
      uint32_t tokens = pending_overlap_.tokens;
      while (tokens > 0 && tokens + unit.tokens > max_) {
        std::vector<SentenceSpan> spans = SplitSentences(text);
        if (spans.size() <= 1) {
          tokens = 0;
          break;
        }
        text = text.substr(spans[1].start);
        tokens = CountWordTokens(text);
      }
      if (tokens > 0) {
        cur_.pieces.push_back(
            Piece{std::string(text), tokens, Join::kNewBlock, true, false, unit.section, pending_overlap_.origin});
        cur_.tokens = tokens;
        cur_.overlap_tokens = tokens;
      }
    }
    pending_overlap_ = Piece{};
  }

  void Flush() {
    if (!cur_.has_body) return;
    pending_overlap_ = Piece{};
    const Piece& last = cur_.pieces.back();
    if (overlap_ > 0 && last.prose) {
      std::vector<SentenceSpan> spans = SplitSentences(last.text);
      uint32_t total = 0;
      size_t first = spans.size();
      while (first > 0) {
        const SentenceSpan& s = spans[first - 1];
        const uint32_t t = CountWordTokens(std::string_view(last.text).substr(s.start, s.end - s.start));
        if (total + t > overlap_) break;
        total += t;
        --first;
      }
      if (first < spans.size() && total > 0) {
        pending_overlap_ = Piece{last.text.substr(spans[first].start), total, Join::kNewBlock, true, false,
                                 cur_.section, last.origin};
      }
    }
    drafts_.push_back(std::move(cur_));
    cur_ = ChunkDraft{};
  }

  const std::vector<std::vector<std::string>>& sections_;
  const std::vector<uint32_t> entry_tokens_;  // tokens of each entry (index 0 unused)
  uint32_t min_, target_, max_, overlap_;
  uint32_t entry_ = 0;       // entry of the last piece added
  uint32_t entry_done_ = 0;  // its tokens added so far
  ChunkDraft cur_;
  Piece pending_overlap_;
  std::vector<ChunkDraft> drafts_;
};

SpanRole RoleOf(BlockKind kind) {
  switch (kind) {
    case BlockKind::kHeading: return SpanRole::kHeading;
    case BlockKind::kParagraph: return SpanRole::kText;
    case BlockKind::kListItem: return SpanRole::kListItem;
    case BlockKind::kTable: return SpanRole::kTableRow;
    case BlockKind::kCode: return SpanRole::kCode;
    case BlockKind::kDefinition: return SpanRole::kDefinition;
    case BlockKind::kTableRow: return SpanRole::kTableRow;
  }
  return SpanRole::kText;
}

// A document has structure to record unless it is only untitled paragraphs (BEIR JSONL, plain
// prose): such documents keep chunks without spans, exactly as before spans existed.
bool HasStructure(const std::vector<Block>& blocks) {
  for (const Block& b : blocks) {
    if (b.kind != BlockKind::kParagraph || !b.subject.empty()) return true;
  }
  return false;
}

// The chunk text of a draft, and its spans when `structured`: consecutive pieces of one block
// (sentences, lines) make one span; a piece that starts a new block starts a new span.
void Assemble(const ChunkDraft& d, bool structured, TextChunk* c) {
  int32_t span_block = -1;
  for (size_t i = 0; i < d.pieces.size(); ++i) {
    const Piece& p = d.pieces[i];
    if (i > 0) {
      switch (p.join) {
        case Join::kNewBlock: c->text += "\n\n"; break;
        case Join::kSpace: c->text += " "; break;
        case Join::kNewline: c->text += "\n"; break;
      }
    }
    const auto begin = static_cast<uint32_t>(c->text.size());
    c->text += p.text;
    const auto end = static_cast<uint32_t>(c->text.size());
    if (!structured || end == begin) continue;
    if (!c->spans.empty() && p.origin.block >= 0 && p.origin.block == span_block && p.join != Join::kNewBlock) {
      c->spans.back().end = end;
    } else {
      c->spans.push_back(ChunkSpan{begin, end, p.origin.role, p.origin.subject});
    }
    span_block = p.origin.block;
  }
}

}  // namespace

const ChunkSpan* SpanAt(std::span<const ChunkSpan> spans, size_t offset) {
  auto it = std::upper_bound(spans.begin(), spans.end(), offset,
                             [](size_t off, const ChunkSpan& s) { return off < s.begin; });
  if (it == spans.begin()) return nullptr;
  --it;
  return offset < it->end ? &*it : nullptr;
}

std::string_view SubjectAt(std::span<const ChunkSpan> spans, size_t offset) {
  const ChunkSpan* s = SpanAt(spans, offset);
  return s != nullptr ? std::string_view(s->subject) : std::string_view();
}

std::string_view SpanRoleName(SpanRole role) {
  switch (role) {
    case SpanRole::kText: return "text";
    case SpanRole::kHeading: return "heading";
    case SpanRole::kDefinition: return "definition";
    case SpanRole::kTableRow: return "table_row";
    case SpanRole::kListItem: return "list_item";
    case SpanRole::kCode: return "code";
  }
  return "text";
}

uint32_t CountWordTokens(std::string_view text) { return CountWordSegments(text); }

std::vector<TextChunk> ChunkDocument(const ParsedDocument& doc, const ChunkerOptions& options) {
  const std::vector<Block>& blocks = doc.blocks;
  const bool structured = HasStructure(blocks);
  // Pass 1: token counts, and which headings have body text before the next heading of the same or
  // a higher level (a heading without any is kept as body text).
  std::vector<uint32_t> tokens(blocks.size(), 0);
  std::vector<bool> heading_has_text(blocks.size(), false);
  std::vector<std::pair<int, size_t>> open;  // (level, block index)
  for (size_t i = 0; i < blocks.size(); ++i) {
    tokens[i] = CountWordTokens(blocks[i].text);
    if (blocks[i].kind == BlockKind::kHeading) {
      const int level = std::max(blocks[i].level, 1);
      while (!open.empty() && open.back().first >= level) open.pop_back();
      open.emplace_back(level, i);
    } else if (tokens[i] > 0) {
      for (auto it = open.rbegin(); it != open.rend() && !heading_has_text[it->second]; ++it) {
        heading_has_text[it->second] = true;
      }
    }
  }

  // Pass 2: sections and units.
  std::vector<std::vector<std::string>> sections(1);
  std::vector<std::pair<int, std::string>> stack;
  std::vector<Piece> units;
  BlockKind previous_kind = BlockKind::kHeading;
  const std::string* previous_subject = nullptr;  // subject of the entry the previous block belongs to
  std::vector<uint32_t> entry_tokens(1, 0);       // tokens of each entry; entry 0 = none
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (b.kind == BlockKind::kHeading) {
      const int level = std::max(b.level, 1);
      while (!stack.empty() && stack.back().first >= level) stack.pop_back();
      stack.emplace_back(level, CollapseWhitespace(b.text, Nbsp::kKeep));
      std::vector<std::string> path;
      for (const auto& [lvl, text] : stack) {
        if (!text.empty()) path.push_back(text);
      }
      sections.push_back(std::move(path));
      if (!heading_has_text[i] && tokens[i] > 0) {
        units.push_back(Piece{CollapseWhitespace(b.text, Nbsp::kKeep), tokens[i], Join::kNewBlock, true, false,
                              sections.size() - 1, Origin{static_cast<int32_t>(i), SpanRole::kHeading, "", 0}});
      }
      previous_kind = b.kind;
      previous_subject = nullptr;
      continue;
    }
    if (tokens[i] == 0) continue;
    if (b.subject.empty()) {
      previous_subject = nullptr;
    } else if (previous_subject == nullptr || *previous_subject != b.subject) {
      entry_tokens.push_back(0);
      previous_subject = &b.subject;
    }
    if (previous_subject != nullptr) entry_tokens.back() += tokens[i];
    const bool verbatim = b.kind == BlockKind::kTable || b.kind == BlockKind::kCode;
    Piece unit;
    unit.text = verbatim ? std::string(b.text) : std::string(Trim(b.text));
    unit.tokens = tokens[i];
    const bool runs_on = (b.kind == BlockKind::kListItem || b.kind == BlockKind::kTableRow) && previous_kind == b.kind;
    unit.join = runs_on ? Join::kNewline : Join::kNewBlock;
    unit.prose = !verbatim;
    unit.splittable = !verbatim;
    unit.section = sections.size() - 1;
    unit.origin = Origin{static_cast<int32_t>(i), RoleOf(b.kind), b.subject,
                         previous_subject != nullptr ? static_cast<uint32_t>(entry_tokens.size() - 1) : 0};
    units.push_back(std::move(unit));
    previous_kind = b.kind;
  }

  ChunkPacker packer(options, sections, std::move(entry_tokens));
  for (Piece& u : units) packer.Add(std::move(u));
  std::vector<ChunkDraft> drafts = packer.Finish();

  std::vector<TextChunk> chunks;
  chunks.reserve(drafts.size());
  for (ChunkDraft& d : drafts) {
    TextChunk c;
    c.ordinal = static_cast<uint32_t>(chunks.size());
    c.section_path = JoinPath(sections[d.section]);
    Assemble(d, structured, &c);
    c.token_count = CountWordTokens(c.text);
    if (c.token_count == 0) continue;
    chunks.push_back(std::move(c));
  }
  for (size_t i = 0; i < chunks.size(); ++i) chunks[i].ordinal = static_cast<uint32_t>(i);
  return chunks;
}

}  // namespace attest
