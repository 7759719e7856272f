// Decoding gzip-compressed source files (x.html.gz, x.txt.gz, x.md.gz, ...) with zlib.
//
// The cap applies to the DECODED bytes: a small file that inflates to gigabytes (a gzip bomb)
// stops as soon as the output would pass `max_decoded_bytes`, with an error saying so; nothing
// beyond the cap is ever held in memory. Concatenated gzip members (RFC 1952 allows several) are
// decoded one after the other. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "attest/status.h"

namespace attest::ingest {

// Decodes a whole gzip stream. Errors: kResourceExhausted when the decoded bytes pass
// `max_decoded_bytes`; kCorruption for a damaged or truncated stream.
Result<std::string> GunzipCapped(std::string_view compressed, uint64_t max_decoded_bytes);

// Reads the file at `path` (its compressed size is bounded by the same cap: a gzip stream never
// shrinks ordinary text below ~1/1000, so a bigger compressed file is over the cap anyway) and
// decodes it. `prefix_only` stops quietly after `max_decoded_bytes` instead of failing (used to
// sniff the first bytes of an unknown ".gz").
Result<std::string> ReadGzipFile(const std::filesystem::path& path, uint64_t max_decoded_bytes,
                                 bool prefix_only = false);

}  // namespace attest::ingest
