// The MCP protocol core (src/mcp/, docs/mcp.md) against a real Service over a real engine and
// auth.db: every method in both protocol eras, malformed messages, unknown tools, bad arguments,
// a reader calling add_document, and tenant isolation (tenant A's search, ask and resources never
// return tenant B's document).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

#include "attest/engine.h"
#include "mcp/mcp_resources.h"
#include "mcp/mcp_server.h"
#include "service/audit_log.h"
#include "service/auth_store.h"
#include "service/authenticator.h"
#include "service/service.h"
#include "support/process.h"

namespace attest::mcp {
namespace {

using nlohmann::json;
using testing_support::TempDir;

class McpCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions eo;
    eo.data_dir = tmp_.str("data");
    eo.threads = 2;
    auto engine = Engine::Open(eo);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    {
      auto store = service::AuthStore::Open({tmp_.path() / "data" / "auth.db"});
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      for (auto [tenant, admin, out] : {std::tuple{"a", true, &a_admin_key_}, std::tuple{"a", false, &a_reader_key_},
                                        std::tuple{"b", true, &b_admin_key_}, std::tuple{"b", false, &b_reader_key_}}) {
        service::CreateKeyArgs args;
        args.tenant = tenant;
        args.user = std::string(tenant) + (admin ? "-admin" : "-reader");
        args.admin = admin;
        auto created = store.value()->CreateKey(args);
        ASSERT_TRUE(created.ok()) << created.status().ToString();
        *out = created.value().plaintext;
      }
    }
    service::AuthOptions ao;
    ao.auth_db = tmp_.path() / "data" / "auth.db";
    auto auth = service::Authenticator::Create(ao);
    ASSERT_TRUE(auth.ok()) << auth.error().message;
    auth_ = std::move(auth).value();
    service::AuditOptions audit;
    audit.path = tmp_.path() / "audit.jsonl";
    auto log = service::AuditLog::Open(audit);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    audit_ = std::move(log).value();
    service::ServiceOptions so;
    so.default_deadline_ms = 30000;  // a loaded test machine must not turn answers into fallbacks
    service_ = std::make_unique<service::Service>(*engine_, *auth_, metrics_, audit_.get(), so);
    server_ = std::make_unique<McpServer>(*service_);
    a_admin_ = Who(a_admin_key_);
    a_reader_ = Who(a_reader_key_);
    b_admin_ = Who(b_admin_key_);
    b_reader_ = Who(b_reader_key_);
  }

  service::Identity Who(const std::string& key) {
    auto who = auth_->Authenticate({{"authorization", "Bearer " + key}});
    EXPECT_TRUE(who.ok()) << who.error().message;
    return who.ok() ? who.value() : service::Identity{};
  }

  Reply Send(const service::Identity& who, const std::string& text, const std::string& transport_version = "") {
    CallContext cc;
    cc.who = &who;
    cc.request.request_id = "req_test";
    cc.request.route = "test";
    cc.request.received = std::chrono::steady_clock::now();
    cc.transport_version = transport_version;
    return server_->HandleText(text, cc);
  }

  // A 2026-07-28 request (with the required _meta) and its response.
  json Modern(const service::Identity& who, const std::string& method, json params = json::object(),
              Disposition expected = Disposition::kOk) {
    params["_meta"] = {{kMetaProtocolVersion, kModernVersion}, {kMetaClientCapabilities, json::object()}};
    Reply r = Send(who, json{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}}.dump());
    EXPECT_EQ(static_cast<int>(r.disposition), static_cast<int>(expected)) << r.body;
    json j = json::parse(r.body, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.body;
    EXPECT_EQ(j.value("id", -1), id_) << r.body;
    return j;
  }

