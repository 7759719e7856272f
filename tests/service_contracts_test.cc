// The v1 request contracts (service/contracts.h): every rejection names its code and field, the
// seed's worked-example cases, defaults, normalization, nested field paths, and the OpenAPI
// document generated from the same tables.
#include "service/contracts.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "server/routes.h"
#include "service/schema.h"

namespace attest::service {
namespace {

using nlohmann::json;

// Expects a parse failure with this code and field; returns the message for further checks.
template <class T>
std::string ExpectError(const ApiResult<T>& r, const std::string& code, const std::string& field) {
  EXPECT_FALSE(r.ok()) << "accepted a request that must be rejected (expected " << code << " on '" << field << "')";
  if (r.ok()) return "";
  EXPECT_EQ(ApiErrorCodeName(r.error().code), code) << r.error().message;
  EXPECT_EQ(r.error().field, field) << r.error().message;
  EXPECT_FALSE(r.error().message.empty());
  return r.error().message;
}

// --- the seed's worked example ----------------------------------------------------------------

TEST(ServiceContracts, WorkedExampleRejections) {
  ExpectError(ParseSearchRequest("null"), "invalid_request", "");
  ExpectError(ParseSearchRequest("7"), "invalid_request", "");
  ExpectError(ParseSearchRequest(R"(["x"])"), "invalid_request", "");
  std::string m = ExpectError(ParseSearchRequest(R"({"query":"refund","tenant":"acme","top_k":"3"})"),
                              "invalid_request", "top_k");
  EXPECT_NE(m.find("must not be quoted"), std::string::npos) << m;
  m = ExpectError(ParseSearchRequest(R"({"query":"","tenant":"acme"})"), "invalid_request", "query");
  EXPECT_NE(m.find("empty"), std::string::npos) << m;
  const std::string long_query = json{{"query", std::string(2001, 'x')}, {"tenant", "acme"}}.dump();
  m = ExpectError(ParseSearchRequest(long_query), "invalid_request", "query");
  EXPECT_NE(m.find("2001"), std::string::npos) << m;
  ExpectError(ParseSearchRequest(R"({"query":"refund","tenant":"../acme"})"), "invalid_request", "tenant");
  m = ExpectError(ParseSearchRequest(R"({"query":"refund","tenant":"acme","top_k":true})"), "invalid_request",
                  "top_k");
  EXPECT_NE(m.find("boolean"), std::string::npos) << m;

  auto ok = ParseSearchRequest(R"({"query":"refund policy","tenant":"acme","top_k":2})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().top_k, 2u);
  EXPECT_EQ(ok.value().tenant.value(), "acme");
}

TEST(ServiceContracts, QueryLengthBoundsAreInCodePointsAfterTrimming) {
  std::string q2000;
  for (int i = 0; i < 2000; ++i) q2000 += "\xC3\xA9";  // é: 2 bytes, 1 character
  auto ok = ParseSearchRequest(json{{"query", "  " + q2000 + "\n"}}.dump());
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().query, q2000);
  ExpectError(ParseSearchRequest(json{{"query", q2000 + "e"}}.dump()), "invalid_request", "query");
  auto blank = ParseSearchRequest(R"({"query":" \t\u3000 "})");
  EXPECT_NE(ExpectError(blank, "invalid_request", "query").find("empty"), std::string::npos);
}

// --- body-level errors ------------------------------------------------------------------------

TEST(ServiceContracts, InvalidJsonAndUtf8NameTheProblem) {
  std::string m = ExpectError(ParseSearchRequest(R"({"query": "x",})"), "invalid_json", "");
  EXPECT_NE(m.find("byte offset"), std::string::npos) << m;
  ExpectError(ParseSearchRequest(""), "invalid_json", "");
  ExpectError(ParseSearchRequest("  \n"), "invalid_json", "");
  ExpectError(ParseSearchRequest(R"({"query":"x"} trailing)"), "invalid_json", "");
  m = ExpectError(ParseSearchRequest("{\"query\":\"a\xFF\"}"), "invalid_json", "");
  EXPECT_NE(m.find("UTF-8"), std::string::npos) << m;
  EXPECT_NE(m.find("offset 11"), std::string::npos) << m;
  // A lone surrogate escape is not a character.
  ExpectError(ParseSearchRequest(R"({"query":"\ud800"})"), "invalid_json", "");
}

// Regression (found by request_parser_fuzz): nlohmann's syntax error quotes the bytes it last read,
// which can be half of a UTF-8 character; the message goes into a JSON response.
TEST(ServiceContracts, SyntaxErrorMessageIsValidUtf8) {
  auto r = ParseFeedback("{\"answer_id\":\"x\",\"a\"\xCA\x94\x03}");
  ExpectError(r, "invalid_json", "");
  EXPECT_NO_THROW((void)json(r.error().message).dump());
}

TEST(ServiceContracts, DuplicateKeysAreRejectedWithTheirPath) {
  std::string m = ExpectError(ParseSearchRequest(R"({"query":"a","query":"b"})"), "invalid_request", "query");
  EXPECT_NE(m.find("duplicate"), std::string::npos) << m;
  ExpectError(ParseSearchRequest(R"({"query":"a","filters":{"sites":["x"],"sites":["y"]}})"), "invalid_request",
              "filters.sites");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"b","id":"c","text":"t"}]})"),
              "invalid_request", "documents[1].id");
}

