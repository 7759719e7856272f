// CRC-32C (common/checksum.h): the fast path (three interleaved hardware streams joined by a
// shift table, for long inputs) against a bit-at-a-time definition of the Castagnoli CRC.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/checksum.h"

namespace attest {
namespace {

// The definition: reflected polynomial 0x82F63B78, initial value and final xor all ones.
uint32_t BitwiseCrc32c(const uint8_t* p, size_t n, uint32_t crc = 0) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0);
  }
  return ~crc;
}

TEST(Crc32cTest, KnownCheckValue) {
  EXPECT_EQ(Crc32c(std::string_view("123456789")), 0xE3069283u);  // the catalogued CRC-32C check value
  EXPECT_EQ(Crc32c(std::string_view("")), 0u);
}

TEST(Crc32cTest, EqualsTheDefinitionAtEveryLengthAroundTheStripes) {
  std::mt19937_64 rng(7);
  std::string buf(5 * 3 * 4096 + 64, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  const auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  // Lengths below, at and around multiples of one round (3 stripes of 4096 bytes), at odd offsets.
  for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(4095), size_t(12287), size_t(12288),
                     size_t(12289), size_t(12295), size_t(24576), size_t(24583), size_t(3 * 12288 + 5),
                     size_t(5 * 12288 + 63)}) {
    for (size_t off : {size_t(0), size_t(1), size_t(3)}) {
      if (off + len > buf.size()) continue;
      EXPECT_EQ(Crc32c(p + off, len), BitwiseCrc32c(p + off, len)) << "length " << len << " offset " << off;
    }
  }
}

TEST(Crc32cTest, ContinuingEqualsOneCallOverTheWhole) {
  std::mt19937_64 rng(11);
  std::string buf(100000, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  const auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  const uint32_t whole = BitwiseCrc32c(p, buf.size());
  for (int i = 0; i < 50; ++i) {
    const size_t cut = rng() % buf.size();
    EXPECT_EQ(Crc32c(p + cut, buf.size() - cut, Crc32c(p, cut)), whole) << "cut at " << cut;
  }
}

}  // namespace
}  // namespace attest