  json Tool(const service::Identity& who, const std::string& name, json args) {
    json r = Modern(who, "tools/call", {{"name", name}, {"arguments", std::move(args)}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return r.value("result", json::object());
  }

  void AddDocument(const service::Identity& admin, json doc) {
    json r = Tool(admin, "add_document", std::move(doc));
    ASSERT_FALSE(r.value("isError", true)) << r.dump();
    EXPECT_EQ(r["structuredContent"].value("added", 0), 1) << r.dump();
  }

  void AddCorpus() {
    AddDocument(a_admin_, {{"id", "a-kettle"}, {"title", "Zephyr kettle warranty"},
                           {"url", "https://a.example/kettle"}, {"published", "2026-03-01"},
                           {"text", "The Zephyr kettle comes with a two-year warranty that covers the heating "
                                    "element. Returns are accepted within thirty days of purchase."}});
    AddDocument(a_admin_, {{"id", "a-toaster"}, {"title", "Toaster manual"}, {"url", "https://a.example/toaster"},
                           {"text", "The Nimbus toaster has four slots and a defrost setting."}});
    AddDocument(b_admin_, {{"id", "b-kettle"}, {"title", "Zephyr kettle warranty (tenant b)"},
                           {"url", "https://b.example/kettle"},
                           {"text", "The Zephyr kettle comes with a five-year warranty in tenant b, says the "
                                    "quokkaberry clause."}});
  }

  TempDir tmp_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<service::Authenticator> auth_;
  service::Registry metrics_;
  std::unique_ptr<service::AuditLog> audit_;
  std::unique_ptr<service::Service> service_;
  std::unique_ptr<McpServer> server_;
  std::string a_admin_key_, a_reader_key_, b_admin_key_, b_reader_key_;
  service::Identity a_admin_, a_reader_, b_admin_, b_reader_;
  int id_ = 0;
};

std::string Text(const json& tool_result) {
  const json& c = tool_result.at("content");
  return c.empty() ? "" : c[0].value("text", "");
}

TEST_F(McpCoreTest, DiscoverAdvertisesEveryVersionWithResultTypeAndCachingHints) {
  json r = Modern(a_reader_, "server/discover")["result"];
  EXPECT_EQ(r["supportedVersions"], json({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}));
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_TRUE(r["capabilities"].contains("resources"));
  EXPECT_EQ(r["_meta"][kMetaServerInfo]["name"], "attest");
  EXPECT_GE(r.value("ttlMs", -1), 0);
  EXPECT_EQ(r["cacheScope"], "public");
}

TEST_F(McpCoreTest, InitializeNegotiatesTheLegacyVersions) {
  for (auto [asked, given] : {std::pair{"2025-11-25", "2025-11-25"}, std::pair{"2025-06-18", "2025-06-18"},
                              std::pair{"2025-03-26", "2025-03-26"}, std::pair{"2024-11-05", "2025-11-25"},
                              std::pair{"2026-07-28", "2025-11-25"}}) {
    Reply r = Send(a_reader_, json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                                   {"params", {{"protocolVersion", asked}, {"capabilities", json::object()},
                                               {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}.dump());
    json j = json::parse(r.body);
    EXPECT_EQ(j["result"]["protocolVersion"], given) << asked;
    EXPECT_EQ(r.negotiated_version, given);
    EXPECT_FALSE(j["result"].contains("resultType")) << "legacy results carry no resultType";
    EXPECT_EQ(j["result"]["serverInfo"]["name"], "attest");
    EXPECT_TRUE(j["result"]["capabilities"].contains("tools"));
  }
  Reply bad = Send(a_reader_, R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})");
  EXPECT_EQ(json::parse(bad.body)["error"]["code"], kInvalidParams);
  Reply note = Send(a_reader_, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "2025-11-25");
  EXPECT_EQ(note.disposition, Disposition::kNoResponse);
  EXPECT_TRUE(note.body.empty());
}

TEST_F(McpCoreTest, LegacyRequestsUseTheTransportVersionAndPingWorksOnlyThere) {
  Reply list = Send(a_reader_, R"({"jsonrpc":"2.0","id":"x","method":"tools/list"})", "2025-06-18");
  json j = json::parse(list.body);
  ASSERT_TRUE(j.contains("result")) << list.body;
  EXPECT_EQ(j["id"], "x");
  EXPECT_FALSE(j["result"].contains("resultType"));
  EXPECT_FALSE(j["result"].contains("ttlMs"));
  Reply ping = Send(a_reader_, R"({"jsonrpc":"2.0","id":3,"method":"ping"})", "2025-11-25");
  EXPECT_EQ(json::parse(ping.body)["result"], json::object());
  json modern_ping = Modern(a_reader_, "ping", json::object(), Disposition::kUnknownMethod);
  EXPECT_EQ(modern_ping["error"]["code"], kMethodNotFound);
  // An unknown method under a legacy version is an ordinary error response (a legacy client reads
  // HTTP 404 as an expired session).
  Reply unknown = Send(a_reader_, R"({"jsonrpc":"2.0","id":4,"method":"prompts/list"})", "2025-11-25");
  EXPECT_EQ(unknown.disposition, Disposition::kOk);
  EXPECT_EQ(json::parse(unknown.body)["error"]["code"], kMethodNotFound);
}

TEST_F(McpCoreTest, ModernRequestsNeedTheirMeta) {
  Reply none = Send(a_reader_, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  EXPECT_EQ(none.disposition, Disposition::kMalformed);
  json e = json::parse(none.body)["error"];
  EXPECT_EQ(e["code"], kInvalidParams);
  EXPECT_NE(e["message"].get<std::string>().find("protocolVersion"), std::string::npos) << e;
  Reply caps = Send(a_reader_, R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
  EXPECT_EQ(caps.disposition, Disposition::kMalformed);
  EXPECT_NE(json::parse(caps.body)["error"]["message"].get<std::string>().find("clientCapabilities"), std::string::npos);
  Reply old = Send(a_reader_, R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}})");
  EXPECT_EQ(old.disposition, Disposition::kMalformed);
  json u = json::parse(old.body)["error"];
  EXPECT_EQ(u["code"], kUnsupportedProtocolVersion);
  EXPECT_EQ(u["data"]["requested"], "1900-01-01");
  EXPECT_EQ(u["data"]["supported"][0], "2026-07-28");
  EXPECT_EQ(json::parse(old.body)["id"], 3);
}

TEST_F(McpCoreTest, MalformedMessagesGetErrorsNamingWhatWasWrong) {
  struct Case {
    const char* text;
    int code;
    const char* words;
  };
  const Case cases[] = {
      {"not json", kParseError, "not valid JSON"},
      {"", kParseError, "empty"},
      {"\xff\xfe{}", kParseError, "UTF-8"},
      {"[]", kInvalidRequest, "empty batch"},
      {"42", kInvalidRequest, "JSON object"},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", kInvalidRequest, "jsonrpc"},
      {R"({"id":1,"method":"ping"})", kInvalidRequest, "jsonrpc"},
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", kInvalidRequest, "id must be"},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", kInvalidRequest, "id must be"},
      {R"({"jsonrpc":"2.0","id":1,"method":7})", kInvalidRequest, "method must be"},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})", kInvalidParams, "params must be an object"},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","extra":1})", kInvalidRequest, "unknown member 'extra'"},
      {R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})", kInvalidRequest, "duplicate"},
      {R"({"jsonrpc":"2.0","id":1})", kInvalidRequest, "needs a method"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/list"} trailing)", kParseError, "not valid JSON"},
  };
  for (const Case& c : cases) {
    Reply r = Send(a_reader_, c.text, "2025-11-25");
    EXPECT_EQ(r.disposition, Disposition::kMalformed) << c.text;
    json j = json::parse(r.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.body;
    EXPECT_EQ(j["jsonrpc"], "2.0");
    EXPECT_EQ(j["error"]["code"], c.code) << c.text << " -> " << r.body;
    EXPECT_NE(j["error"]["message"].get<std::string>().find(c.words), std::string::npos) << c.text << " -> " << r.body;
  }
  // The id is echoed when it could be read.
  Reply r = Send(a_reader_, R"({"jsonrpc":"2.0","id":"k","method":"ping","params":"x"})", "2025-11-25");
  EXPECT_EQ(json::parse(r.body)["id"], "k");
}