TEST(ServiceContracts, NestingDepthIsBounded) {
  std::string deep = R"({"query":"x","filters":)" + std::string(5000, '[') + std::string(5000, ']') + "}";
  ExpectError(ParseSearchRequest(deep), "invalid_request", "");
}

// --- fields -----------------------------------------------------------------------------------

TEST(ServiceContracts, UnknownAndIdentityFieldsAreRejected) {
  std::string m = ExpectError(ParseSearchRequest(R"({"query":"x","topk":3})"), "invalid_request", "topk");
  EXPECT_NE(m.find("unknown field"), std::string::npos) << m;
  EXPECT_NE(m.find("top_k"), std::string::npos) << "lists the accepted fields: " << m;
  for (const char* name : {"groups", "acl", "user"}) {
    const std::string body = json{{"query", "x"}, {name, json::array({"admin"})}}.dump();
    m = ExpectError(ParseAnswerRequest(body), "invalid_request", name);
    EXPECT_NE(m.find("groups come from your credential, not the request body"), std::string::npos) << m;
  }
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":{"site":["a"]}})"), "invalid_request", "filters.site");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t","groups":["g"]}]})"), "invalid_request",
              "documents[0].groups");
}

TEST(ServiceContracts, WrongTypesAreRejected) {
  ExpectError(ParseSearchRequest(R"({"query":5})"), "invalid_request", "query");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":3.0})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":2.5})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":1e1})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","explain":1})"), "invalid_request", "explain");
  ExpectError(ParseSearchRequest(R"({"query":"x","explain":"true"})"), "invalid_request", "explain");
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":[]})"), "invalid_request", "filters");
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":{"sites":"a"}})"), "invalid_request", "filters.sites");
  ExpectError(ParseSearchRequest(R"({"query":"x","tenant":7})"), "invalid_request", "tenant");
  ExpectError(ParseAnswerRequest(R"({"query":"x","max_sentences":"3"})"), "invalid_request", "max_sentences");
}

TEST(ServiceContracts, NumericRanges) {
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":0})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":101})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":-1})"), "invalid_request", "top_k");
  ExpectError(ParseSearchRequest(R"({"query":"x","top_k":18446744073709551615})"), "invalid_request", "top_k");
  std::string huge = ExpectError(ParseSearchRequest(R"({"query":"x","top_k":99999999999999999999999})"),
                                 "invalid_request", "top_k");
  EXPECT_NE(huge.find("out of range"), std::string::npos) << huge;
  ExpectError(ParseSearchRequest(R"({"query":"x","deadline_ms":0})"), "invalid_request", "deadline_ms");
  ExpectError(ParseSearchRequest(R"({"query":"x","deadline_ms":120001})"), "invalid_request", "deadline_ms");
  ExpectError(ParseAnswerRequest(R"({"query":"x","max_sentences":11})"), "invalid_request", "max_sentences");
  auto ok = ParseSearchRequest(R"({"query":"x","top_k":100,"deadline_ms":120000})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().top_k, 100u);
  EXPECT_EQ(ok.value().deadline_ms.value(), 120000u);
}

