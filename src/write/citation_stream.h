// CitationStreamParser: turns streamed prose with citation markers into clean text, citation
// events and finished sentences, without ever showing half a marker.
//
// Input: text deltas of a model's answer such as "Nova 3 has a 5,000 mAh battery [1]. It ships in
// May [S2][3]." Markers are "[" items "]" where items are separated by "," (spaces allowed) and each
// item is a number n (1-based position in the pack) or an id "S<k>"/"s<k>" (k, n: 1..4 digits), at
// most 16 items and 64 bytes per marker: "[1]", "[S3]", "[1, 3]", "[S1,S2]"; "[S1][S2]" is two.
//
// Output events, in order:
// - kText: clean text (markers removed, and the whitespace right before a marker removed, so
//   "battery [1]." reads "battery."). Trailing whitespace at the end of the input is dropped.
// - kCitation: a marker item that names a pack passage (`source` = its EvidencePassage id).
// - kDropped: a syntactically valid item that names no passage of the pack (`marker` = "[7]" /
//   "[S9]"); also recorded in dropped(). It is removed from the text like any marker.
// - kSentenceDone: a finished sentence (`text`, trimmed) with its citations (`cites`, distinct ids
//   in order of first appearance). Markers that follow a sentence's end punctuation ("... May. [2]")
//   still belong to that sentence; the sentence is closed when the next sentence's first
//   character arrives, or at Finish().
//
// Parser rules:
// - A "[" that can still become a marker is held back (with the whitespace before it) until it
//   can be decided; as soon as it cannot ("[note]", "[1a]", "[ ]", 65 bytes without "]"), the "["
//   is text and the held bytes are re-read as text. At Finish() a pending prefix ("... [1") is text.
// - Sentence end: ".", "!" or "?" (optionally followed by closing quotes/brackets), then whitespace
//   or a marker, then a character that is not a lowercase ASCII letter ("e.g. foo" continues). A
//   line break (whitespace containing "\n") always ends a non-empty sentence (bullets, headings).
//
// Determinism: the events depend only on the concatenated input, never on how it was split into
// deltas, except that kText events may be split differently (coalescing adjacent kText events
// gives identical sequences). tests/write_citation_stream_test.cc checks this on random splits.
//
// Thread-safety: none; one parser per answer stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attest {

struct CitationStreamEvent {
  enum class Kind { kText, kCitation, kDropped, kSentenceDone };
  Kind kind = Kind::kText;
  std::string text;                // kText: the clean text; kSentenceDone: the sentence
  std::string source;              // kCitation: the pack id
  std::string marker;              // kCitation / kDropped: the item as a marker, e.g. "[3]", "[S9]"
  std::vector<std::string> cites;  // kSentenceDone: distinct ids in order
  bool operator==(const CitationStreamEvent&) const = default;
};

class CitationStreamParser {
 public:
  // `pack_ids[i]` is the id of pack position i+1 ("[1]" -> pack_ids[0]); "[Sk]" matches an id
  // equal to "Sk" (case-insensitive "s").
  explicit CitationStreamParser(std::vector<std::string> pack_ids);

  // Appends the events decided by `delta` to `out`.
  void Feed(std::string_view delta, std::vector<CitationStreamEvent>* out);
  // End of input: flushes held-back bytes and the last sentence.
  void Finish(std::vector<CitationStreamEvent>* out);

  const std::vector<std::string>& dropped() const { return dropped_; }
  const std::string& clean_text() const { return clean_; }  // all kText so far, concatenated

 private:
  enum class Scan { kPrefix, kComplete, kInvalid };
  Scan ScanMarker(std::string_view buf, std::vector<std::string>* items) const;
  void Char(char c, std::vector<CitationStreamEvent>* out);
  void TextChar(char c, std::vector<CitationStreamEvent>* out);
  void Marker(const std::vector<std::string>& items, std::vector<CitationStreamEvent>* out);
  void EmitText(std::string_view s, std::vector<CitationStreamEvent>* out);
  void CloseSentence(std::vector<CitationStreamEvent>* out);
  void AddCite(const std::string& id);

  std::vector<std::string> pack_ids_;
  std::unordered_map<std::string, std::string> by_upper_id_;  // "S3" -> the pack's spelling
  std::vector<std::string> dropped_;
  std::string clean_;

  std::string marker_;      // held "[..." bytes (empty when not inside a possible marker)
  std::string pending_ws_;  // whitespace held until we know whether a marker follows
  std::string sentence_;    // clean text of the open sentence
  std::vector<std::string> sentence_cites_;
  bool after_terminal_ = false;  // the last text char ended a sentence (".", "!", "?", closers after them)
  bool gap_ = false;             // whitespace or a marker came after that terminal char
  bool line_break_ = false;      // a "\n" came since the last text char
};

}  // namespace attest