TEST_F(McpCoreTest, BatchesExistOnlyUnder20250326) {
  const std::string batch = R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},)"
                            R"({"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3},)"
                            R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}])";
  Reply modern = Send(a_reader_, batch, "2025-11-25");
  EXPECT_EQ(modern.disposition, Disposition::kMalformed);
  EXPECT_EQ(json::parse(modern.body)["error"]["code"], kInvalidRequest);
  Reply old = Send(a_reader_, batch, "2025-03-26");
  ASSERT_EQ(old.disposition, Disposition::kOk) << old.body;
  json arr = json::parse(old.body);
  ASSERT_TRUE(arr.is_array());
  ASSERT_EQ(arr.size(), 4u) << arr;  // no response to the notification
  EXPECT_EQ(arr[0]["result"], json::object());
  EXPECT_EQ(arr[1]["result"]["tools"].size(), 4u);
  EXPECT_EQ(arr[2]["error"]["code"], kInvalidRequest);
  EXPECT_EQ(arr[2]["id"], 3);
  EXPECT_EQ(arr[3]["error"]["code"], kInvalidRequest);  // initialize must not be batched
  Reply only_notes = Send(a_reader_, R"([{"jsonrpc":"2.0","method":"notifications/cancelled"}])", "2025-03-26");
  EXPECT_EQ(only_notes.disposition, Disposition::kNoResponse);
}