TEST(ServiceContracts, NullMeansAbsentOnlyForOptionalFields) {
  auto ok = ParseSearchRequest(R"({"query":"x","tenant":null,"top_k":null,"filters":null,"deadline_ms":null})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_FALSE(ok.value().tenant.has_value());
  EXPECT_EQ(ok.value().top_k, 10u);
  EXPECT_FALSE(ok.value().deadline_ms.has_value());
  ExpectError(ParseSearchRequest(R"({"query":null})"), "invalid_request", "query");
  ExpectError(ParseSearchRequest(R"({})"), "invalid_request", "query");
  ExpectError(ParseFeedback(R"({"answer_id":"a1","kind":null})"), "invalid_request", "kind");
}

TEST(ServiceContracts, TenantPatternAndEnumsAreExact) {
  for (const char* bad : {"", "Acme", "acme ", "a/b", "../acme", "ac.me", "abcdefghijabcdefghijabcdefghijabc"}) {
    ExpectError(ParseSearchRequest(json{{"query", "x"}, {"tenant", bad}}.dump()), "invalid_request", "tenant");
    EXPECT_FALSE(ValidTenant(bad)) << bad;
  }
  EXPECT_TRUE(ValidTenant("acme_2-eu"));
  EXPECT_TRUE(ValidTenant(std::string(32, 'a')));
  ExpectError(ParseSearchRequest(R"({"query":"x","mode":"BM25"})"), "invalid_request", "mode");
  ExpectError(ParseSearchRequest(R"({"query":"x","mode":" bm25"})"), "invalid_request", "mode");
  ExpectError(ParseAnswerRequest(R"({"query":"x","writer":"gpt"})"), "invalid_request", "writer");
  ExpectError(ParseFeedback(R"({"answer_id":"a","kind":"bad"})"), "invalid_request", "kind");
  ExpectError(ParseDocumentInput(R"({"id":"a","text":"t","content_type":"pdf"})"), "invalid_request",
              "content_type");
}

TEST(ServiceContracts, DatesMustBeRealDaysAndInOrder) {
  for (const char* bad : {"2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "24-01-01", "2024-1-01",
                          "2024/01/01", "0000-01-01", "2024-01-01T00:00"}) {
    ExpectError(ParseSearchRequest(json{{"query", "x"}, {"filters", {{"date_from", bad}}}}.dump()),
                "invalid_request", "filters.date_from");
    EXPECT_FALSE(ValidDate(bad)) << bad;
  }
  EXPECT_TRUE(ValidDate("2024-02-29"));
  EXPECT_TRUE(ValidDate("2000-02-29"));
  EXPECT_FALSE(ValidDate("1900-02-29"));
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":{"date_from":"2024-05-02","date_to":"2024-05-01"}})"),
              "invalid_request", "filters.date_to");
  ExpectError(ParseAnswerRequest(R"({"query":"x","today":"yesterday"})"), "invalid_request", "today");
  auto ok = ParseAnswerRequest(R"({"query":"x","today":"2024-02-29"})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().today.value(), "2024-02-29");
}

TEST(ServiceContracts, ListSizesAndNestedFieldPaths) {
  json sites = json::array();
  for (int i = 0; i < 33; ++i) sites.push_back("s" + std::to_string(i));
  ExpectError(ParseSearchRequest(json{{"query", "x"}, {"filters", {{"sites", sites}}}}.dump()), "invalid_request",
              "filters.sites");
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":{"sites":["a","b",""]}})"), "invalid_request",
              "filters.sites[2]");
  ExpectError(ParseSearchRequest(R"({"query":"x","filters":{"sites":["a","b",3]}})"), "invalid_request",
              "filters.sites[2]");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"b","text":"t"},{"id":"c","text":"t"},
                                    {"id":"d\u0007","text":"t"}]})"),
              "invalid_request", "documents[3].id");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},7]})"), "invalid_request", "documents[1]");
  ExpectError(ParseDocumentBatch(R"({"documents":[]})"), "invalid_request", "documents");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t","metadata":{"k":1}}]})"), "invalid_request",
              "documents[0].metadata.k");
  json many = json::array();
  for (size_t i = 0; i <= kMaxBatchDocuments; ++i) many.push_back({{"id", std::to_string(i)}, {"text", "t"}});
  ExpectError(ParseDocumentBatch(json{{"documents", many}}.dump()), "invalid_request", "documents");
  std::string m = ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"a","text":"u"}]})"),
                              "invalid_request", "documents[1].id");
  EXPECT_NE(m.find("documents[0]"), std::string::npos) << m;
  auto other_tenant = ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"a","tenant":"b","text":"u"}]})");
  EXPECT_TRUE(other_tenant.ok()) << other_tenant.error().message;
}

