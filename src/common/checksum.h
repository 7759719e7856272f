// Checksums used by the on-disk formats (CRC-32C, Castagnoli) and content identity (SHA-256).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attest {

// CRC-32C of `data`, continuing from `crc` (pass 0 to start). Uses SSE4.2 when the CPU has it.
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);
inline uint32_t Crc32c(std::string_view s, uint32_t crc = 0) { return Crc32c(s.data(), s.size(), crc); }

// Lower-case hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

// Appends `name=<length>:<value>\n`: the canonical serialization that digests and row checksums
// are computed over (length-prefixed, so no two different field lists serialize alike).
inline void AppendDigestField(std::string* out, std::string_view name, std::string_view value) {
  out->append(name);
  out->push_back('=');
  out->append(std::to_string(value.size()));
  out->push_back(':');
  out->append(value);
  out->push_back('\n');
}

}  // namespace attest