TEST_F(McpCoreTest, ToolListDependsOnTheCredentialAndDeclaresSchemas) {
  json reader = Modern(a_reader_, "tools/list")["result"];
  EXPECT_EQ(reader["resultType"], "complete");
  EXPECT_EQ(reader["cacheScope"], "private");
  std::vector<std::string> names;
  for (const json& t : reader["tools"]) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object");
    EXPECT_EQ(t["inputSchema"]["additionalProperties"], false) << t["name"];
    EXPECT_EQ(t["outputSchema"]["type"], "object") << t["name"];
    for (const json& p : t["inputSchema"]["properties"]) {
      EXPECT_TRUE(p.contains("type")) << t["name"];
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"ask", "search", "get_document", "list_documents"}));
  json admin = Modern(a_admin_, "tools/list")["result"];
  ASSERT_EQ(admin["tools"].size(), 6u);
  EXPECT_EQ(admin["tools"][4]["name"], "add_document");
  EXPECT_EQ(admin["tools"][5]["name"], "delete_document");
  EXPECT_EQ(admin["tools"][0]["inputSchema"]["required"], json({"question"}));
  for (const json& t : admin["tools"]) {
    for (const auto& [name, p] : t["inputSchema"]["properties"].items()) {
      EXPECT_NE(name, "answer") << "no tool accepts answer text";
    }
  }
  json cursor = Modern(a_reader_, "tools/list", {{"cursor", "zz"}});
  EXPECT_EQ(cursor["error"]["code"], kInvalidParams);
}

TEST_F(McpCoreTest, UnknownToolsAndBadArguments) {
  json unknown = Modern(a_reader_, "tools/call", {{"name", "write_answer"}, {"arguments", json::object()}});
  EXPECT_EQ(unknown["error"]["code"], kInvalidParams);
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("write_answer"), std::string::npos);
  json no_name = Modern(a_reader_, "tools/call", {{"arguments", json::object()}});
  EXPECT_EQ(no_name["error"]["code"], kInvalidParams);
  json array_args = Modern(a_reader_, "tools/call", {{"name", "ask"}, {"arguments", json::array()}});
  EXPECT_EQ(array_args["error"]["code"], kInvalidParams);

  struct Case {
    const char* tool;
    json args;
    const char* words;
  };
  const Case cases[] = {
      {"ask", json::object(), "missing required argument 'question'"},
      {"ask", {{"question", 5}}, "'question' must be a string"},
      {"ask", {{"question", "q"}, {"writer", "llm"}}, "unknown argument 'writer'"},
      {"ask", {{"question", "q"}, {"answer", "forged"}}, "unknown argument 'answer'"},
      {"ask", {{"question", "q"}, {"max_sentences", 11}}, "max_sentences"},
      {"ask", {{"question", "q"}, {"max_sentences", true}}, "must be an integer"},
      {"ask", {{"question", "   "}}, "question"},
      {"search", {{"query", "q"}, {"top_k", 0}}, "top_k"},
      {"search", {{"query", "q"}, {"mode", "psychic"}}, "mode"},
      {"search", {{"query", "q"}, {"tenant", "Bad Tenant"}}, "tenant"},
      {"get_document", {{"id", ""}}, "id"},
      {"list_documents", {{"limit", 500}}, "limit"},
  };
  for (const Case& c : cases) {
    json r = Tool(a_reader_, c.tool, c.args);
    EXPECT_TRUE(r.value("isError", false)) << c.tool << " " << c.args << " -> " << r;
    EXPECT_NE(Text(r).find(c.words), std::string::npos) << c.tool << " " << c.args << " -> " << Text(r);
    EXPECT_FALSE(r.contains("structuredContent"));
  }
}