TEST(ServiceContracts, ControlCharactersInIdsAndStrings) {
  ExpectError(ParseDocumentInput(R"({"id":"a\nb","text":"t"})"), "invalid_request", "id");
  ExpectError(ParseDocumentInput(R"({"id":"a\u0085b","text":"t"})"), "invalid_request", "id");
  ExpectError(ParseFeedback(R"({"answer_id":"a\tb","kind":"wrong"})"), "invalid_request", "answer_id");
  ExpectError(ParseSearchRequest(R"({"query":"a\u0000b"})"), "invalid_request", "query");
  ExpectError(ParseSearchRequest(R"({"query":"a\u0001b"})"), "invalid_request", "query");
  ExpectError(ParseDocumentInput(R"({"id":"a","text":"x\u0000"})"), "invalid_request", "text");
  auto ok = ParseDocumentInput(R"({"id":"a","text":"line one\nline\ftwo"})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok.value().text, "line one\nline\ftwo");
  auto query_newline = ParseSearchRequest(R"({"query":"two\nlines"})");
  EXPECT_TRUE(query_newline.ok());
}

TEST(ServiceContracts, NfcNormalizationAndTrimming) {
  // "é" as e + combining acute (U+0065 U+0301) becomes U+00E9; edges are trimmed.
  auto r = ParseSearchRequest("{\"query\":\" \\u00a0Caf\\u0065\\u0301 cr\\u00e8me \\n\"}");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().query, "Caf\xC3\xA9 cr\xC3\xA8me");
  auto t = ParseThreadCreate("{\"title\":\"A\\u030a\"}");  // A + ring -> Å
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t.value().title, "\xC3\x85");
  // Ids are not normalized: they are compared byte for byte.
  auto d = ParseDocumentInput("{\"id\":\"e\\u0301\",\"text\":\"t\"}");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value().id, "e\xCC\x81");
}

TEST(ServiceContracts, QuestionIsAnAliasOfQuery) {
  auto a = ParseAnswerRequest(R"({"question":"  why? "})");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a.value().query, "why?");
  std::string m = ExpectError(ParseAnswerRequest(R"({"query":"a","question":"b"})"), "invalid_request", "question");
  EXPECT_NE(m.find("not both"), std::string::npos) << m;
  ExpectError(ParseAnswerRequest(R"({"question":""})"), "invalid_request", "question");
  ExpectError(ParseSearchRequest(R"({"question":"x"})"), "invalid_request", "question");  // search: no alias
}

TEST(ServiceContracts, DocumentTextLimitIsPayloadTooLarge) {
  ParseLimits limits;
  limits.max_document_bytes = 10;
  ExpectError(ParseDocumentInput(R"({"id":"a","text":"01234567890"})", limits), "payload_too_large", "text");
  EXPECT_TRUE(ParseDocumentInput(R"({"id":"a","text":"0123456789"})", limits).ok());
  ExpectError(ParseDocumentInput(R"({"id":"a","text":"   "})"), "invalid_request", "text");
  ExpectError(ParseDocumentInput(R"({"id":"a"})"), "invalid_request", "text");
  ExpectError(ParseDocumentInput(R"({"id":"a","title":"  ","text":""})"), "invalid_request", "text");
  ExpectError(ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"b","title":"","text":" "}]})"),
              "invalid_request", "documents[1].text");
  // Issue 10: a title-only document is a document (one chunk holding its title), as in JSONL input.
  auto title_only = ParseDocumentInput(R"({"id":"a","title":"Orion toaster warranty"})");
  ASSERT_TRUE(title_only.ok());
  EXPECT_EQ(title_only.value().text, "");
  EXPECT_TRUE(ParseDocumentInput(R"({"id":"a","title":"Orion toaster warranty","text":"  "})").ok());
  ExpectError(ParseDocumentInput(json{{"id", std::string(257, 'a')}, {"text", "t"}}.dump()), "invalid_request", "id");
}

// --- acceptance and defaults ------------------------------------------------------------------

