// Black-box tests of POST /mcp on a real `attest serve` over 127.0.0.1 (docs/mcp.md, "HTTP"):
// 401 with WWW-Authenticate, 405 for GET and DELETE, 403 for a foreign Origin, the 2026-07-28
// header checks (400 HeaderMismatch, 400 UnsupportedProtocolVersion, 404 for an unknown method),
// 202 for notifications, the 2025-11-25 handshake without sessions, and a full tools/call `ask`
// whose result carries the markers and the sources.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::CreateApiKey;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::ServeProcess;
using testing_support::TempDir;

class ServeMcpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    reader_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "reader"});
    other_admin_ = CreateApiKey(data_, {"--tenant", "globex", "--user", "groot", "--admin"});
    other_reader_ = CreateApiKey(data_, {"--tenant", "globex", "--user", "greader"});
    server_ = new ServeProcess(data_, {}, {"--mcp-allow-origin", "https://app.example", "--deadline-ms", "30000"});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    for (auto [key, doc] : {std::pair{admin_, json{{"id", "kettle"}, {"title", "Zephyr kettle warranty"},
                                                   {"url", "https://acme.example/kettle"}, {"published", "2026-03-01"},
                                                   {"text", "The Zephyr kettle comes with a two-year warranty that "
                                                            "covers the heating element. Returns are accepted within "
                                                            "thirty days of purchase."}}},
                            std::pair{other_admin_, json{{"id", "g-kettle"}, {"title", "Globex kettle"},
                                                         {"text", "The Zephyr kettle has a quokkaberry warranty of "
                                                                  "five years at Globex."}}}}) {
      HttpReply r = HttpRequest(server_->port(), testing_support::MakeCall(
                                                     "POST", "/v1/documents", {{"Authorization", "Bearer " + key}},
                                                     doc.dump()));
      ASSERT_EQ(r.status, 200) << r.body;
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }

  // The headers a 2026-07-28 client sends for `method` (and `name` for tools/call, resources/read).
  static std::map<std::string, std::string> Headers(const std::string& key, const std::string& method,
                                                    const std::string& name = "") {
    std::map<std::string, std::string> h = {{"Content-Type", "application/json"},
                                            {"Accept", "application/json, text/event-stream"},
                                            {"MCP-Protocol-Version", "2026-07-28"},
                                            {"Mcp-Method", method}};
    if (!key.empty()) h["Authorization"] = "Bearer " + key;
    if (!name.empty()) h["Mcp-Name"] = name;
    return h;
  }
  static json Request(const std::string& method, json params = json::object(), int id = 1) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }
  static HttpReply Post(std::map<std::string, std::string> headers, const std::string& body) {
    return HttpRequest(server_->port(), testing_support::MakeCall("POST", "/mcp", std::move(headers), body));
  }
  static json Body(const HttpReply& r) {
    json j = json::parse(r.body, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.status << " " << r.body;
    return j;
  }
  static json CallTool(const std::string& key, const std::string& tool, json args) {
    HttpReply r = Post(Headers(key, "tools/call", tool), Request("tools/call", {{"name", tool}, {"arguments", args}}).dump());
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Header("content-type"), "application/json");
    json j = Body(r);
    EXPECT_TRUE(j.contains("result")) << r.body;
    return j.value("result", json::object());
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string data_, admin_, reader_, other_admin_, other_reader_;
  static inline ServeProcess* server_ = nullptr;
};

TEST_F(ServeMcpTest, WithoutAValidCredential401WithWwwAuthenticate) {
  HttpReply none = Post(Headers("", "tools/list"), Request("tools/list").dump());
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_EQ(none.Header("www-authenticate").rfind("Bearer", 0), 0u) << none.Header("www-authenticate");
  EXPECT_EQ(Body(none)["error"]["code"], -31001);
  EXPECT_FALSE(Body(none).contains("id"));
  HttpReply bad = Post(Headers("att_nope_nope", "tools/list"), Request("tools/list").dump());
  EXPECT_EQ(bad.status, 401);
  EXPECT_NE(bad.Header("www-authenticate").find("error=\"invalid_token\""), std::string::npos)
      << bad.Header("www-authenticate");
}

TEST_F(ServeMcpTest, GetAndDeleteAre405) {
  for (const char* method : {"GET", "DELETE"}) {
    HttpReply r = HttpRequest(server_->port(), testing_support::MakeCall(method, "/mcp", Headers(reader_, "x")));
    EXPECT_EQ(r.status, 405) << method << " " << r.body;
    EXPECT_EQ(r.Header("allow"), "POST");
  }
}

