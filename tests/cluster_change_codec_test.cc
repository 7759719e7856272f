// The change-log payload (src/cluster/change_codec.h): every DocumentSpec field survives a round
// trip, and decoding untrusted bytes names what is wrong.
#include <gtest/gtest.h>

#include "cluster/change_codec.h"

namespace attest {
namespace {

DocumentSpec FullSpec() {
  DocumentSpec d;
  d.id = "docs/a.md";
  d.tenant = "acme";
  d.title = "Título \"quoted\"";
  d.text = "# Heading\n\nBody with\ttabs and ünïcode.";
  d.content_type = "markdown";
  d.url = "https://example.org/a";
  d.site = "example.org";
  d.version = "2.1";
  d.source_type = "guide";
  d.language = "en";
  d.published = "2026-01-02";
  d.updated = "2026-02-03";
  d.acl_groups = {"eng", "ops"};
  d.access_label = "internal";
  d.feed = "versions";
  d.license = "CC-BY-4.0";
  d.fetched_at = "2026-12-02T14:55:56Z";
  d.metadata = {{"author", "Ada"}, {"k", ""}};
  return d;
}

TEST(ChangeCodecTest, UpsertRoundTripsEveryField) {
  const DocumentSpec in = FullSpec();
  auto out = DecodeChange(EncodeUpsert(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->kind, DocumentChange::Kind::kUpsert);
  const DocumentSpec& d = out->doc;
  EXPECT_EQ(d.id, in.id);
  EXPECT_EQ(d.tenant, in.tenant);
  EXPECT_EQ(d.title, in.title);
  EXPECT_EQ(d.text, in.text);
  EXPECT_EQ(d.content_type, in.content_type);
  EXPECT_EQ(d.url, in.url);
  EXPECT_EQ(d.site, in.site);
  EXPECT_EQ(d.version, in.version);
  EXPECT_EQ(d.source_type, in.source_type);
  EXPECT_EQ(d.language, in.language);
  EXPECT_EQ(d.published, in.published);
  EXPECT_EQ(d.updated, in.updated);
  EXPECT_EQ(d.acl_groups, in.acl_groups);
  EXPECT_EQ(d.access_label, in.access_label);
  EXPECT_EQ(d.feed, in.feed);
  EXPECT_EQ(d.license, in.license);
  EXPECT_EQ(d.fetched_at, in.fetched_at);
  EXPECT_EQ(d.metadata, in.metadata);
}

TEST(ChangeCodecTest, AclAndDeleteKinds) {
  auto acl = DecodeChange(EncodeUpsert(FullSpec(), DocumentChange::Kind::kAcl));
  ASSERT_TRUE(acl.ok()) << acl.status().ToString();
  EXPECT_EQ(acl->kind, DocumentChange::Kind::kAcl);
  EXPECT_EQ(acl->doc.acl_groups, FullSpec().acl_groups);
  auto del = DecodeChange(EncodeDelete("acme", "docs/a.md"));
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->kind, DocumentChange::Kind::kDelete);
  EXPECT_EQ(del->doc.tenant, "acme");
  EXPECT_EQ(del->doc.id, "docs/a.md");
  EXPECT_TRUE(del->doc.text.empty());
}

TEST(ChangeCodecTest, RejectsBadPayloadsNamingTheField) {
  struct Case {
    const char* payload;
    const char* names;  // expected in the message
  };
  const Case cases[] = {
      {"not json", "not valid JSON"},
      {"[1]", "payload must be an object"},
      {R"({"kind":"upsert","doc":{"id":"a"}})", "v is missing"},
      {R"({"v":"1","kind":"upsert","doc":{"id":"a"}})", "v must be an integer"},
      {R"({"v":2,"kind":"upsert","doc":{"id":"a"}})", "v is 2"},
      {R"({"v":1,"doc":{"id":"a"}})", "kind is missing"},
      {R"({"v":1,"kind":"rename","doc":{"id":"a"}})", "kind is 'rename'"},
      {R"({"v":1,"kind":"upsert"})", "doc is missing"},
      {R"({"v":1,"kind":"upsert","doc":[]})", "doc must be an object"},
      {R"({"v":1,"kind":"upsert","doc":{"title":"t"}})", "doc.id is missing"},
      {R"({"v":1,"kind":"upsert","doc":{"id":""}})", "doc.id is missing or empty"},
      {R"({"v":1,"kind":"upsert","doc":{"id":7}})", "doc.id must be a string"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a","title":null}})", "doc.title must be a string"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a","acl_groups":"eng"}})", "doc.acl_groups must be an array"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a","acl_groups":["eng",3]}})", "doc.acl_groups[1] must be a string"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a","metadata":{"x":1}}})", "doc.metadata.x must be a string"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a","colour":"red"}})", "doc.colour is not a field"},
      {R"({"v":1,"kind":"upsert","doc":{"id":"a"},"extra":1})", "extra is not a field"},
      {R"({"v":1,"kind":"delete","tenant":"t"})", "id is missing"},
      {R"({"v":1,"kind":"delete","id":5})", "id must be a string"},
      {R"({"v":1,"kind":"delete","tenant":[],"id":"a"})", "tenant must be a string"},
  };
  for (const Case& c : cases) {
    auto r = DecodeChange(c.payload);
    ASSERT_FALSE(r.ok()) << c.payload;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.payload;
    EXPECT_NE(r.status().message().find(c.names), std::string::npos)
        << c.payload << " -> " << r.status().message() << " (expected to name: " << c.names << ")";
  }
  std::string long_id(257, 'x');
  EXPECT_FALSE(DecodeChange(EncodeDelete("", long_id)).ok());
}

}  // namespace
}  // namespace attest

#include "cluster/shard_map.h"

namespace attest {
namespace {

TEST(FairShareMovesTest, GivesTheNewNodeAFairShareFromTheRichest) {
  std::map<uint32_t, std::string> owners;
  for (uint32_t v = 0; v < 64; ++v) owners[v] = v % 2 ? "b" : "a";
  auto moves = FairShareMoves(owners, "c");
  ASSERT_EQ(moves.size(), 21u);  // floor(64 / 3)
  std::map<std::string, int> count{{"a", 32}, {"b", 32}, {"c", 0}};
  for (const auto& [v, to] : moves) {
    EXPECT_EQ(to, "c");
    --count[owners.at(v)];
    ++count[to];
  }
  EXPECT_EQ(count["c"], 21);
  EXPECT_LE(std::abs(count["a"] - count["b"]), 1);
  // Uneven owners give more from the richer one; the new node's own shards are not counted.
  std::map<uint32_t, std::string> uneven;
  for (uint32_t v = 0; v < 64; ++v) uneven[v] = v < 48 ? "a" : "b";
  uneven[0] = "c";
  auto m2 = FairShareMoves(uneven, "c");
  EXPECT_EQ(m2.size(), 21u);  // floor(63 / 3)
  for (const auto& [v, to] : m2) EXPECT_EQ(uneven.at(v), "a");
  EXPECT_TRUE(FairShareMoves({}, "c").empty());
  uint32_t v = 0;
  EXPECT_TRUE(ParseVShardKey("vshard.17", &v));
  EXPECT_EQ(v, 17u);
  EXPECT_FALSE(ParseVShardKey("vshard.", &v));
  EXPECT_FALSE(ParseVShardKey("vshard.1x", &v));
  EXPECT_FALSE(ParseVShardKey("node.a", &v));
}

}  // namespace
}  // namespace attest
