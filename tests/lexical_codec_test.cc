// Round trips of the postings block codec and the bit packer.
#include <gtest/gtest.h>

#include <random>

#include "lexical/postings_codec.h"

namespace attest::codec {
namespace {

TEST(LexicalCodecTest, PackUnpackEveryWidth) {
  std::mt19937_64 rng(7);
  for (uint32_t width = 0; width <= 32; ++width) {
    for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(127), size_t(128), size_t(129), size_t(300)}) {
      std::vector<uint32_t> v(n);
      const uint64_t mask = width == 32 ? 0xffffffffull : ((uint64_t{1} << width) - 1);
      for (auto& x : v) x = static_cast<uint32_t>(rng() & mask);
      if (n > 0) v[0] = static_cast<uint32_t>(mask);  // the maximum must round-trip
      std::string buf;
      PackBits(v.data(), n, width, &buf);
      ASSERT_EQ(buf.size(), PackedBytes(n, width));
      buf.append(kReadPadding, '\0');
      std::vector<uint32_t> out(n + 1, 12345);
      UnpackBits(reinterpret_cast<const uint8_t*>(buf.data()), n, width, out.data());
      out.resize(n);
      ASSERT_EQ(out, v) << "width " << width << " n " << n;
    }
  }
}

struct Block {
  std::vector<uint32_t> docs, tf[4];
};

// Both layouts: 4 tf arrays (segment format 3) and 3 (format 2, whose term field decodes as zeros).
void RoundTrip(const Block& b, int64_t prev) {
  for (int fields : {4, 3}) {
    const uint32_t* tf[4] = {b.tf[0].data(), b.tf[1].data(), b.tf[2].data(), b.tf[3].data()};
    std::string buf;
    EncodeBlock(b.docs.data(), tf, fields, b.docs.size(), prev, &buf);
    ASSERT_EQ(buf.size(), EncodedBlockSize(reinterpret_cast<const uint8_t*>(buf.data()), b.docs.size(), fields));
    buf.append(kReadPadding, '\0');
    const size_t n = b.docs.size();
    std::vector<uint32_t> docs(n), t[4] = {std::vector<uint32_t>(n), std::vector<uint32_t>(n),
                                           std::vector<uint32_t>(n), std::vector<uint32_t>(n, 7)};
    uint32_t* out[4] = {t[0].data(), t[1].data(), t[2].data(), t[3].data()};
    const size_t used = DecodeBlock(reinterpret_cast<const uint8_t*>(buf.data()), n, fields, prev, docs.data(), out);
    EXPECT_EQ(used, buf.size() - kReadPadding);
    EXPECT_EQ(docs, b.docs);
    for (int f = 0; f < 3; ++f) EXPECT_EQ(t[f], b.tf[f]);
    EXPECT_EQ(t[3], fields == 4 ? b.tf[3] : std::vector<uint32_t>(n, 0));
  }
}

TEST(LexicalCodecTest, BlockRoundTripRandomSizesAndGaps) {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 2000; ++iter) {
    static const size_t kSizes[] = {1, 2, 127, 128};
    const size_t n = kSizes[iter % 4] == 128 ? 128 : 1 + rng() % kSizes[iter % 4];
    const int64_t prev = rng() % 3 == 0 ? -1 : static_cast<int64_t>(rng() % 1000000);
    Block b;
    uint64_t d = static_cast<uint64_t>(prev + 1);
    const int gap_kind = iter % 5;
    for (size_t i = 0; i < n; ++i) {
      uint64_t gap = gap_kind == 0 ? 0 : gap_kind == 1 ? rng() % 4 : gap_kind == 2 ? rng() % 100000 : rng() % 30;
      if (gap_kind == 4 && i == n / 2) gap = 3000000000ull;  // one huge gap
      d += gap;
      if (d > 0xfffffff0ull) d = 0xfffffff0ull - (n - i);
      b.docs.push_back(static_cast<uint32_t>(d));
      ++d;
      for (int f = 0; f < 4; ++f) {
        const uint32_t r = static_cast<uint32_t>(rng() % 10);
        b.tf[f].push_back(f == 2 ? 1 + r : (r < 7 ? 0 : r * (f + 1) * (iter % 50 == 0 ? 100000 : 1)));
      }
    }
    // Keep docs strictly increasing after clamping.
    bool ok = true;
    for (size_t i = 1; i < n; ++i) ok = ok && b.docs[i] > b.docs[i - 1];
    if (!ok || int64_t(b.docs[0]) <= prev) continue;
    RoundTrip(b, prev);
  }
}

TEST(LexicalCodecTest, BlockAtTheTopOfTheIdSpace) {
  Block b;
  for (uint32_t i = 0; i < 128; ++i) {
    b.docs.push_back(0xfffffe00u + 3 * i);
    b.tf[0].push_back(0);
    b.tf[1].push_back(i);
    b.tf[2].push_back(0xffffffffu - i);
    b.tf[3].push_back(i % 3);
  }
  RoundTrip(b, -1);
  RoundTrip(b, 0xfffffe00 - 1);
}

}  // namespace
}  // namespace attest::codec