TEST_F(McpCoreTest, AReaderCannotAddOrDeleteDocuments) {
  AddCorpus();
  json add = Tool(a_reader_, "add_document", {{"id", "sneaky"}, {"text", "The kettle warranty is ninety years."}});
  EXPECT_TRUE(add.value("isError", false)) << add;
  EXPECT_NE(Text(add).find("forbidden"), std::string::npos) << Text(add);
  json get = Tool(a_admin_, "get_document", {{"id", "sneaky"}});
  EXPECT_TRUE(get.value("isError", false)) << "the reader's document was stored: " << get;
  json del = Tool(a_reader_, "delete_document", {{"id", "a-kettle"}});
  EXPECT_TRUE(del.value("isError", false));
  EXPECT_FALSE(Tool(a_reader_, "get_document", {{"id", "a-kettle"}}).value("isError", true));
  json list = Tool(a_reader_, "list_documents", json::object());
  EXPECT_TRUE(list.value("isError", false));
  EXPECT_NE(Text(list).find("forbidden"), std::string::npos) << Text(list);
  json other = Tool(a_reader_, "search", {{"query", "kettle"}, {"tenant", "b"}});
  EXPECT_TRUE(other.value("isError", false)) << other;
}

TEST_F(McpCoreTest, AskReturnsMarkersClaimsSourcesAndAsOf) {
  AddCorpus();
  json r = Tool(a_reader_, "ask", {{"question", "How long is the warranty of the Zephyr kettle?"}});
  ASSERT_FALSE(r.value("isError", true)) << r;
  const json& s = r["structuredContent"];
  ASSERT_EQ(s["outcome"], "answer") << s;
  const std::string answer = s["answer"];
  EXPECT_NE(answer.find("two-year"), std::string::npos) << answer;
  EXPECT_NE(answer.find("[1]"), std::string::npos) << answer;
  ASSERT_FALSE(s["sources"].empty());
  EXPECT_EQ(s["sources"][0]["id"], "S1");
  EXPECT_EQ(s["sources"][0]["n"], 1);
  EXPECT_EQ(s["sources"][0]["doc_id"], "a-kettle");
  EXPECT_EQ(s["sources"][0]["url"], "https://a.example/kettle");
  EXPECT_EQ(s["sources"][0]["date"], "2026-03-01");
  EXPECT_FALSE(s["sources"][0]["fetched_at"].get<std::string>().empty());
  ASSERT_FALSE(s["claims"].empty());
  for (const json& c : s["claims"]) {
    EXPECT_FALSE(c["verdict"].get<std::string>().empty()) << c;
    ASSERT_FALSE(c["citations"].empty()) << c;
    for (const json& x : c["citations"]) {
      EXPECT_EQ(x["doc_id"], "a-kettle") << x;
      EXPECT_NE(x["quote"].get<std::string>().find("warranty"), std::string::npos) << x;
    }
  }
  EXPECT_FALSE(s["as_of"].get<std::string>().empty());
  const std::string text = Text(r);
  EXPECT_EQ(text.find(answer), 0u) << text;
  EXPECT_NE(text.find("Sources:\n[1] Zephyr kettle warranty — https://a.example/kettle (2026-03-01)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("As of " + s["as_of"].get<std::string>()), std::string::npos) << text;
}

TEST_F(McpCoreTest, AskWithNothingToReadGivesTheFallbackAndItsReason) {
  AddCorpus();
  json r = Tool(b_reader_, "ask", {{"question", "What is the boiling point of liquid nitrogen on Mars?"}});
  ASSERT_FALSE(r.value("isError", true)) << r;
  const json& s = r["structuredContent"];
  ASSERT_EQ(s["outcome"], "fallback") << s;
  EXPECT_EQ(s["answer"], "");
  EXPECT_FALSE(s["fallback_reason"].get<std::string>().empty());
  EXPECT_TRUE(s["results"].is_array());
  EXPECT_NE(Text(r).find("No verified answer (" + s["fallback_reason"].get<std::string>() + ")"), std::string::npos)
      << Text(r);
  // A question the documents match but do not answer: the closest documents come with the reason.
  json near = Tool(a_reader_, "ask", {{"question", "What colour is the Zephyr kettle?"}});
  const json& n = near["structuredContent"];
  ASSERT_EQ(n["outcome"], "fallback") << n;
  EXPECT_EQ(n["fallback_reason"], "no_confident_answer");
  ASSERT_FALSE(n["results"].empty()) << n;
  EXPECT_EQ(n["results"][0]["doc_id"], "a-kettle");
  EXPECT_EQ(n["results"][0]["url"], "https://a.example/kettle");
  EXPECT_TRUE(n["claims"].empty());
  EXPECT_NE(Text(near).find("1. Zephyr kettle warranty — https://a.example/kettle"), std::string::npos) << Text(near);
}

TEST_F(McpCoreTest, TenantIsolationInSearchAskAndResources) {
  AddCorpus();
  for (const service::Identity* who : {&a_reader_, &a_admin_}) {
    json search = Tool(*who, "search", {{"query", "Zephyr kettle warranty quokkaberry"}, {"top_k", 100}});
    ASSERT_FALSE(search.value("isError", true)) << search;
    ASSERT_FALSE(search["structuredContent"]["hits"].empty());
    for (const json& h : search["structuredContent"]["hits"]) {
      EXPECT_EQ(h["doc_id"].get<std::string>().rfind("a-", 0), 0u) << "tenant b's chunk in tenant a's search: " << h;
    }
    json only_b = Tool(*who, "search", {{"query", "quokkaberry"}});
    EXPECT_TRUE(only_b["structuredContent"]["hits"].empty()) << only_b;
    json ask = Tool(*who, "ask", {{"question", "What does the quokkaberry clause say about the kettle warranty?"}});
    EXPECT_EQ(ask.dump().find("b-kettle"), std::string::npos) << ask;
    EXPECT_EQ(ask.dump().find("five-year"), std::string::npos) << ask;
    json read = Modern(*who, "resources/read", {{"uri", DocumentUri("b-kettle")}});
    EXPECT_EQ(read["error"]["code"], kInvalidParams) << read;
    EXPECT_EQ(read["error"]["data"]["uri"], DocumentUri("b-kettle"));
    json get = Tool(*who, "get_document", {{"id", "b-kettle"}});
    EXPECT_TRUE(get.value("isError", false));
    EXPECT_NE(Text(get).find("not_found"), std::string::npos) << Text(get);
  }
  json b_search = Tool(b_reader_, "search", {{"query", "quokkaberry"}});
  ASSERT_EQ(b_search["structuredContent"]["hits"].size(), 1u) << b_search;
  EXPECT_EQ(b_search["structuredContent"]["hits"][0]["doc_id"], "b-kettle");
}

TEST_F(McpCoreTest, ResourcesListReadAndTemplates) {
  AddCorpus();
  AddDocument(a_admin_, {{"id", "dir/with space"}, {"title", "Odd id"}, {"text", "An id with a slash and a space."}});
  json templates = Modern(a_reader_, "resources/templates/list")["result"];
  EXPECT_EQ(templates["resourceTemplates"][0]["uriTemplate"], "attest://documents/{id}");
  EXPECT_EQ(templates["resultType"], "complete");
  json list = Modern(a_admin_, "resources/list")["result"];
  std::vector<std::string> uris;
  for (const json& r : list["resources"]) uris.push_back(r["uri"]);
  EXPECT_EQ(uris, (std::vector<std::string>{"attest://documents/a-kettle", "attest://documents/a-toaster",
                                            "attest://documents/dir%2Fwith%20space"}));
  EXPECT_FALSE(list.contains("nextCursor"));
  EXPECT_TRUE(Modern(a_reader_, "resources/list")["result"]["resources"].empty()) << "listing is for admins";
  json read = Modern(a_reader_, "resources/read", {{"uri", "attest://documents/dir%2Fwith%20space"}})["result"];
  ASSERT_EQ(read["contents"].size(), 1u) << read;
  EXPECT_EQ(read["contents"][0]["text"], "An id with a slash and a space.");
  EXPECT_EQ(read["contents"][0]["mimeType"], "text/plain");
  EXPECT_EQ(read["contents"][0]["uri"], "attest://documents/dir%2Fwith%20space");
  for (const char* bad : {"attest://documents/", "file:///etc/passwd", "attest://documents/a%2", "attest://documents/x/y"}) {
    json e = Modern(a_reader_, "resources/read", {{"uri", bad}});
    EXPECT_EQ(e["error"]["code"], kInvalidParams) << bad;
  }
  // 2025-11-25 and older name a missing resource -32002.
  Reply legacy = Send(a_reader_, R"({"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"attest://documents/b-kettle"}})",
                      "2025-11-25");
  EXPECT_EQ(json::parse(legacy.body)["error"]["code"], kLegacyResourceNotFound) << legacy.body;
  json no_uri = Modern(a_reader_, "resources/read", json::object());
  EXPECT_EQ(no_uri["error"]["code"], kInvalidParams);
}

