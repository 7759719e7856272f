// Fuzz target: every v1 request parser (service/contracts.h) on arbitrary bytes, plus the path and
// header validators. Properties: nothing crashes or throws; an error always has a known code and a
// message; an accepted request satisfies the contract's bounds.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/text_util.h"
#include "service/contracts.h"
#include "service/openai_chat.h"

namespace {

using namespace attest::service;

void CheckError(const ApiError& e) {
  static const std::set<ApiErrorCode> kCodes = {ApiErrorCode::kInvalidJson, ApiErrorCode::kInvalidRequest,
                                                ApiErrorCode::kPayloadTooLarge};
  FUZZ_CHECK(kCodes.count(e.code) == 1);
  FUZZ_CHECK(!e.message.empty());
  FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(e.message).has_value());  // safe to put in a JSON response
  FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(e.field).has_value());
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

void CheckFilters(const RequestFilters& f) {
  FUZZ_CHECK(f.sites.size() <= 32 && f.source_types.size() <= 32 && f.versions.size() <= 32);
  for (const auto& s : f.sites) FUZZ_CHECK(!s.empty());
  if (f.date_from) FUZZ_CHECK(f.date_from->size() == 10);
  if (f.date_from && f.date_to) FUZZ_CHECK(*f.date_from <= *f.date_to);
}

void CheckDocument(const DocumentInput& d, const ParseLimits& limits) {
  FUZZ_CHECK(!d.id.empty() && d.id.size() <= 256);
  FUZZ_CHECK(d.text.size() <= limits.max_document_bytes);
  // A body, or a title (a title-only document).
  auto blank = [](std::string_view s) {
    return s.find_first_not_of(" \t\n\v\f\r") == std::string_view::npos;
  };
  FUZZ_CHECK(!blank(d.text) || !blank(d.title));
  FUZZ_CHECK(d.content_type == "text" || d.content_type == "markdown" || d.content_type == "html");
  FUZZ_CHECK(d.acl_groups.size() <= 64 && d.metadata.size() <= 64);
  if (d.tenant) FUZZ_CHECK(ValidTenant(*d.tenant));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  auto search = ParseSearchRequest(input);
  if (search.ok()) {
    const SearchRequest& r = search.value();
    FUZZ_CHECK(!r.query.empty() && CodePoints(r.query) <= kMaxQueryChars);
    FUZZ_CHECK(r.top_k >= 1 && r.top_k <= kMaxTopK);
    FUZZ_CHECK(!r.deadline_ms || (*r.deadline_ms >= 1 && *r.deadline_ms <= kMaxDeadlineMs));
    if (r.tenant) FUZZ_CHECK(ValidTenant(*r.tenant));
    CheckFilters(r.filters);
  } else {
    CheckError(search.error());
  }

  auto answer = ParseAnswerRequest(input);
  if (answer.ok()) {
    const AnswerRequest& r = answer.value();
    FUZZ_CHECK(!r.query.empty() && CodePoints(r.query) <= kMaxQueryChars);
    FUZZ_CHECK(r.max_sentences >= 1 && r.max_sentences <= 10);
    FUZZ_CHECK(r.writer == "extractive" || r.writer == "llm");
    CheckFilters(r.filters);
  } else {
    CheckError(answer.error());
  }

  ParseLimits limits;
  limits.max_document_bytes = 512;  // small, so the oversize path is reached
  auto doc = ParseDocumentInput(input, limits);
  if (doc.ok()) {
    CheckDocument(doc.value(), limits);
  } else {
    CheckError(doc.error());
  }
  auto batch = ParseDocumentBatch(input, limits);
  if (batch.ok()) {
    FUZZ_CHECK(!batch.value().documents.empty() && batch.value().documents.size() <= kMaxBatchDocuments);
    for (const auto& d : batch.value().documents) CheckDocument(d, limits);
  } else {
    CheckError(batch.error());
  }

  // The chat face (docs/openai_api.md): a question within the query's limits, earlier questions
  // too, and the profile's writer.
  auto chat = ParseChatRequest(input, ChatProfiles(true));
  if (chat.ok()) {
    const ChatRequest& r = chat.value();
    FUZZ_CHECK(!r.answer.query.empty() && CodePoints(r.answer.query) <= kMaxQueryChars);
    for (const std::string& q : r.answer.earlier_questions) FUZZ_CHECK(!q.empty() && CodePoints(q) <= kMaxQueryChars);
    FUZZ_CHECK(r.answer.writer == r.profile.writer && (r.profile.writer == "extractive" || r.profile.writer == "llm"));
    FUZZ_CHECK(!r.include_usage || r.stream);
  } else if (chat.error().code == ApiErrorCode::kNotFound) {
    FUZZ_CHECK(chat.error().field == "model");  // an unknown model: model_not_found
    FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(chat.error().message).has_value());
  } else {
    CheckError(chat.error());
  }

  auto thread = ParseThreadCreate(input);
  if (!thread.ok()) CheckError(thread.error());
  auto feedback = ParseFeedback(input);
  if (feedback.ok()) {
    const std::string& kind = feedback.value().kind;
    FUZZ_CHECK(kind == "wrong" || kind == "unsupported" || kind == "stale");
    FUZZ_CHECK(!feedback.value().answer_id.empty());
  } else {
    CheckError(feedback.error());
  }

  // Path and header values see raw bytes.
  auto id = ParseDocumentId(input);
  if (id.ok()) {
    FUZZ_CHECK(id.value() == input);
  } else {
    CheckError(id.error());
  }
  if (ValidTenant(input)) FUZZ_CHECK(input.size() <= 32);
  if (ValidRequestId(input)) FUZZ_CHECK(input.size() <= 128);
  return 0;
}
