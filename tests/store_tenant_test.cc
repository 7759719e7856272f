// Segments never mix tenants: commits write one segment per tenant, merges, bulk loads and
// compaction keep tenants apart, and a store written before (format-1 segments, which mixed
// tenants and had no visibility classes) is upgraded at the first writer open.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <cstring>
#include <fstream>
#include <set>

#include "lexical/segment_format.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using namespace store_test;

std::set<std::string> TenantsOf(const Segment& seg) {
  std::set<std::string> out;
  for (LocalDoc d = 0; d < seg.num_docs(); ++d) out.insert(seg.attributes(d).tenant);
  return out;
}

void ExpectOneTenantPerSegment(const Snapshot& snap) {
  for (const SegmentView& v : snap.segments()) {
    EXPECT_EQ(TenantsOf(*v.segment).size(), 1u) << "segment " << v.id.get() << " mixes tenants";
    EXPECT_TRUE(v.segment->sole_tenant().has_value());
  }
}

TEST(StoreTenantTest, ACommitWritesOneSegmentPerTenant) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  WriteBatch b;
  b.upserts.push_back(MakeDoc("x", {"alpha one", "alpha two"}, "acme"));
  b.upserts.push_back(MakeDoc("x", {"alpha three"}, "globex"));
  b.upserts.push_back(MakeDoc("y", {"alpha four"}, "acme"));
  b.upserts.push_back(MakeDoc("z", {"alpha five"}, ""));
  auto r = store->Commit(std::move(b));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto snap = store->Pin();
  EXPECT_EQ(snap->segments().size(), 3u);
  ExpectOneTenantPerSegment(*snap);
  EXPECT_EQ(Search(*snap, "alpha").size(), 5u);
}

TEST(StoreTenantTest, MergesAndCompactionNeverMixTenants) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.merge_factor = 2;
  o.max_segments = 3;
  auto store = OpenOrDie(o);
  ASSERT_TRUE(store);
  for (int i = 0; i < 40; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"word w" + std::to_string(i)}, i % 3 == 0 ? "a" : "b"));
    if (i % 5 == 0) b.upserts.push_back(MakeDoc("c" + std::to_string(i), {"word other"}, "c"));
    ASSERT_TRUE(store->Commit(std::move(b)).ok());
    if (i % 7 == 6) {
      WriteBatch del;
      del.deletes.push_back({"b", "d" + std::to_string(i - 1)});
      ASSERT_TRUE(store->Commit(std::move(del)).ok());
    }
  }
  auto snap = store->Pin();
  ExpectOneTenantPerSegment(*snap);
  // The cap applies per tenant: no tenant has more than max_segments segments.
  std::map<std::string, int> per_tenant;
  for (const SegmentView& v : snap->segments()) ++per_tenant[*v.segment->sole_tenant()];
  for (const auto& [t, n] : per_tenant) EXPECT_LE(n, 3) << t;
  EXPECT_EQ(per_tenant.size(), 3u);
  const size_t before = Search(*snap, "word").size();
  ASSERT_TRUE(store->Compact().ok());
  snap = store->Pin();
  ExpectOneTenantPerSegment(*snap);
  EXPECT_EQ(snap->segments().size(), 3u) << "compaction leaves one segment per tenant";
  EXPECT_EQ(Search(*snap, "word").size(), before);
}

// Rewrites a format-2 segment image as format 1 (sections 0-17, the layout version 1 wrote).
std::string ToFormat1(const std::string& v2) {
  using namespace segfmt;
  const auto* p = reinterpret_cast<const uint8_t*>(v2.data());
  const uint64_t footer = Load64(p + v2.size() - kTailSize);
  std::string out = v2.substr(0, footer);
  uint32_t one = 1;
  std::memcpy(&out[8], &one, 4);
  const uint64_t new_footer = out.size();
  uint32_t n = 18;
  out.append(reinterpret_cast<const char*>(&n), 4);
  for (int s = 0; s < 18; ++s) out.append(v2.data() + footer + 4 + 16 * s, 16);
  out.append(reinterpret_cast<const char*>(&new_footer), 8);
  const uint32_t crc = Crc32c(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(&crc), 4);
  out.append(kMagic, 8);
  return out;
}

TEST(StoreTenantTest, FormatOneSegmentsAreUpgradedAtTheFirstWriterOpen) {
  TempDir tmp;
  {
    auto store = OpenOrDie(Options(tmp.path()));
    ASSERT_TRUE(store);
    WriteBatch b;
    b.upserts.push_back(MakeDoc("x", {"alpha beta", "gamma"}, "acme"));
    b.upserts.push_back(MakeDoc("y", {"alpha delta"}, "globex"));
    ASSERT_TRUE(store->Commit(std::move(b)).ok());
  }
  // Turn every segment file into format 1 and record its checksum as the catalog would have.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((tmp.path() / "catalog.db").c_str(), &db), SQLITE_OK);
  for (const auto& path : SegmentFiles(tmp.path())) {
    std::ifstream in(path, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), {});
    const std::string old = ToFormat1(image);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << old;
    uint32_t crc;
    std::memcpy(&crc, old.data() + old.size() - 12, 4);
    const std::string id = path.filename().string().substr(4, 16);
    const std::string sql = "UPDATE segments SET crc = " + std::to_string(crc) + ", bytes = " +
                            std::to_string(old.size()) + " WHERE id = " + std::to_string(std::stoull(id, nullptr, 16));
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }
  sqlite3_close(db);

  StoreOptions ro = Options(tmp.path(), false);
  ro.read_only = true;
  auto reader = Store::Open(ro);
  ASSERT_FALSE(reader.ok()) << "a reader cannot use format-1 segments";
  EXPECT_EQ(reader.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(reader.status().message().find("open it for writing once"), std::string::npos)
      << reader.status().ToString();

  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  auto snap = store->Pin();
  ExpectOneTenantPerSegment(*snap);
  EXPECT_EQ(Search(*snap, "alpha").size(), 2u);
  EXPECT_EQ(Search(*snap, "gamma").size(), 1u);
  for (const auto& path : SegmentFiles(tmp.path())) {
    auto v = Segment::FileFormatVersion(path);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, Segment::CurrentFormatVersion()) << path;
  }
  store.reset();
  auto reader2 = Store::Open(ro);
  EXPECT_TRUE(reader2.ok()) << reader2.status().ToString();
}

}  // namespace
}  // namespace attest
