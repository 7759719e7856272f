// Black-box tests of edits made to a served store's catalog behind attest's back (an operator's
// sqlite3 shell, a bad restore, a stray script): the real binary on an ephemeral port, the catalog
// changed with SQL while it runs.
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

class ServeIntegrityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    catalog_ = data_ + "/catalog.db";
    admin_ = CreateKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    alice_ = CreateKey(data_, {"--tenant", "acme", "--user", "alice"});
    bob_ = CreateKey(data_, {"--tenant", "acme", "--user", "bob"});
    for (const auto& [user, groups] : {std::pair<std::string, std::string>{"alice", "eng"}, {"bob", "sales"}}) {
      auto r = RunAttest({"--data", data_, "principals", "set", "--tenant", "acme", "--user", user, "--groups", groups});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    server_ = std::make_unique<ServeProcess>(data_, std::vector<std::string>{}, std::vector<std::string>{"--no-cache"});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json batch = {{"documents",
                   {{{"id", "refunds"}, {"title", "Refund policy"},
                     {"text", "Refunds are paid within thirty days of purchase. The refund goes to the original "
                              "card."}},
                    {{"id", "discounts"}, {"title", "Discount policy"}, {"acl_groups", {"sales"}},
                     {"text", "The discount policy allows twenty percent off for annual plans. Discounts above "
                              "twenty percent need approval from the sales director."}}}}};
    HttpReply r = Call(server_->port(), "POST", "/v1/documents:batch", admin_, batch.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  HttpReply Get(const std::string& id, const std::string& key) {
    return Call(server_->port(), "GET", "/v1/documents/" + id, key);
  }
  HttpReply Search(const std::string& query, const std::string& key) {
    return Call(server_->port(), "POST", "/v1/search", key, json{{"query", query}, {"mode", "bm25"}}.dump());
  }
  // The live row of document `id`, as SQL sees it.
  std::string NumOf(const std::string& id) {
    return SqlText(catalog_, "SELECT num FROM documents WHERE id = '" + id + "' AND deleted_snapshot IS NULL");
  }

  TempDir dir_;
  std::string data_, catalog_, admin_, alice_, bob_;
  std::unique_ptr<ServeProcess> server_;
};

// Changed chunk text was served by GET /v1/documents (and in snippets and answers) with the sha256
// of the original. Now the chunk's checksum no longer matches: the document is refused with
// corrupt_document naming it, in documents, search and answers; never the edited text.
TEST_F(ServeIntegrityTest, Regression_EditedChunkTextIsRefusedNotServedWithTheOldDigest) {
  HttpReply before = Get("refunds", admin_);
  ASSERT_EQ(before.status, 200) << before.body;
  ASSERT_NE(Body(before).value("text", "").find("thirty days"), std::string::npos);

  SqlText(catalog_, "UPDATE chunks SET text = replace(text, 'thirty', 'ninety') WHERE doc_num = " + NumOf("refunds"));
  ASSERT_NE(SqlText(catalog_, "SELECT text FROM chunks WHERE doc_num = " + NumOf("refunds")).find("ninety"),
            std::string::npos);

  for (const std::string& key : {admin_, alice_}) {
    HttpReply got = Get("refunds", key);
    EXPECT_EQ(got.status, 500) << got.body;
    EXPECT_EQ(ErrorCode(got), "corrupt_document") << got.body;
    EXPECT_EQ(got.body.find("ninety"), std::string::npos) << "the edited text was served: " << got.body;
    EXPECT_NE(ops_test::ErrorMessage(got).find("refunds"), std::string::npos) << got.body;
  }
  HttpReply search = Search("refund purchase", alice_);
  EXPECT_EQ(search.body.find("ninety"), std::string::npos) << search.body;
  EXPECT_EQ(ErrorCode(search), "corrupt_document") << search.body;
  HttpReply answer = Call(server_->port(), "POST", "/v1/answer", alice_,
                          json{{"query", "How many days until refunds are paid?"}}.dump());
  EXPECT_EQ(answer.body.find("ninety"), std::string::npos) << answer.body;
  EXPECT_EQ(ErrorCode(answer), "corrupt_document") << answer.body;

  // Other documents are still served.
  HttpReply other = Get("discounts", bob_);
  EXPECT_EQ(other.status, 200) << other.body;
}

// A 5-byte edit of a document's acl_json made it readable through GET /v1/documents while search
// (which filters on the segment's copy of the ACL) still hid it. Now the edited row fails its
// checksum and nobody reads the document; search keeps hiding it from those outside the group.
TEST_F(ServeIntegrityTest, Regression_EditedAclRowDoesNotWidenAccess) {
  ASSERT_EQ(Get("discounts", alice_).status, 404);
  ASSERT_EQ(Get("discounts", bob_).status, 200);

  const std::string acl = SqlText(catalog_, "SELECT acl_json FROM documents WHERE num = " + NumOf("discounts"));
  ASSERT_EQ(acl, "[\"sales\"]");
  SqlText(catalog_, "UPDATE documents SET acl_json = '[\"eng\"]' WHERE num = " + NumOf("discounts"));

  HttpReply widened = Get("discounts", alice_);
  EXPECT_NE(widened.status, 200) << "an edited catalog row widened access: " << widened.body;
  EXPECT_EQ(widened.body.find("twenty percent"), std::string::npos) << widened.body;
  EXPECT_EQ(ErrorCode(widened), "corrupt_document") << widened.body;
  for (const std::string& key : {bob_, admin_}) {
    HttpReply got = Get("discounts", key);
    EXPECT_EQ(ErrorCode(got), "corrupt_document") << got.body;
  }
  HttpReply hidden = Search("discount annual plans", alice_);
  ASSERT_EQ(hidden.status, 200) << hidden.body;
  for (const auto& hit : Body(hidden)["hits"]) EXPECT_NE(hit.value("doc_id", ""), "discounts") << hidden.body;
  EXPECT_EQ(hidden.body.find("twenty percent"), std::string::npos) << hidden.body;
  EXPECT_EQ(Get("refunds", alice_).status, 200);
}

}  // namespace
}  // namespace attest
