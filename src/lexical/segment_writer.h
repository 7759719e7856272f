// Builds one immutable segment from analyzed chunks held in memory.
// Not thread-safe; one writer per segment being built.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "attest/status.h"
#include "lexical/indexed_chunk.h"

namespace attest {

class SegmentWriter {
 public:
  SegmentWriter();  // writes the current format version
  // Writes `format_version` (2 or the current one). Version 2 stores three fields and drops the
  // chunks' term field: it exists so that tests can write the old format that readers still open.
  explicit SegmentWriter(uint32_t format_version);
  ~SegmentWriter();

  // Chunk ids must be strictly increasing across calls.
  Status Add(const IndexedChunk& chunk);
  size_t num_chunks() const;

  // Serializes the segment image (header, sections, footer with CRC-32C).
  std::string Serialize() const;
  // Serialize() then WriteFileAtomically(path).
  Status WriteTo(const std::filesystem::path& path) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace attest