TEST_F(McpCoreTest, AdminToolsWriteListAndDelete) {
  AddCorpus();
  json list = Tool(a_admin_, "list_documents", {{"limit", 1}});
  ASSERT_FALSE(list.value("isError", true)) << list;
  EXPECT_EQ(list["structuredContent"]["total"], 2);
  ASSERT_EQ(list["structuredContent"]["documents"].size(), 1u);
  ASSERT_TRUE(list["structuredContent"]["next_cursor"].is_string());
  json next = Tool(a_admin_, "list_documents", {{"limit", 1}, {"cursor", list["structuredContent"]["next_cursor"]}});
  EXPECT_EQ(next["structuredContent"]["documents"][0]["id"], "a-toaster") << next;
  json del = Tool(a_admin_, "delete_document", {{"id", "a-toaster"}});
  ASSERT_FALSE(del.value("isError", true)) << del;
  EXPECT_EQ(del["structuredContent"]["deleted"], true);
  EXPECT_TRUE(Tool(a_reader_, "get_document", {{"id", "a-toaster"}}).value("isError", false));
  json get = Tool(a_reader_, "get_document", {{"id", "a-kettle"}});
  ASSERT_FALSE(get.value("isError", true)) << get;
  EXPECT_NE(get["structuredContent"]["text"].get<std::string>().find("two-year"), std::string::npos);
  EXPECT_EQ(Text(get).rfind("Zephyr kettle warranty — https://a.example/kettle", 0), 0u) << Text(get);
  // b's admin cannot touch a's documents.
  EXPECT_TRUE(Tool(b_admin_, "delete_document", {{"id", "a-kettle"}, {"tenant", "a"}}).value("isError", false));
  EXPECT_FALSE(Tool(a_reader_, "get_document", {{"id", "a-kettle"}}).value("isError", true));
}

}  // namespace
}  // namespace attest::mcp