TEST(ServiceContracts, DefaultsMatchTheStructsAndTheTables) {
  auto s = ParseSearchRequest(R"({"query":"x"})");
  ASSERT_TRUE(s.ok());
  const SearchRequest sd;
  EXPECT_EQ(s.value().top_k, sd.top_k);
  EXPECT_EQ(s.value().mode, sd.mode);
  EXPECT_EQ(s.value().explain, sd.explain);
  EXPECT_FALSE(s.value().tenant.has_value());
  EXPECT_TRUE(s.value().filters.sites.empty());

  auto a = ParseAnswerRequest(R"({"query":"x"})");
  ASSERT_TRUE(a.ok());
  const AnswerRequest ad;
  EXPECT_EQ(a.value().writer, ad.writer);
  EXPECT_EQ(a.value().judge, ad.judge);
  EXPECT_EQ(a.value().max_sentences, ad.max_sentences);
  EXPECT_EQ(a.value().multi_hop, ad.multi_hop);
  EXPECT_EQ(a.value().stream, ad.stream);
  EXPECT_EQ(a.value().no_cache, ad.no_cache);

  auto d = ParseDocumentInput(R"({"id":"a","text":"t"})");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().content_type, DocumentInput{}.content_type);
  EXPECT_EQ(d.value().feed, "");

  // The documented default of every field is what the parser applies.
  for (const ObjectSchema* schema : {&SearchRequestSchema(), &AnswerRequestSchema()}) {
    for (const FieldSpec& f : schema->fields) {
      if (f.default_json.empty()) continue;
      auto v = ValidateObject(json{{"query", "x"}}, *schema, "", ParseLimits{});
      ASSERT_TRUE(v.ok());
      EXPECT_EQ(v.value().at(std::string(f.name)), json::parse(f.default_json)) << f.name;
    }
  }
  EXPECT_EQ(json::parse(SearchRequestSchema().fields[2].default_json).get<uint32_t>(), sd.top_k);
}

TEST(ServiceContracts, WellFormedRequestsOfEveryKind) {
  auto s = ParseSearchRequest(
      R"({"query":"create index","tenant":"acme","top_k":5,"mode":"hybrid","explain":true,"deadline_ms":500,
          "filters":{"source_types":["docs"],"sites":["www.postgresql.org"],"versions":["16"],
                     "date_from":"2023-01-01","date_to":"2024-01-01"}})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s.value().mode, "hybrid");
  EXPECT_TRUE(s.value().explain);
  EXPECT_EQ(s.value().filters.sites, std::vector<std::string>{"www.postgresql.org"});
  EXPECT_EQ(s.value().filters.date_to.value(), "2024-01-01");

  auto d = ParseDocumentInput(
      R"({"id":"pg/16/indexes","title":"Indexes","text":"<p>hi</p>","content_type":"html","url":"https://x/y",
          "published":"2023-09-14","acl_groups":["eng"],"feed":"versions","metadata":{"team":"db"},"tenant":"acme"})");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d.value().acl_groups, std::vector<std::string>{"eng"});
  EXPECT_EQ(d.value().metadata.at("team"), "db");
  EXPECT_EQ(d.value().tenant.value(), "acme");

  // Provenance (docs/store_format.md): the licence is bounded and free of control characters.
  auto lic = ParseDocumentInput(
      R"({"id":"a","text":"t","license":"CC BY-SA 4.0","fetched_at":"2025-12-02T14:35:56Z"})");
  ASSERT_TRUE(lic.ok()) << lic.error().message;
  EXPECT_EQ(lic.value().license, "CC BY-SA 4.0");
  EXPECT_EQ(lic.value().fetched_at, "2025-12-02T14:35:56Z");
  for (const std::string& bad : {std::string(R"("MIT\u0007")"), "\"" + std::string(1001, 'x') + "\"", std::string("7")}) {
    auto r = ParseDocumentInput(R"({"id":"a","text":"t","license":)" + bad + "}");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().field, "license") << bad << ": " << r.error().message;
  }

  auto b = ParseDocumentBatch(R"({"documents":[{"id":"a","text":"t"},{"id":"b","text":"u"}]})");
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(b.value().documents.size(), 2u);
  EXPECT_EQ(b.value().documents[1].id, "b");

  auto t = ParseThreadCreate("{}");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().title, "");

  auto f = ParseFeedback(R"({"answer_id":"ans_1","claim_id":"c2","source_id":"S3","kind":"unsupported"})");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().claim_id, "c2");
  EXPECT_EQ(f.value().kind, "unsupported");
  ExpectError(ParseFeedback(R"({"kind":"wrong"})"), "invalid_request", "answer_id");
}

