// Internal to src/crawl: the first bytes of a sitemap or feed decide how it is read. Skips a UTF-8
// byte order mark and leading whitespace (common before "<?xml", which XML forbids) and remembers
// how much was skipped so that positions still count from the start of the decoded input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawl/xml_stream.h"

namespace attest {

class LeadingSkipper {
 public:
  // Consumes the prefix of `chunk` that is skipped; returns the rest. Once something significant
  // was seen, returns chunks unchanged.
  std::string_view Consume(std::string_view chunk);
  bool started() const { return started_; }
  // The first significant byte ('\0' before any).
  char first() const { return first_; }
  // Whether the input is XML: it starts with '<' or with a UTF-16 byte order mark (expat reads
  // UTF-16 itself).
  bool xml() const { return first_ == '<' || first_ == '\xFF' || first_ == '\xFE'; }
  // A position measured from the first significant byte, made absolute.
  SeedPosition Absolute(SeedPosition p) const;

 private:
  bool started_ = false;
  bool bom_checked_ = false;
  std::string pending_bom_;
  char first_ = '\0';
  uint64_t skipped_bytes_ = 0;
  uint64_t skipped_lines_ = 0;
  uint64_t skipped_columns_ = 0;  // bytes skipped on the line of the first significant byte
};

// A value quoted in a note: in single quotes, cut to 80 characters.
std::string QuoteForNote(std::string_view s);

// The end of a sitemap or feed read, shared by both parsers: the error of the XML stream (at its
// absolute position) or else of the gzip decoding, and the external entities left unloaded, as notes.
void FinishSeedRead(const XmlStream& stream, const LeadingSkipper& skip, const DecodeReport& decoded,
                    std::optional<SeedError>* error, SeedNotes* ignored);

}  // namespace attest
