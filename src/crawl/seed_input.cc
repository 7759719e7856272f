#include "crawl/seed_input.h"

namespace attest {

std::string_view LeadingSkipper::Consume(std::string_view chunk) {
  if (started_) return chunk;
  if (!bom_checked_) {
    // The BOM may straddle chunks: hold up to three bytes until it is decided.
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    while (!chunk.empty() && pending_bom_.size() < 3 && chunk[0] == kBom[pending_bom_.size()]) {
      pending_bom_.push_back(chunk[0]);
      chunk.remove_prefix(1);
    }
    if (pending_bom_.size() == 3) {
      bom_checked_ = true;
      skipped_bytes_ += 3;
      skipped_columns_ += 3;
    } else if (!chunk.empty()) {
      bom_checked_ = true;
      if (!pending_bom_.empty()) {  // not a BOM after all: those bytes are significant
        started_ = true;
        first_ = pending_bom_[0];
        // The held bytes must reach the reader: hand them over with the chunk.
        pending_bom_.append(chunk);
        return pending_bom_;
      }
    } else {
      return {};
    }
  }
  size_t i = 0;
  while (i < chunk.size() && (chunk[i] == ' ' || chunk[i] == '\t' || chunk[i] == '\r' || chunk[i] == '\n')) {
    ++skipped_bytes_;
    if (chunk[i] == '\n') {
      ++skipped_lines_;
      skipped_columns_ = 0;
    } else {
      ++skipped_columns_;
    }
    ++i;
  }
  chunk.remove_prefix(i);
  if (!chunk.empty()) {
    started_ = true;
    first_ = chunk[0];
  }
  return chunk;
}

SeedPosition LeadingSkipper::Absolute(SeedPosition p) const {
  if (p.line == 1) p.column += skipped_columns_;
  p.line += skipped_lines_;
  p.byte_offset += skipped_bytes_;
  return p;
}

std::string QuoteForNote(std::string_view s) {
  if (s.size() > 80) return "'" + std::string(s.substr(0, 77)) + "...'";
  return "'" + std::string(s) + "'";
}

void FinishSeedRead(const XmlStream& stream, const LeadingSkipper& skip, const DecodeReport& decoded,
                    std::optional<SeedError>* error, SeedNotes* ignored) {
  if (stream.error()) {
    *error = SeedError{stream.error()->message, skip.Absolute(stream.error()->position)};
  } else if (decoded.error) {
    *error = SeedError{*decoded.error, SeedPosition{0, 0, decoded.decoded_bytes}};
  }
  for (const std::string& entity : stream.unloaded_entities()) {
    ignored->Add("external entity " + QuoteForNote(entity) + " not loaded", {});
  }
}

}  // namespace attest