TEST(ServiceContracts, PathAndHeaderValues) {
  EXPECT_TRUE(ParseDocumentId("pg/16/indexes").ok());
  ExpectError(ParseDocumentId(""), "invalid_request", "id");
  ExpectError(ParseDocumentId("a\x01", "doc_id"), "invalid_request", "doc_id");
  ExpectError(ParseDocumentId("a\xFF"), "invalid_request", "id");
  ExpectError(ParseDocumentId(std::string(257, 'a')), "invalid_request", "id");
  EXPECT_TRUE(ValidRequestId("req-1.a:b_C"));
  EXPECT_TRUE(ValidRequestId(std::string(128, 'a')));
  EXPECT_FALSE(ValidRequestId(std::string(129, 'a')));
  EXPECT_FALSE(ValidRequestId(""));
  EXPECT_FALSE(ValidRequestId("a b"));
  EXPECT_FALSE(ValidRequestId("a\r\nX-Evil: 1"));
}

// --- OpenAPI ----------------------------------------------------------------------------------

TEST(ServiceContracts, OpenApiListsEveryRouteAndTheParsersFields) {
  const json doc = json::parse(OpenApiJson("9.9.9", &server::HttpStatusOf), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc.at("openapi"), "3.0.3");
  EXPECT_EQ(doc.at("info").at("title"), "Attest");
  EXPECT_EQ(doc.at("info").at("version"), "9.9.9");
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"/v1/documents", "post"},       {"/v1/documents:batch", "post"},        {"/v1/documents/{id}", "get"},
      {"/v1/documents/{id}", "delete"}, {"/v1/search", "post"},                 {"/v1/answer", "post"},
      {"/v1/threads", "post"},         {"/v1/threads/{id}/messages", "post"},   {"/v1/feedback", "post"},
      {"/healthz", "get"},             {"/readyz", "get"},                      {"/metrics", "get"},
      {"/v1/openapi.json", "get"},     {"/v1/me", "get"},
      {"/v1/documents", "get"},        {"/v1/events", "post"},                  {"/v1/events/{seq}", "get"}};
  for (const auto& [path, method] : routes) {
    EXPECT_TRUE(doc["paths"].contains(path) && doc["paths"][path].contains(method)) << method << " " << path;
  }
  const json& sse = doc["paths"]["/v1/answer"]["post"]["responses"]["200"]["content"]["text/event-stream"];
  const std::string sse_text = sse.dump();
  for (const char* event : {"progress", "sources", "delta", "sentence_done", "retract", "replace", "notice", "done"}) {
    EXPECT_NE(sse_text.find(std::string("`") + event + "`"), std::string::npos) << event;
  }
  EXPECT_EQ(doc["components"]["securitySchemes"]["bearer"]["bearerFormat"], "JWT");
  EXPECT_EQ(doc["components"]["securitySchemes"]["apiKey"]["name"], "X-API-Key");
  const json& error = doc["components"]["schemas"]["Error"]["properties"]["error"];
  EXPECT_EQ(error["required"], json::array({"code", "message", "field"}));

  // SearchRequest lists exactly the fields the parser accepts: each is accepted (no unknown-field
  // error), and the parser's table has no field the schema lacks.
  const json& search = doc["components"]["schemas"]["SearchRequest"];
  EXPECT_EQ(search["additionalProperties"], false);
  std::set<std::string> documented;
  for (const auto& item : search["properties"].items()) documented.insert(item.key());
  EXPECT_EQ(documented,
            (std::set<std::string>{"query", "tenant", "top_k", "mode", "filters", "explain", "deadline_ms"}));
  for (const std::string& name : documented) {
    auto r = ParseSearchRequest(json{{"query", "x"}, {name, nullptr}}.dump());
    if (name == "query") continue;
    EXPECT_TRUE(r.ok()) << name << ": " << r.error().message;
  }
  EXPECT_EQ(search["required"], json::array({"query"}));
  EXPECT_EQ(search["properties"]["top_k"]["maximum"], 100);
  EXPECT_EQ(search["properties"]["tenant"]["pattern"], "^[a-z0-9_-]{1,32}$");
  // AnswerRequest: query or question, exactly one.
  const json& answer = doc["components"]["schemas"]["AnswerRequest"];
  EXPECT_TRUE(answer["properties"].contains("question"));
  EXPECT_EQ(answer["oneOf"].size(), 2u);
  // Every $ref resolves.
  const std::string text = doc.dump();
  for (size_t at = text.find("#/components/"); at != std::string::npos; at = text.find("#/components/", at + 1)) {
    const size_t end = text.find('"', at);
    const std::string pointer = text.substr(1 + at, end - at - 1);  // "/components/..."
    EXPECT_TRUE(doc.contains(json::json_pointer(pointer))) << pointer;
  }
}

}  // namespace
}  // namespace attest::service
