// `attest ask --writer llm` end to end against the local OpenAI-protocol chat server: the
// structured draft's claims are verified (a fabricated quote and a citation outside the evidence
// pack never reach the answer), the model is asked once to repair, tokens and cost are reported,
// and the evidence travels as data in the user message, never in the system instructions.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/chat_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

TEST(CliAskLlmTest, StructuredDraftIsVerifiedRepairedAndAccounted) {
  ChatTestServer chat;
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl",
            "{\"_id\":\"notes\",\"title\":\"Release 17 notes\",\"text\":\"Subscribers can now apply large "
            "streamed transactions with parallel workers.\",\"metadata\":{\"source_type\":\"release_notes\"}}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);

  nlohmann::json draft = {
      {"answer", "x"},
      {"claims",
       {{{"id", "c1"}, {"text", "Subscribers can apply large streamed transactions with parallel workers."},
         {"cites", {{{"source", "S1"}, {"quote", "apply large streamed transactions with parallel workers"}}}}},
        {{"id", "c2"}, {"text", "Parallel workers are always enabled."},
         {"cites", {{{"source", "S1"}, {"quote", "workers are always enabled"}}}}},
        {{"id", "c3"}, {"text", "It was released in 2019."},
         {"cites", {{{"source", "S9"}, {"quote", "released in 2019"}}}}}}}};
  ChatReply first;
  first.content = draft.dump();
  first.prompt_tokens = 120;
  first.completion_tokens = 40;
  chat.PushReply(first);
  ChatReply repair;  // the repair keeps only the supported claim
  nlohmann::json repaired = draft;
  repaired["claims"] = nlohmann::json::array({draft["claims"][0]});
  repair.content = repaired.dump();
  repair.prompt_tokens = 150;
  repair.completion_tokens = 20;
  chat.PushReply(repair);

  auto r = RunAttest({"--data", data, "--llm-url", chat.base_url(), "--llm-model", "m", "--llm-prompt-price", "2",
                      "--llm-completion-price", "10", "ask", "--writer", "llm", "--json",
                      "Can subscribers apply streamed transactions with parallel workers?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["outcome"], "answer") << j.dump(2);
  EXPECT_NE(j["answer"].get<std::string>().find("parallel workers"), std::string::npos);
  EXPECT_EQ(j["answer"].get<std::string>().find("always"), std::string::npos);
  EXPECT_EQ(j["answer"].get<std::string>().find("2019"), std::string::npos);
  for (const auto& c : j["claims"]) EXPECT_EQ(c["verdict"], "supported") << c.dump();
  EXPECT_EQ(j["tokens"]["prompt"], 270);
  EXPECT_EQ(j["tokens"]["completion"], 60);
  EXPECT_NEAR(j["cost"].get<double>(), (270 * 2.0 + 60 * 10.0) / 1e6, 1e-12);

  auto requests = chat.chat_requests();
  ASSERT_EQ(requests.size(), 2u) << "one draft, one repair";
  const auto& messages = requests[0]["messages"];
  ASSERT_GE(messages.size(), 2u);
  EXPECT_EQ(messages[0]["role"], "system");
  EXPECT_EQ(messages[0]["content"].get<std::string>().find("streamed transactions"), std::string::npos)
      << "the evidence never enters the system instructions";
  EXPECT_NE(messages[1]["content"].get<std::string>().find("streamed transactions"), std::string::npos);
  EXPECT_TRUE(requests[0].contains("response_format"));
}

TEST(CliAskLlmTest, ServerErrorsAreClear) {
  ChatTestServer chat;
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl", "{\"_id\":\"a\",\"title\":\"Vacuum\",\"text\":\"Autovacuum reclaims dead tuples.\"}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  ChatReply refusal;
  refusal.refusal = "I cannot help with that.";
  refusal.content = "";
  chat.PushReply(refusal);
  auto r = RunAttest({"--data", data, "--llm-url", chat.base_url(), "--llm-model", "m", "ask", "--writer", "llm",
                      "autovacuum dead tuples"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("refus"), std::string::npos) << r.err;
  r = RunAttest({"--data", data, "--llm-url", chat.base_url(), "ask", "autovacuum"});
  EXPECT_EQ(r.exit_code, 2) << "--llm-url without --llm-model";
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// The optional LLM judge over the extractive writer's claims: it can downgrade a claim the
// built-in checks passed (here to unsupported, so nothing survives and the answer falls back),
// and it needs a chat model.
TEST(CliAskLlmTest, LlmJudgeDowngradesAndNeedsAModel) {
  ChatTestServer chat;
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl",
            "{\"_id\":\"a\",\"title\":\"Vacuum\",\"text\":\"Autovacuum reclaims dead tuples in the background.\"}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  ChatReply verdicts;
  verdicts.content = R"({"verdicts": [{"id": "c1", "verdict": "unsupported", "reason": "the quote is about something else"}]})";
  chat.PushReply(verdicts);
  auto r = RunAttest({"--data", data, "--llm-url", chat.base_url(), "--llm-model", "m", "ask", "--judge", "llm",
                      "--json", "What does autovacuum reclaim?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "fallback") << j.dump(2);
  EXPECT_EQ(j["fallback_reason"], "claims_unsupported");
  ASSERT_FALSE(j["claims"].empty());
  EXPECT_EQ(j["claims"][0]["verdict"], "unsupported");
  EXPECT_NE(j["claims"][0]["reason"].get<std::string>().find("judge"), std::string::npos);
  EXPECT_EQ(chat.chat_requests().size(), 1u);

  r = RunAttest({"--data", data, "ask", "--judge", "llm", "What does autovacuum reclaim?"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("judge needs a chat model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attest

#include "support/rerank_test_server.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::RerankTestServer;

// An external cross-encoder reorders the evidence; when it fails the answer is still given from
// the built-in ranking and marked degraded.
TEST(CliAskRerankTest, CrossEncoderReordersAndFailuresDegrade) {
  RerankTestServer rerank;
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl",
            "{\"_id\":\"a\",\"title\":\"Vacuum\",\"text\":\"Autovacuum reclaims dead tuples. It runs in the "
            "background.\"}\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  const std::vector<std::string> base = {"--data", data, "--rerank-url", rerank.base_url(), "--rerank-model", "bge",
                                         "--rerank-api", "tei", "ask", "--json", "What does autovacuum reclaim?"};
  auto r = RunAttest(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "answer");
  EXPECT_TRUE(j["degraded"].empty()) << j["degraded"].dump();
  ASSERT_EQ(rerank.rerank_requests().size(), 1u);
  EXPECT_NE(rerank.rerank_requests()[0].body.find("What does autovacuum reclaim?"), std::string::npos);

  OpenAiFault down;
  down.status = 503;
  rerank.server().PushFault(down, 10);
  r = RunAttest(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "answer");
  ASSERT_FALSE(j["degraded"].empty());
  EXPECT_NE(j["degraded"][0].get<std::string>().find("rerank_failed"), std::string::npos);

  r = RunAttest({"--data", data, "--rerank-url", rerank.base_url(), "--rerank-model", "bge", "--rerank-api", "colbert",
                 "ask", "autovacuum"});
  EXPECT_NE(r.exit_code, 0);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// `attest ask --stream` runs the streamed sentences through the answer path's sentence gate: a
// sentence whose citation holds is verified as it completes, one that cites nothing is retracted.
TEST(CliAskLlmTest, StreamedSentencesPassTheSentenceGate) {
  testing_support::ChatTestServer chat;
  testing_support::TempDir tmp;
  const std::string data = tmp.str("data");
  testing_support::WriteFile(tmp.path() / "d.jsonl",
                             "{\"_id\":\"notes\",\"title\":\"Release 17 notes\",\"text\":\"Subscribers can now apply "
                             "large streamed transactions with parallel workers.\"}\n");
  ASSERT_EQ(testing_support::RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  chat.set_reject_response_format(true);  // the prose path: the model's text streams
  testing_support::ChatReply reply;
  reply.content = "Subscribers can now apply large streamed transactions with parallel workers [1]. "
                  "It is the best release ever.";
  reply.piece_bytes = 8;
  chat.PushReply(reply);
  testing_support::ChatReply repair;  // the repair round keeps the cited sentence
  repair.content = "Subscribers can now apply large streamed transactions with parallel workers [1].";
  chat.PushReply(repair);
  auto r = testing_support::RunAttest({"--data", data, "--llm-url", chat.base_url(), "--llm-model", "m", "ask",
                                       "--writer", "llm", "--stream",
                                       "Can subscribers apply streamed transactions with parallel workers?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("verified c1 (supported): Subscribers can now apply large streamed transactions"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("retracted c2 (uncited): It is the best release ever."), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("parallel workers"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attest
