// Query embeddings are cached by (embedder identity, text): the cache's LRU behaviour, and the
// engine embedding a repeated query once through a remote embedder (the local OpenAI-protocol
// test server counts the calls).
#include <gtest/gtest.h>

#include "attest/engine.h"
#include "embed/query_cache.h"
#include "support/openai_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::OpenAiTestServer;
using testing_support::OpenAiTestServerOptions;
using testing_support::TempDir;
using testing_support::WriteFile;

TEST(QueryEmbeddingCacheTest, KeysByIdentityAndTextAndEvictsLeastRecentlyUsed) {
  QueryEmbeddingCache cache(2);
  cache.Put("k1", "q", {1.0f});
  cache.Put("k2", "q", {2.0f});
  ASSERT_TRUE(cache.Get("k1", "q").has_value());
  EXPECT_EQ(cache.Get("k1", "q")->at(0), 1.0f);
  EXPECT_EQ(cache.Get("k2", "q")->at(0), 2.0f);
  EXPECT_FALSE(cache.Get("k1", "other").has_value());
  // k1/q was used before k2/q: adding a third entry evicts k1/q.
  cache.Put("k3", "q", {3.0f});
  EXPECT_FALSE(cache.Get("k1", "q").has_value());
  EXPECT_TRUE(cache.Get("k2", "q").has_value());
  EXPECT_TRUE(cache.Get("k3", "q").has_value());
  // A key containing the separator cannot collide with another (identity, text) pair.
  cache.Put(std::string("a\0b", 3), "c", {4.0f});
  EXPECT_FALSE(cache.Get("a", std::string("b\0c", 3)).has_value());
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_GT(cache.misses(), 0u);
}

TEST(QueryEmbeddingCacheTest, TheEngineEmbedsARepeatedQueryOnce) {
  OpenAiTestServerOptions so;
  so.dim = 16;
  OpenAiTestServer server(so);
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl",
            "{\"_id\":\"a\",\"title\":\"\",\"text\":\"logical replication slot\"}\n"
            "{\"_id\":\"b\",\"title\":\"\",\"text\":\"vacuum freeze\"}\n");
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kOpenAi;
  eo.embedder.base_url = server.base_url();
  eo.embedder.model = "m";
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  IngestOptions io;
  io.paths = {tmp.str("c.jsonl")};
  auto rep = (*engine)->Ingest(io);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  ASSERT_TRUE(rep->issues.empty()) << rep->issues[0].message;
  const size_t before = server.request_count();
  SearchOptions q;
  q.mode = SearchMode::kVector;
  q.query = "replication";
  for (int i = 0; i < 3; ++i) {
    auto r = (*engine)->Search(q);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->hits.empty());
    EXPECT_EQ(r->hits[0].doc_id, "a");
  }
  EXPECT_EQ(server.request_count(), before + 1);
  q.query = "vacuum";
  ASSERT_TRUE((*engine)->Search(q).ok());
  EXPECT_EQ(server.request_count(), before + 2);
}

}  // namespace
}  // namespace attest