TEST_F(ServeMcpTest, OriginIsValidated) {
  for (auto [origin, status] : {std::pair{"https://evil.example", 403}, std::pair{"null", 403},
                                std::pair{"http://localhost.evil.example", 403}, std::pair{"http://127.0.0.1:9/x", 403},
                                std::pair{"http://localhost:5173", 200}, std::pair{"http://127.0.0.1", 200},
                                std::pair{"https://app.example", 200}}) {
    auto h = Headers(reader_, "tools/list");
    h["Origin"] = origin;
    HttpReply r = Post(h, Request("tools/list").dump());
    EXPECT_EQ(r.status, status) << origin << " " << r.body;
    if (status == 403) {
      EXPECT_NE(Body(r)["error"]["message"].get<std::string>().find(origin), std::string::npos);
    }
  }
}

TEST_F(ServeMcpTest, HeadersThatDisagreeWithTheBodyAre400HeaderMismatch) {
  const std::string call = Request("tools/call", {{"name", "search"}, {"arguments", {{"query", "kettle"}}}}).dump();
  struct Case {
    std::map<std::string, std::string> headers;
    const char* words;
  };
  auto without = [](std::map<std::string, std::string> h, const char* name) {
    h.erase(name);
    return h;
  };
  const Case cases[] = {
      {Headers(reader_, "tools/list", "search"), "Mcp-Method"},
      {Headers(reader_, "tools/call", "ask"), "Mcp-Name"},
      {without(Headers(reader_, "tools/call", "search"), "Mcp-Name"), "Mcp-Name header is required"},
      {without(Headers(reader_, "tools/call", "search"), "Mcp-Method"), "Mcp-Method header is required"},
      {without(Headers(reader_, "tools/call", "search"), "MCP-Protocol-Version"), "MCP-Protocol-Version"},
      {Headers(reader_, "tools/call", "=?base64?YXNr?="), "does not match"},  // "ask"
      {Headers(reader_, "tools/call", "=?base64?***?="), "Mcp-Name"},
  };
  for (const Case& c : cases) {
    HttpReply r = Post(c.headers, call);
    EXPECT_EQ(r.status, 400) << r.body;
    json j = Body(r);
    EXPECT_EQ(j["error"]["code"], -32020) << r.body;
    EXPECT_EQ(j["id"], 1);
    EXPECT_NE(j["error"]["message"].get<std::string>().find(c.words), std::string::npos) << r.body;
  }
  json older = Request("tools/list");
  older["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2025-11-25";
  HttpReply mismatch = Post(Headers(reader_, "tools/list"), older.dump());
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(Body(mismatch)["error"]["code"], -32020);
  // The same call with matching headers, the name base64-encoded as the transport allows.
  HttpReply ok = Post(Headers(reader_, "tools/call", "=?base64?c2VhcmNo?="), call);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_FALSE(Body(ok)["result"]["isError"].get<bool>()) << ok.body;
}

TEST_F(ServeMcpTest, VersionsMethodsAndMalformedBodies) {
  auto h = Headers(reader_, "tools/list");
  h["MCP-Protocol-Version"] = "1900-01-01";
  HttpReply old = Post(h, Request("tools/list").dump());
  EXPECT_EQ(old.status, 400);
  EXPECT_EQ(Body(old)["error"]["code"], -32022);
  EXPECT_EQ(Body(old)["error"]["data"]["supported"][0], "2026-07-28");
  HttpReply unknown = Post(Headers(reader_, "prompts/list"), Request("prompts/list").dump());
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown)["error"]["code"], -32601);
  json no_meta = {{"jsonrpc", "2.0"}, {"id", 5}, {"method", "tools/list"}};
  HttpReply missing = Post(Headers(reader_, "tools/list"), no_meta.dump());
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(Body(missing)["error"]["code"], -32602);
  HttpReply parse = Post(Headers(reader_, "tools/list"), "{\"jsonrpc\":");
  EXPECT_EQ(parse.status, 400);
  EXPECT_EQ(Body(parse)["error"]["code"], -32700);
  auto text = Headers(reader_, "tools/list");
  text["Content-Type"] = "text/plain";
  EXPECT_EQ(Post(text, Request("tools/list").dump()).status, 415);
  auto sse_only = Headers(reader_, "tools/list");
  sse_only["Accept"] = "text/event-stream";
  EXPECT_EQ(Post(sse_only, Request("tools/list").dump()).status, 406);
  HttpReply note = Post(Headers(reader_, "notifications/initialized"),
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(note.status, 202) << note.body;
  EXPECT_TRUE(note.body.empty());
  HttpReply discover = Post(Headers(reader_, "server/discover"), Request("server/discover").dump());
  EXPECT_EQ(discover.status, 200);
  EXPECT_EQ(Body(discover)["result"]["resultType"], "complete");
}

