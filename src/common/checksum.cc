#include "common/checksum.h"

#include <openssl/evp.h>

#include <array>
#include <cstring>

namespace attest {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // reflected Castagnoli polynomial

std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? kPoly : 0);
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  return t;
}

const auto& Tables() {
  static const auto t = MakeTables();
  return t;
}

uint32_t Crc32cSoftware(const uint8_t* p, size_t n, uint32_t crc) {
  const auto& t = Tables();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= crc;
    crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
          t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^ t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cHardwareSerial(const uint8_t* p, size_t n, uint32_t crc) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = __builtin_ia32_crc32di(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

// The crc32 instruction has a latency of three cycles and a throughput of one per cycle, so one
// dependency chain runs at a third of the possible speed. Long inputs are cut into rounds of three
// consecutive stripes of kStripe bytes, each stripe's register computed independently (the first
// from the running register, the others from 0), and joined by linearity:
//   R(c, A||B) = Shift(R(c, A), |B|) ^ R(0, B),  where Shift(c, n) = R(c, n zero bytes).
// Shift by kStripe bytes is linear in c, so it is four 256-entry tables indexed by c's bytes.
constexpr size_t kStripe = 4096;

struct ShiftTables {
  uint32_t t[4][256];
};

__attribute__((target("sse4.2"))) ShiftTables MakeShiftTables() {
  ShiftTables s{};
  uint32_t bit[32];
  static const uint8_t kZeros[kStripe] = {};
  for (int i = 0; i < 32; ++i) bit[i] = Crc32cHardwareSerial(kZeros, kStripe, 1u << i);
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) v ^= bit[8 * k + i];
      }
      s.t[k][b] = v;
    }
  }
  return s;
}

inline uint32_t ShiftStripe(const ShiftTables& s, uint32_t c) {
  return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(const uint8_t* p, size_t n, uint32_t crc) {
  if (n >= 3 * kStripe) {
    static const ShiftTables shift = MakeShiftTables();
    uint64_t c = crc;
    while (n >= 3 * kStripe) {
      uint64_t a = c, b = 0, d = 0;
      for (size_t i = 0; i < kStripe; i += 8) {
        uint64_t wa, wb, wd;
        std::memcpy(&wa, p + i, 8);
        std::memcpy(&wb, p + kStripe + i, 8);
        std::memcpy(&wd, p + 2 * kStripe + i, 8);
        a = __builtin_ia32_crc32di(a, wa);
        b = __builtin_ia32_crc32di(b, wb);
        d = __builtin_ia32_crc32di(d, wd);
      }
      const uint32_t ab = ShiftStripe(shift, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
      c = ShiftStripe(shift, ab) ^ static_cast<uint32_t>(d);
      p += 3 * kStripe;
      n -= 3 * kStripe;
    }
    crc = static_cast<uint32_t>(c);
  }
  return Crc32cHardwareSerial(p, n, crc);
}
bool HaveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (HaveSse42()) return ~Crc32cHardware(p, n, crc);
#endif
  return ~Crc32cSoftware(p, n, crc);
}

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (unsigned i = 0; i < len; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 15];
  }
  return out;
}

}  // namespace attest
