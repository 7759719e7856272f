// Black-box tests of the OpenAI-compatible routes (docs/openai_api.md) against the real `attest
// serve` on 127.0.0.1: the models list, a non-streamed and a streamed chat completion (markers and
// a Sources list in the content, citations equal to the sources of /v1/answer's kept claims,
// annotation spans exact), errors in OpenAI's shape, 401 without a key, a follow-up planned from
// the earlier user turn (as a stored thread plans it, with nothing stored), and the attest-llm
// profile against the local OpenAI-compatible chat server (usage counted from its calls).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/chat_test_server.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::BearerRequest;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::RunAttest;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

const char* kQuestion = "How are deployments released and approved?";

// The code points [start, end) of UTF-8 `s`, as a client slicing the content by characters.
std::string Slice(const std::string& s, size_t start, size_t end) {
  std::string out;
  size_t cp = 0;
  bool first = true;
  for (char ch : s) {
    const bool lead = (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    if (lead && !first) ++cp;
    first = false;
    if (cp >= start && cp < end) out.push_back(ch);
  }
  return out;
}

// The URLs of the documents cited by the kept claims of a /v1/answer body, by first citation.
json CitedUrls(const json& answer) {
  std::map<std::string, json> by_id;
  for (const json& s : answer["sources"]) by_id[s["id"]] = s;
  json urls = json::array();
  std::set<std::string> docs;
  for (const json& c : answer["claims"]) {
    if (!c.value("kept", false)) continue;
    for (const json& cite : c["cites"]) {
      const json& s = by_id.at(cite["source"]);
      if (docs.insert(s["doc_id"].get<std::string>()).second) urls.push_back(s["url"]);
    }
  }
  return urls;
}

// Each annotation spans an [n] marker of the content and names source n.
void ExpectAnnotationsExact(const std::string& content, const json& annotations, const json& citations) {
  ASSERT_TRUE(annotations.is_array());
  ASSERT_FALSE(annotations.empty());
  for (const json& a : annotations) {
    ASSERT_EQ(a["type"], "url_citation") << a.dump();
    const json& u = a["url_citation"];
    const std::string span = Slice(content, u["start_index"].get<size_t>(), u["end_index"].get<size_t>());
    ASSERT_GE(span.size(), 3u) << a.dump();
    ASSERT_EQ(span.front(), '[');
    ASSERT_EQ(span.back(), ']');
    const size_t n = std::stoul(span.substr(1, span.size() - 2));
    ASSERT_GE(n, 1u);
    ASSERT_LE(n, citations.size());
    EXPECT_EQ(u["url"], citations[n - 1]) << a.dump();
  }
}

class ServeOpenAiTest : public ::testing::Test {
 protected:
  void Start(const std::vector<std::string>& global) {
    data_ = dir_.str("data");
    auto r = RunAttest({"--data", data_, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    key_ = json::parse(r.out).at("key").get<std::string>();
    server_ = std::make_unique<testing_support::ServeProcess>(data_, global, std::vector<std::string>{});
    port_ = server_->port();
    ASSERT_NE(port_, 0) << server_->child().out();
    const json docs = {
        {{"id", "deploys"}, {"title", "Deployment procedure"}, {"url", "https://docs.example.test/deploys"},
         {"published", "2025-04-01"},
         {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the platform "
                  "team before traffic moves."}},
        {{"id", "zephyr"}, {"title", "Zephyr kettle"}, {"url", "https://shop.example.test/zephyr"},
         {"text", "The Zephyr kettle costs 40 euros. The Zephyr kettle warranty lasts two years."}},
        {{"id", "aurora"}, {"title", "Aurora toaster"}, {"url", "https://shop.example.test/aurora"},
         {"text", "The Aurora toaster costs 25 euros. The Aurora toaster warranty lasts five years."}}};
    for (const json& d : docs) ASSERT_EQ(Post("/v1/documents", d).status, 200);
  }

  HttpReply Post(const std::string& path, const json& body, const std::string& key = "") {
    return BearerRequest(port_, "POST", path, key.empty() ? key_ : key, body.dump());
  }
  static json Chat(const std::string& model, json messages, bool stream = false) {
    json body = {{"model", model}, {"messages", std::move(messages)}};
    if (stream) body["stream"] = true;
    return body;
  }
  static json User(const std::string& text) { return {{"role", "user"}, {"content", text}}; }
  // A streamed completion's data lines.
  std::vector<std::string> Stream(const json& body) {
    HttpCall c;
    c.method = "POST";
    c.path = "/v1/chat/completions";
    c.headers = {{"Authorization", "Bearer " + key_}};
    c.body = body.dump();
    std::vector<SseEvent> events;
    HttpReply r = SseRequest(port_, c, &events);
    EXPECT_EQ(r.status, 200) << r.error << r.body;
    EXPECT_NE(r.Header("content-type").find("text/event-stream"), std::string::npos);
    std::vector<std::string> data;
    for (const SseEvent& e : events) {
      EXPECT_EQ(e.event, "") << "chunks are unnamed events";
      data.push_back(e.data);
    }
    return data;
  }

  TempDir dir_;
  std::string data_, key_;
  std::unique_ptr<testing_support::ServeProcess> server_;
  uint16_t port_ = 0;
};

class ServeOpenAiExtractiveTest : public ServeOpenAiTest {
 protected:
  void SetUp() override { Start({}); }
};

TEST_F(ServeOpenAiExtractiveTest, ModelsListsTheProfilesOfThisServer) {
  HttpReply r = BearerRequest(port_, "GET", "/v1/models", key_);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "list");
  ASSERT_EQ(j["data"].size(), 1u) << "attest-llm needs a chat model";
  EXPECT_EQ(j["data"][0]["id"], "attest-extractive");
  EXPECT_EQ(j["data"][0]["object"], "model");
  EXPECT_FALSE(r.Header("x-request-id").empty());
}

TEST_F(ServeOpenAiExtractiveTest, WithoutAKeyIs401InOpenAisShape) {
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v1/models"}, {"POST", "/v1/chat/completions"}}) {
    HttpReply r = BearerRequest(port_, method, path, "", Chat("attest-extractive", {User(kQuestion)}).dump());
    EXPECT_EQ(r.status, 401) << path;
    EXPECT_EQ(r.Header("www-authenticate"), "Bearer");
    json e = json::parse(r.body)["error"];
    EXPECT_EQ(e["type"], "authentication_error") << r.body;
    EXPECT_EQ(e["code"], "unauthorized");
    EXPECT_TRUE(e.contains("param") && e["param"].is_null()) << r.body;
    EXPECT_TRUE(e["message"].is_string());
  }
  EXPECT_EQ(BearerRequest(port_, "GET", "/v1/models", "ak_wrong").status, 401);
}

TEST_F(ServeOpenAiExtractiveTest, ACompletionHasMarkersSourcesAndTheCitationsOfTheAnswer) {
  HttpReply a = Post("/v1/answer", {{"query", kQuestion}, {"no_cache", true}});
  ASSERT_EQ(a.status, 200) << a.body;
  const json answer = json::parse(a.body);
  ASSERT_EQ(answer["outcome"], "answer") << a.body;

  HttpReply r = Post("/v1/chat/completions", Chat("attest-extractive", {User(kQuestion)}));
  ASSERT_EQ(r.status, 200) << r.body;
  const json c = json::parse(r.body);
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["model"], "attest-extractive");
  EXPECT_EQ(c["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  const json& msg = c["choices"][0]["message"];
  EXPECT_EQ(msg["role"], "assistant");
  EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
  const std::string content = msg["content"];
  EXPECT_NE(content.find("blue green releases. [1]"), std::string::npos) << content;
  EXPECT_NE(content.find("\n\n**Sources**\n\n- [1] [Deployment procedure](https://docs.example.test/deploys) "
                         "\u2014 2025-04-01"),
            std::string::npos)
      << content;
  EXPECT_EQ(c["citations"], CitedUrls(answer)) << r.body;
  EXPECT_EQ(c["citations"], json({"https://docs.example.test/deploys"}));
  EXPECT_EQ(c["search_results"][0],
            json({{"title", "Deployment procedure"}, {"url", "https://docs.example.test/deploys"}, {"date", "2025-04-01"}}));
  ExpectAnnotationsExact(content, msg["annotations"], c["citations"]);
  EXPECT_EQ(c["usage"], json({{"prompt_tokens", 0}, {"completion_tokens", 0}, {"total_tokens", 0}}))
      << "the extractive writer calls no model";
  // Every sentence of the content is a kept claim of the answer (nothing unverified).
  for (const json& claim : answer["claims"]) {
    if (!claim.value("kept", false)) {
      EXPECT_EQ(content.find(claim["text"].get<std::string>()), std::string::npos);
    }
  }
}

TEST_F(ServeOpenAiExtractiveTest, AStreamSendsTheSameContentInChunksThenDone) {
  const json whole = json::parse(Post("/v1/chat/completions", Chat("attest-extractive", {User(kQuestion)})).body);
  json body = Chat("attest-extractive", {User(kQuestion)}, true);
  body["stream_options"] = {{"include_usage", true}};
  std::vector<std::string> data = Stream(body);
  ASSERT_GE(data.size(), 5u);
  EXPECT_EQ(data.back(), "[DONE]");
  const json first = json::parse(data.front());
  EXPECT_EQ(first["object"], "chat.completion.chunk");
  EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
  std::string content;
  json finish, usage;
  size_t content_chunks = 0;
  for (size_t i = 0; i + 1 < data.size(); ++i) {
    const json chunk = json::parse(data[i]);
    ASSERT_FALSE(chunk.contains("error")) << data[i];
    EXPECT_EQ(chunk["id"], first["id"]);
    if (chunk["choices"].empty()) {
      usage = chunk["usage"];
      EXPECT_EQ(i + 2, data.size()) << "the usage chunk comes last, before [DONE]";
      continue;
    }
    EXPECT_TRUE(chunk.contains("usage") && chunk["usage"].is_null()) << "include_usage: null on every other chunk";
    const json& choice = chunk["choices"][0];
    if (choice["delta"].contains("content") && i > 0) {
      content += choice["delta"]["content"].get<std::string>();
      ++content_chunks;
    }
    if (!choice["finish_reason"].is_null()) finish = chunk;
  }
  EXPECT_GT(content_chunks, 1u) << "the content is sent in pieces";
  EXPECT_EQ(content, whole["choices"][0]["message"]["content"]);
  ASSERT_TRUE(finish.is_object());
  EXPECT_EQ(finish["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(finish["citations"], whole["citations"]);
  EXPECT_EQ(finish["search_results"], whole["search_results"]);
  ExpectAnnotationsExact(content, finish["choices"][0]["delta"]["annotations"], finish["citations"]);
  EXPECT_EQ(usage, json({{"prompt_tokens", 0}, {"completion_tokens", 0}, {"total_tokens", 0}}));
}

TEST_F(ServeOpenAiExtractiveTest, ErrorsHaveOpenAisShape) {
  HttpReply r = Post("/v1/chat/completions", Chat("gpt-4o", {User(kQuestion)}));
  EXPECT_EQ(r.status, 404);
  json e = json::parse(r.body)["error"];
  EXPECT_EQ(e["code"], "model_not_found") << r.body;
  EXPECT_EQ(e["type"], "not_found_error");
  EXPECT_EQ(e["param"], "model");

  r = Post("/v1/chat/completions", Chat("attest-extractive", {User("first"), {{"role", "user"}, {"content", 5}}}));
  EXPECT_EQ(r.status, 400);
  e = json::parse(r.body)["error"];
  EXPECT_EQ(e["param"], "messages[1].content") << r.body;
  EXPECT_EQ(e["type"], "invalid_request_error");
  EXPECT_EQ(e["code"], "invalid_request");

  r = Post("/v1/chat/completions", Chat("attest-llm", {User(kQuestion)}));
  EXPECT_EQ(r.status, 404) << "no chat model: no attest-llm profile";

  r = BearerRequest(port_, "POST", "/v1/chat/completions", key_, "{not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "invalid_json");
  // A streamed request that fails validation gets the JSON error, not a stream.
  json bad = Chat("attest-extractive", {{{"role", "assistant"}, {"content", "hi"}}}, true);
  r = Post("/v1/chat/completions", bad);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "messages[0].role");
}

TEST_F(ServeOpenAiExtractiveTest, TheRateLimitAnswers429InOpenAisShape) {
  // A key of its own rate (0.5/s): the second request within a second is refused.
  auto created = RunAttest({"--data", data_, "keys", "create", "--json", "--tenant", "acme", "--user", "lim", "--rate",
                            "0.5"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string limited = json::parse(created.out).at("key").get<std::string>();
  HttpReply r;
  for (int i = 0; i < 4 && r.status != 429; ++i) r = BearerRequest(port_, "GET", "/v1/models", limited);
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_FALSE(r.Header("retry-after").empty());
  json e = json::parse(r.body)["error"];
  EXPECT_EQ(e["type"], "rate_limit_error") << r.body;
  EXPECT_EQ(e["code"], "rate_limited");
}

TEST_F(ServeOpenAiExtractiveTest, AFollowUpIsPlannedFromTheEarlierUserTurn) {
  // The oracle: the same conversation in a stored thread.
  HttpReply t = Post("/v1/threads", {{"title", "kettles"}});
  ASSERT_EQ(t.status, 201) << t.body;
  const std::string thread = json::parse(t.body)["thread_id"];
  ASSERT_EQ(Post("/v1/threads/" + thread + "/messages", {{"query", "What does the Zephyr kettle cost?"}}).status, 200);
  HttpReply follow = Post("/v1/threads/" + thread + "/messages", {{"query", "and the warranty?"}});
  ASSERT_EQ(follow.status, 200) << follow.body;
  const json in_thread = json::parse(follow.body);
  ASSERT_EQ(in_thread["outcome"], "answer") << follow.body;

  json messages = {{{"role", "system"}, {"content", "Answer about the Aurora toaster only."}},
                   User("What does the Zephyr kettle cost?"),
                   {{"role", "assistant"}, {"content", "The Aurora toaster warranty lasts five years. [1]"}},
                   User("and the warranty?")};
  HttpReply r = Post("/v1/chat/completions", Chat("attest-extractive", messages));
  ASSERT_EQ(r.status, 200) << r.body;
  const json c = json::parse(r.body);
  const std::string content = c["choices"][0]["message"]["content"];
  EXPECT_NE(content.find("two years"), std::string::npos) << content;
  EXPECT_EQ(content.find("five years"), std::string::npos) << "system and assistant turns are not evidence";
  EXPECT_EQ(c["citations"], CitedUrls(in_thread));
  EXPECT_EQ(c["citations"], json({"https://shop.example.test/zephyr"}));
}

// The attest-llm profile: the LLM writer and judge against the local OpenAI-compatible chat server.
class ServeOpenAiLlmTest : public ServeOpenAiTest {
 protected:
  void SetUp() override {
    chat_.set_reject_response_format(true);  // the prose path (the judge's structured call is refused)
    Start({"--llm-url", chat_.base_url(), "--llm-model", "m"});
  }
  void Script() {
    ChatReply reply;
    reply.content = "The deployment procedure uses blue green releases [2]. Every deployment is approved by the "
                    "platform team [1].";
    reply.prompt_tokens = 321;
    reply.completion_tokens = 45;
    chat_.PushReply(reply);
  }
  ChatTestServer chat_;
};

TEST_F(ServeOpenAiLlmTest, UsageCountsTheModelCallsAndOnlyVerifiedSentencesAreSent) {
  HttpReply models = BearerRequest(port_, "GET", "/v1/models", key_);
  ASSERT_EQ(models.status, 200);
  ASSERT_EQ(json::parse(models.body)["data"].size(), 2u);
  EXPECT_EQ(json::parse(models.body)["data"][1]["id"], "attest-llm");

  Script();
  json body = Chat("attest-llm", {User(kQuestion)}, true);
  body["stream_options"] = {{"include_usage", true}};
  std::vector<std::string> data = Stream(body);
  ASSERT_GE(data.size(), 4u);
  EXPECT_EQ(data.back(), "[DONE]");
  std::string content;
  json usage, finish;
  for (size_t i = 0; i + 1 < data.size(); ++i) {
    const json chunk = json::parse(data[i]);
    ASSERT_FALSE(chunk.contains("error")) << data[i];
    if (chunk["choices"].empty()) {
      usage = chunk["usage"];
      continue;
    }
    const json& d = chunk["choices"][0]["delta"];
    if (d.contains("content")) content += d["content"].get<std::string>();
    if (!chunk["choices"][0]["finish_reason"].is_null()) finish = chunk;
  }
  ASSERT_FALSE(chat_.chat_requests().empty()) << "the writer called the model";
  EXPECT_EQ(usage["prompt_tokens"], 321) << usage.dump();
  EXPECT_EQ(usage["completion_tokens"], 45);
  EXPECT_EQ(usage["total_tokens"], 366);
  EXPECT_NE(content.find("blue green releases. [1]"), std::string::npos) << content;
  EXPECT_NE(content.find("platform team. [1]"), std::string::npos) << content;
  EXPECT_NE(content.find("- [1] [Deployment procedure](https://docs.example.test/deploys)"), std::string::npos);
  EXPECT_EQ(finish["citations"], json({"https://docs.example.test/deploys"}));
  ExpectAnnotationsExact(content, finish["choices"][0]["delta"]["annotations"], finish["citations"]);

  // A sentence the verifier drops is never sent.
  ChatReply wrong;
  wrong.content = "Weekly deployments are rejected by the finance committee [1]. The deployment procedure uses blue "
                  "green releases [2].";
  chat_.PushReply(wrong);
  chat_.PushReply(wrong);  // the repair round, if the writer asks for one
  HttpReply r = Post("/v1/chat/completions", Chat("attest-llm", {User(kQuestion)}));
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string text = json::parse(r.body)["choices"][0]["message"]["content"];
  EXPECT_EQ(text.find("finance committee"), std::string::npos) << text;
  EXPECT_GT(json::parse(r.body)["usage"]["prompt_tokens"].get<int>(), 0);
}

// The LLM writer streams a sentence the gate retracts and the repair round rewrites: the chat stream
// sends only the final text (never the retracted sentence, once only the repaired one).
TEST_F(ServeOpenAiLlmTest, AStreamSendsOnlyTheRepairedFinalText) {
  ChatReply wrong;
  wrong.content = "Weekly deployments are rejected by the finance committee [1]. The deployment procedure uses blue "
                  "green releases [2].";
  wrong.piece_bytes = 16;
  chat_.PushReply(wrong);
  ChatReply repaired;
  repaired.content =
      "Every deployment is approved by the platform team [1]. The deployment procedure uses blue green releases [2].";
  chat_.PushReply(repaired);
  std::string content;
  for (const std::string& d : Stream(Chat("attest-llm", {User(kQuestion)}, true))) {
    if (d == "[DONE]") continue;
    const json chunk = json::parse(d);
    ASSERT_FALSE(chunk.contains("error")) << d;
    const json& delta = chunk["choices"][0]["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
  }
  EXPECT_EQ(content.find("finance committee"), std::string::npos) << content;
  EXPECT_NE(content.find("approved by the platform team"), std::string::npos) << content;
  const size_t first = content.find("blue green releases");
  ASSERT_NE(first, std::string::npos) << content;
  EXPECT_EQ(content.find("blue green releases", first + 1), std::string::npos) << "sent once: " << content;
}

TEST_F(ServeOpenAiLlmTest, AModelServerFailureIsAnOpenAiErrorBeforeOrInsideTheStream) {
  testing_support::OpenAiFault fault;
  fault.status = 500;
  chat_.server().PushFault(fault, 3);  // the first attempt and its two retries
  HttpReply r = Post("/v1/chat/completions", Chat("attest-llm", {User(kQuestion)}));
  EXPECT_EQ(r.status, 502) << r.body;
  json e = json::parse(r.body)["error"];
  EXPECT_EQ(e["type"], "server_error") << r.body;
  EXPECT_EQ(e["code"], "upstream_error");
  EXPECT_EQ(e["param"], "model");

  // Streamed: the stream has started (role chunk) when the writer fails, so the error is one data
  // line in OpenAI's shape and there is no [DONE]; no answer text was sent.
  chat_.server().PushFault(fault, 3);
  std::vector<std::string> data = Stream(Chat("attest-llm", {User(kQuestion)}, true));
  ASSERT_GE(data.size(), 2u);
  EXPECT_EQ(json::parse(data.front())["choices"][0]["delta"]["role"], "assistant");
  const json last = json::parse(data.back(), nullptr, false);
  ASSERT_TRUE(last.is_object()) << data.back();
  EXPECT_EQ(last["error"]["code"], "upstream_error") << data.back();
  EXPECT_EQ(last["error"]["type"], "server_error");
  for (size_t i = 1; i + 1 < data.size(); ++i) {
    const json chunk = json::parse(data[i]);
    EXPECT_FALSE(chunk["choices"][0]["delta"].contains("content")) << data[i];
  }
}

}  // namespace
}  // namespace attest
