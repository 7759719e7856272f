// Model clients, keys and the clock are injected through Engine::Open (EngineOptions::models,
// credentials, clock): an injected embedder, chat model and reranker replace the HTTP clients, and
// keys come only from EngineOptions::credentials, never from the environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "attest/answer.h"
#include "attest/engine.h"
#include "embed/embedder.h"
#include "llm/chat_model.h"
#include "rerank/reranker.h"
#include "support/chat_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::TempDir;
using testing_support::WriteFile;

const char* kCorpus =
    R"J({"_id":"a","title":"Autovacuum","text":"Autovacuum reclaims storage occupied by dead tuples. It runs in the background."})J"
    "\n"
    R"J({"_id":"b","title":"Replication","text":"Logical replication slots keep WAL until the subscriber confirms it."})J"
    "\n";

// Embeds by hashing words into 8 buckets; counts its calls.
class FakeEmbedder final : public Embedder {
 public:
  FakeEmbedder() { id_ = EmbedderIdentity{"openai:fake", 8, "v1"}; }
  const EmbedderIdentity& identity() const override { return id_; }
  Result<std::vector<float>> Embed(std::span<const std::string_view> texts, EmbedPurpose) const override {
    ++calls;
    std::vector<float> out(texts.size() * 8, 0.0f);
    for (size_t i = 0; i < texts.size(); ++i) {
      for (char c : texts[i]) out[i * 8 + static_cast<unsigned char>(c) % 8] += 1.0f;
      NormalizeL2(std::span<float>(out.data() + i * 8, 8));
    }
    return out;
  }
  mutable std::atomic<int> calls{0};

 private:
  EmbedderIdentity id_;
};

class FakeChat final : public ChatModel {
 public:
  Result<ChatResponse> Complete(const ChatRequest&, ChatCallInfo*) const override {
    ++calls;
    return Reply();
  }
  Result<ChatResponse> Stream(const ChatRequest&, const ChatDeltaCallback& on_delta, ChatCallInfo*) const override {
    ++calls;
    ChatResponse r = Reply();
    if (!on_delta(r.content)) return Status::Cancelled("stopped");
    return r;
  }
  const std::string& model() const override { return model_; }
  mutable std::atomic<int> calls{0};

 private:
  static ChatResponse Reply() {
    ChatResponse r;
    r.content = "Autovacuum reclaims storage occupied by dead tuples [1].";
    r.finish_reason = "stop";
    r.model = "fake-chat";
    return r;
  }
  std::string model_ = "fake-chat";
};

class FakeReranker final : public Reranker {
 public:
  Result<std::vector<double>> Score(std::string_view, const std::vector<std::string>& passages) const override {
    ++calls;
    std::vector<double> s(passages.size());
    for (size_t i = 0; i < s.size(); ++i) s[i] = 1.0 / static_cast<double>(i + 1);
    return s;
  }
  std::string name() const override { return "fake:reranker"; }
  mutable std::atomic<int> calls{0};
};

TEST(EngineModelInjection, InjectedEmbedderStandsForTheRemoteOneAcrossOpens) {
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl", kCorpus);
  auto embedder = std::make_shared<FakeEmbedder>();
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kOpenAi;
  eo.embedder.base_url = "http://127.0.0.1:1";  // nothing listens: only the injected one can answer
  eo.embedder.model = "fake";
  eo.models.embedder = embedder;
  {
    auto engine = Engine::Open(eo);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    IngestOptions io;
    io.paths = {tmp.str("c.jsonl")};
    auto rep = (*engine)->Ingest(io);
    ASSERT_TRUE(rep.ok()) << rep.status().ToString();
    EXPECT_TRUE(rep->issues.empty()) << rep->issues[0].message;
    EXPECT_GT(embedder->calls.load(), 0);
  }
  // A later process with the same injected model serves vector searches with it.
  const int before = embedder->calls.load();
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  SearchOptions q;
  q.query = "dead tuples";
  q.mode = SearchMode::kVector;
  auto r = (*engine)->Search(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->hits.empty());
  EXPECT_GT(embedder->calls.load(), before);

  // Without it the HTTP client is built from the stored configuration, and the server is not there.
  EngineOptions plain = eo;
  plain.models.embedder = nullptr;
  plain.read_only = true;  // the engine above still holds the writer lock
  auto http = Engine::Open(plain);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto failed = (*http)->Search(q);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable) << failed.status().ToString();
}

TEST(EngineModelInjection, InjectedChatModelAndRerankerAreUsedByAsk) {
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl", kCorpus);
  auto chat = std::make_shared<FakeChat>();
  auto reranker = std::make_shared<FakeReranker>();
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kNone;
  eo.models.chat = chat;
  eo.models.reranker = reranker;
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  IngestOptions io;
  io.paths = {tmp.str("c.jsonl")};
  ASSERT_TRUE((*engine)->Ingest(io).ok());
  AskOptions ao;
  ao.question = "What does autovacuum reclaim?";
  ao.writer = WriterKind::kLlm;
  auto got = (*engine)->Ask(ao);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_GT(chat->calls.load(), 0);
  EXPECT_GT(reranker->calls.load(), 0);
}

TEST(EngineModelInjection, KeysComeFromCredentialsNeverFromTheEnvironment) {
  ChatTestServer server;
  server.PushReply(ChatReply{.content = "Autovacuum reclaims storage occupied by dead tuples [1]."}, 4);
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl", kCorpus);
  ::setenv("ATTEST_LLM_API_KEY", "sk-right", 1);  // the core must not read it
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kNone;
  eo.llm.base_url = server.base_url();
  eo.llm.model = "m";
  AskOptions ao;
  ao.question = "What does autovacuum reclaim?";
  ao.writer = WriterKind::kLlm;
  {
    auto engine = Engine::Open(eo);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    IngestOptions io;
    io.paths = {tmp.str("c.jsonl")};
    ASSERT_TRUE((*engine)->Ingest(io).ok());
    (void)(*engine)->Ask(ao);
    ASSERT_FALSE(server.server().requests().empty());
    EXPECT_EQ(server.server().requests().back().header("authorization"), "");
  }
  ::unsetenv("ATTEST_LLM_API_KEY");
  std::vector<std::string> asked;
  eo.credentials = [&](const std::string& variable) {
    asked.push_back(variable);
    return std::string("sk-right");
  };
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  (void)(*engine)->Ask(ao);
  EXPECT_EQ(server.server().requests().back().header("authorization"), "Bearer sk-right");
  EXPECT_NE(std::find(asked.begin(), asked.end(), "ATTEST_LLM_API_KEY"), asked.end());
}

}  // namespace
}  // namespace attest
