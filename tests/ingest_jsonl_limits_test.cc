// Limits on one JSONL line (issue 10): checked by a scan before nlohmann::json parses the line,
// each refusal naming its limit and the line; the rest of the file goes on.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ingest/jsonl_reader.h"

namespace attest {
namespace {

struct Collected {
  std::vector<ParsedDocument> docs;
  std::vector<SourceError> errors;
};

Collected Parse(std::string_view data, const SourceOptions& options = {}) {
  Collected c;
  ParseJsonlBuffer(
      data, "corpus.jsonl", options, [&](ParsedDocument&& d, uint64_t) { c.docs.push_back(std::move(d)); },
      [&](SourceError&& e) { c.errors.push_back(std::move(e)); });
  return c;
}

std::string WithMetadataFields(size_t n) {
  std::string s = R"({"_id": "m", "text": "t", "metadata": {)";
  for (size_t i = 0; i < n; ++i) s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  return s + "}}";
}

// A million fields on one line were parsed into a million-member object and kept as metadata.
TEST(IngestJsonlLimits, Regression_AMillionFieldsOnOneLineAreRefusedWithANamedLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  const Collected c = Parse(WithMetadataFields(1000000) + "\n" + R"({"_id": "next", "text": "fine"})");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].line, 1u);
  EXPECT_NE(c.errors[0].message.find("(limit jsonl.max_values)"), std::string::npos) << c.errors[0].message;
  ASSERT_EQ(c.docs.size(), 1u);
  EXPECT_EQ(c.docs[0].id, "next");
  EXPECT_LT(seconds, 5.0);
}

TEST(IngestJsonlLimits, Regression_AMegabyteIdIsRefusedWithANamedLimit) {
  const Collected c = Parse(R"({"_id": ")" + std::string(1 << 20, 'x') + R"(", "text": "t"})");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].message.find("(limit jsonl.max_id_bytes)"), std::string::npos) << c.errors[0].message;
  EXPECT_TRUE(c.docs.empty());
}

TEST(IngestJsonlLimits, DeepNestingNamesItsLimitAndColumn) {
  const Collected c = Parse(R"({"_id": "d", "text": "t", "metadata": {"x": )" + std::string(100000, '[') +
                            std::string(100000, ']') + "}}");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].message.find("(limit jsonl.max_depth)"), std::string::npos) << c.errors[0].message;
  EXPECT_NE(c.errors[0].message.find("at column 107 "), std::string::npos) << c.errors[0].message;
}

TEST(IngestJsonlLimits, LimitsAreOptionsAndBracketsInsideStringsDoNotCount) {
  SourceOptions small;
  small.jsonl.max_values = 10;
  small.jsonl.max_id_bytes = 3;
  EXPECT_EQ(Parse(WithMetadataFields(5), small).docs.size(), 1u);
  EXPECT_EQ(Parse(WithMetadataFields(20), small).errors.size(), 1u);
  EXPECT_EQ(Parse(R"({"_id": "abcd", "text": "t"})", small).errors.size(), 1u);
  const Collected strings = Parse(R"({"_id": "s", "text": ")" + std::string(5000, '[') + ",,,,\"}", small);
  EXPECT_TRUE(strings.errors.empty()) << strings.errors[0].message;
  EXPECT_EQ(strings.docs.size(), 1u);
}

}  // namespace
}  // namespace attest
