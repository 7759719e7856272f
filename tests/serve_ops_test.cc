// Black-box tests of `attest serve` under operational trouble (the real binary on an ephemeral
// port): the query limit measured the same way by every route.
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
using testing_support::HttpReply;
using testing_support::ServeProcess;
using testing_support::TempDir;

// A query of exactly `code_points` code points: Cyrillic words (2 bytes per letter), a few emoji
// (4 bytes, two UTF-16 code units each) and ASCII spaces, so bytes, UTF-16 code units and code
// points all differ.
std::string QueryOf(size_t code_points) {
  const std::string word = "\xD0\xB2\xD0\xBE\xD0\xB7\xD0\xB2\xD1\x80\xD0\xB0\xD1\x82";  // возврат: 7 letters
  const std::string emoji = "\xF0\x9F\x93\x84";                                           // U+1F4C4
  std::string q = "refund ";
  size_t n = 7;
  for (int i = 0; n + 8 + 1 <= code_points; ++i) {
    q += (i % 25 == 24) ? emoji + emoji + emoji + emoji + emoji + emoji + emoji : word;
    q += ' ';
    n += 8;
  }
  while (n < code_points) {
    q += "\xD1\x8F";  // я
    ++n;
  }
  return q;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class ServeQueryLimitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    server_ = new ServeProcess(data_, {}, {});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json doc = {{"id", "refunds"}, {"title", "Refund policy"},
                {"text", "Refunds are paid within thirty days of purchase. The refund goes to the original card."}};
    HttpReply r = Call(server_->port(), "POST", "/v1/documents", admin_, doc.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static HttpReply Post(const std::string& route, const std::string& query) {
    return Call(server_->port(), "POST", route, admin_, json{{"query", query}}.dump());
  }

  static TempDir* dir_;
  static std::string data_, admin_;
  static ServeProcess* server_;
};

TempDir* ServeQueryLimitTest::dir_ = nullptr;
ServeProcess* ServeQueryLimitTest::server_ = nullptr;
std::string ServeQueryLimitTest::data_, ServeQueryLimitTest::admin_;

// /v1/search counted code points, /v1/answer bytes: a 2,000-character question in Cyrillic was a
// search but "longer than 2000 bytes" as a question. Both routes count Unicode code points after
// NFC normalization and trimming.
TEST_F(ServeQueryLimitTest, Regression_SearchAndAnswerMeasureTheQueryLimitAlike) {
  const std::string at_limit = QueryOf(2000);
  ASSERT_EQ(CodePoints(at_limit), 2000u);
  ASSERT_GT(at_limit.size(), 3000u);  // far more bytes than code points
  for (const char* route : {"/v1/search", "/v1/answer"}) {
    HttpReply ok = Post(route, "  " + at_limit + "\n");
    EXPECT_EQ(ok.status, 200) << route << ": " << ok.body.substr(0, 400);

    HttpReply over = Post(route, at_limit + "\xD1\x8F");
    EXPECT_EQ(over.status, 400) << route << ": " << over.body.substr(0, 400);
    EXPECT_EQ(ErrorCode(over), "invalid_request") << route;
    json e = Body(over)["error"];
    EXPECT_EQ(e.value("field", ""), "query") << route;
    EXPECT_NE(e.value("message", "").find("2001 characters"), std::string::npos) << route << ": " << e.dump();
  }
}

// The limit applies after NFC: 2,000 letters written decomposed (letter + combining mark, 4,000
// code points as sent) are 2,000 characters, on both routes.
TEST_F(ServeQueryLimitTest, QueryLimitIsCountedAfterNfcOnBothRoutes) {
  std::string decomposed = "refund ";
  for (int i = 0; i < 1993; ++i) decomposed += "\xD0\xB5\xCC\x88";  // е + U+0308 = ё after NFC
  ASSERT_EQ(CodePoints(decomposed), 7u + 2 * 1993u);
  for (const char* route : {"/v1/search", "/v1/answer"}) {
    HttpReply ok = Post(route, decomposed);
    EXPECT_EQ(ok.status, 200) << route << ": " << ok.body.substr(0, 400);
    HttpReply over = Post(route, decomposed + "\xD0\xB5\xCC\x88");
    EXPECT_EQ(over.status, 400) << route << ": " << over.body.substr(0, 400);
    EXPECT_EQ(Body(over)["error"].value("field", ""), "query") << route;
  }
}

}  // namespace
}  // namespace attest
