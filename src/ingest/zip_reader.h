// Reading one named entry of a ZIP archive (DOCX and ODT files are ZIP archives) with libzip.
//
// Limits: archives with more than `max_entries` entries are refused before anything is read; only
// the one entry asked for is decompressed, and its decompressed bytes stop at `max_entry_bytes`
// (a zip bomb fails at the cap: the sizes declared in the archive are not trusted). Encrypted
// entries are refused. Thread-safe: every call opens its own handle.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "attest/status.h"

namespace attest::ingest {

struct ZipLimits {
  uint64_t max_entries = 10'000;
  uint64_t max_entry_bytes = 50ull << 20;
};

// Errors: kNotFound when the entry is absent, kResourceExhausted past a limit, kCorruption for a
// file that is not a readable ZIP archive.
Result<std::string> ReadZipEntry(const std::filesystem::path& archive, const std::string& entry,
                                 const ZipLimits& limits);

}  // namespace attest::ingest
