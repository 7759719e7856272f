// A document's licence and fetch time over the HTTP API and the CLI (docs/http_api.md, documents;
// docs/store_format.md, "Provenance"): the real binary on an ephemeral port. Put with a licence,
// it shows on GET /v1/documents/{id}, the listing, search hits and answer sources; a bad licence is
// refused naming the field; an edit of the column behind attest's back fails the row checksum.
// `attest ingest --license` records it and `attest search` / `attest ask` print it.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using ops_test::Body;
using ops_test::Call;
using ops_test::CreateKey;
using ops_test::ErrorCode;
using ops_test::SqlText;
using testing_support::HttpReply;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::TempDir;

const char* kLicense = "CC BY-SA 4.0 \xE2\x80\x94 Example contributors";

TEST(ServeProvenance, ALicenceRoundTripsThroughPutDocumentListingSearchAndAnswer) {
  TempDir dir;
  const std::string data = dir.str("data");
  const std::string admin = CreateKey(data, {"--tenant", "acme", "--user", "root", "--admin"});
  ServeProcess server(data, {}, {"--no-cache"});
  ASSERT_NE(server.port(), 0) << server.child().out();
  json batch = {{"documents",
                 {{{"id", "refunds"}, {"title", "Refund policy"}, {"license", kLicense},
                   {"fetched_at", "2025-12-02T14:35:56Z"},
                   {"text", "Refunds are paid within thirty days of purchase. The refund goes to the original card."}},
                  {{"id", "shipping"}, {"title", "Shipping policy"},
                   {"text", "Parcels ship within two days. Refunds for lost parcels follow the refund policy."}}}}};
  HttpReply put = Call(server.port(), "POST", "/v1/documents:batch", admin, batch.dump());
  ASSERT_EQ(put.status, 200) << put.body;

  HttpReply got = Call(server.port(), "GET", "/v1/documents/refunds", admin);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Body(got).value("license", "?"), kLicense);
  EXPECT_EQ(Body(got).value("fetched_at", "?"), "2025-12-02T14:35:56Z");
  HttpReply other = Call(server.port(), "GET", "/v1/documents/shipping", admin);
  ASSERT_EQ(other.status, 200) << other.body;
  EXPECT_EQ(Body(other).value("license", "?"), "");

  HttpReply list = Call(server.port(), "GET", "/v1/documents", admin);
  ASSERT_EQ(list.status, 200) << list.body;
  std::map<std::string, std::string> listed;
  const json list_body = Body(list);
  for (const json& d : list_body["documents"]) listed[d.value("id", "")] = d.value("license", "?");
  EXPECT_EQ(listed["refunds"], kLicense);
  EXPECT_EQ(listed["shipping"], "");

  HttpReply search = Call(server.port(), "POST", "/v1/search", admin,
                          json{{"query", "refund original card"}, {"mode", "bm25"}}.dump());
  ASSERT_EQ(search.status, 200) << search.body;
  bool hit_seen = false;
  const json search_body = Body(search);
  for (const json& h : search_body["hits"]) {
    if (h.value("doc_id", "") == "refunds") {
      hit_seen = true;
      EXPECT_EQ(h.value("license", "?"), kLicense);
    } else {
      EXPECT_FALSE(h.contains("license")) << h.dump();
    }
  }
  EXPECT_TRUE(hit_seen) << search.body;

  HttpReply answer = Call(server.port(), "POST", "/v1/answer", admin,
                          json{{"query", "How many days until refunds are paid?"}}.dump());
  ASSERT_EQ(answer.status, 200) << answer.body;
  bool source_seen = false;
  const json answer_body = Body(answer);
  for (const json& s : answer_body["sources"]) {
    if (s.value("doc_id", "") != "refunds") continue;
    source_seen = true;
    EXPECT_EQ(s.value("license", "?"), kLicense);
    EXPECT_EQ(s.value("fetched_at", "?"), "2025-12-02T14:35:56Z");
  }
  EXPECT_TRUE(source_seen) << answer.body;

  // Refused, naming the field: a control character, and more than 1,000 bytes.
  for (const std::string& bad : {std::string("MIT\x01"), std::string(1001, 'x')}) {
    HttpReply r = Call(server.port(), "POST", "/v1/documents", admin,
                       json{{"id", "bad"}, {"text", "Some text."}, {"license", bad}}.dump());
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(ErrorCode(r), "invalid_request") << r.body;
    EXPECT_EQ(Body(r)["error"].value("field", ""), "license") << r.body;
  }
  HttpReply bad_time = Call(server.port(), "POST", "/v1/documents", admin,
                            json{{"id", "bad"}, {"text", "Some text."}, {"fetched_at", "yesterday"}}.dump());
  EXPECT_EQ(bad_time.status, 400) << bad_time.body;
  EXPECT_NE(ops_test::ErrorMessage(bad_time).find("fetched_at"), std::string::npos) << bad_time.body;

  // The licence column edited behind attest's back: the row fails its checksum.
  SqlText(data + "/catalog.db", "UPDATE documents SET license = 'Public domain' WHERE id = 'refunds'");
  HttpReply edited = Call(server.port(), "GET", "/v1/documents/refunds", admin);
  EXPECT_EQ(edited.status, 500) << edited.body;
  EXPECT_EQ(ErrorCode(edited), "corrupt_document") << edited.body;
  EXPECT_EQ(edited.body.find("Public domain"), std::string::npos) << edited.body;
}

TEST(CliProvenance, IngestWithALicenceAndSearchAndAskPrintIt) {
  TempDir dir;
  const std::string data = dir.str("data");
  const std::string docs = dir.str("docs");
  std::filesystem::create_directories(docs);
  {
    std::ofstream(docs + "/refunds.md") << "# Refunds\n\nRefunds are paid within thirty days of purchase.\n";
  }
  auto bad = RunAttest({"--data", data, "ingest", "--license", "bad\tlicence", docs});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("license:"), std::string::npos) << bad.err;
  auto ingest = RunAttest({"--data", data, "ingest", "--license", kLicense, docs});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  auto search = RunAttest({"--data", data, "search", "refunds paid"});
  ASSERT_EQ(search.exit_code, 0) << search.err;
  EXPECT_NE(search.out.find(std::string("license: ") + kLicense), std::string::npos) << search.out;
  auto search_json = RunAttest({"--data", data, "search", "--json", "refunds paid"});
  ASSERT_EQ(search_json.exit_code, 0) << search_json.err;
  json hits = json::parse(search_json.out, nullptr, false);
  ASSERT_TRUE(hits.is_object()) << search_json.out;
  ASSERT_FALSE(hits["hits"].empty());
  EXPECT_EQ(hits["hits"][0].value("license", "?"), kLicense);
  auto ask = RunAttest({"--data", data, "ask", "How many days until refunds are paid?"});
  ASSERT_EQ(ask.exit_code, 0) << ask.err;
  EXPECT_NE(ask.out.find(std::string("license: ") + kLicense), std::string::npos) << ask.out;
}

}  // namespace
}  // namespace attest