TEST_F(ServeMcpTest, TheLegacyHandshakeWorksWithoutSessions) {
  std::map<std::string, std::string> h = {{"Authorization", "Bearer " + reader_},
                                          {"Content-Type", "application/json"},
                                          {"Accept", "application/json, text/event-stream"}};
  HttpReply init = Post(h, R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                           R"("capabilities":{},"clientInfo":{"name":"old","version":"1"}}})");
  ASSERT_EQ(init.status, 200) << init.body;
  EXPECT_EQ(Body(init)["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(init.Header("mcp-session-id"), "") << "stateless: no session is issued";
  h["MCP-Protocol-Version"] = "2025-11-25";
  h["Mcp-Session-Id"] = "ignored-by-the-server";
  HttpReply list = Post(h, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(Body(list)["result"]["tools"].size(), 4u);
  HttpReply ping = Post(h, R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  EXPECT_EQ(Body(ping)["result"], json::object());
  // Under 2025-11-25 an unknown method is an error response, not 404 (which means "session gone").
  HttpReply unknown = Post(h, R"({"jsonrpc":"2.0","id":3,"method":"prompts/list"})");
  EXPECT_EQ(unknown.status, 200);
  EXPECT_EQ(Body(unknown)["error"]["code"], -32601);
  // No header at all: 2025-03-26, which also allows batches.
  h.erase("MCP-Protocol-Version");
  HttpReply batch = Post(h, R"([{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}])");
  ASSERT_EQ(batch.status, 200) << batch.body;
  EXPECT_EQ(json::parse(batch.body).size(), 2u);
}

TEST_F(ServeMcpTest, AskOverHttpCarriesMarkersAndSources) {
  json r = CallTool(reader_, "ask", {{"question", "How long is the warranty of the Zephyr kettle?"}});
  ASSERT_FALSE(r.value("isError", true)) << r;
  EXPECT_EQ(r["resultType"], "complete");
  const json& s = r["structuredContent"];
  ASSERT_EQ(s["outcome"], "answer") << s;
  EXPECT_NE(s["answer"].get<std::string>().find("[1]"), std::string::npos) << s;
  ASSERT_FALSE(s["sources"].empty());
  EXPECT_EQ(s["sources"][0]["doc_id"], "kettle");
  EXPECT_EQ(s["sources"][0]["url"], "https://acme.example/kettle");
  ASSERT_FALSE(s["claims"].empty());
  EXPECT_EQ(s["claims"][0]["citations"][0]["doc_id"], "kettle");
  const std::string text = r["content"][0]["text"];
  EXPECT_NE(text.find("[1]"), std::string::npos);
  EXPECT_NE(text.find("Sources:\n[1] Zephyr kettle warranty — https://acme.example/kettle (2026-03-01)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("quokkaberry"), std::string::npos);
}

TEST_F(ServeMcpTest, ReadersCannotWriteAndTenantsDoNotMix) {
  json add = CallTool(reader_, "add_document", {{"id", "x"}, {"text", "The warranty is ninety years."}});
  EXPECT_TRUE(add.value("isError", false)) << add;
  EXPECT_NE(add["content"][0]["text"].get<std::string>().find("forbidden"), std::string::npos);
  json mine = CallTool(other_reader_, "search", {{"query", "Zephyr kettle warranty"}});
  ASSERT_FALSE(mine["structuredContent"]["hits"].empty()) << mine;
  for (const json& h : mine["structuredContent"]["hits"]) EXPECT_EQ(h["doc_id"], "g-kettle") << h;
  json theirs = CallTool(reader_, "search", {{"query", "quokkaberry"}});
  EXPECT_TRUE(theirs["structuredContent"]["hits"].empty()) << theirs;
}

}  // namespace
}  // namespace attest
