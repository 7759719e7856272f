#include "cluster/shard_http.h"

#include <nlohmann/json.hpp>

#include "cluster/answer_contract.h"
#include "cluster/document_contract.h"
#include "cluster/shard_contract.h"

namespace attest {

HttpShard::HttpShard(HttpShardOptions options, std::shared_ptr<const HttpClient> client)
    : options_(std::move(options)), client_(std::move(client)) {}

Result<std::string> HttpShard::Call(const ShardCall& call, const std::string& route, std::string body) const {
  if (options_.base_url.empty()) return Status::Unavailable("the node has not registered its internal API's address");
  int64_t timeout_ms = options_.default_timeout_ms;
  if (call.deadline != std::chrono::steady_clock::time_point::max()) {
    timeout_ms = std::chrono::duration_cast<std::chrono::milliseconds>(call.deadline - std::chrono::steady_clock::now())
                     .count();
    if (timeout_ms <= 0) return Status::DeadlineExceeded("no time left for the shard");
  }
  HttpRequest req;
  req.method = body.empty() ? "GET" : "POST";
  req.url = options_.base_url + route;
  req.body = std::move(body);
  req.timeout_ms = timeout_ms;
  req.connect_timeout_ms = std::min<int64_t>(timeout_ms, 2000);
  req.headers = {{"Content-Type", "application/json"},
                 {"Authorization", "Bearer " + options_.credential},
                 {"X-Request-Id", call.request_id},
                 {"X-Attest-Caller", call.caller},
                 {"X-Attest-Deadline-Ms", std::to_string(timeout_ms)}};
  HttpFailure failure = HttpFailure::kNone;
  Result<HttpResponse> r = client_->Send(req, &failure);
  if (!r.ok()) {
    if (failure == HttpFailure::kTimeout) return Status::DeadlineExceeded("timed out after " + std::to_string(timeout_ms) + " ms");
    return Status::Unavailable(r.status().message());
  }
  const HttpResponse& resp = r.value();
  if (resp.status == 200) return resp.body;
  std::string message = "HTTP " + std::to_string(resp.status);
  const nlohmann::json j = nlohmann::json::parse(resp.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].contains("message") &&
      j["error"]["message"].is_string()) {
    message += ": " + j["error"]["message"].get<std::string>().substr(0, 500);
  }
  if (resp.status == 400) return Status::InvalidArgument(message);
  if (resp.status == 404) return Status::NotFound(message);
  if (resp.status == 504) return Status::DeadlineExceeded(message);
  return Status::Unavailable(message);
}

Result<ShardStatistics> HttpShard::Statistics(const ShardCall& call, const SearchOptions& options) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/statistics", EncodeStatisticsRequest(options)));
  Result<ShardStatistics> s = DecodeStatisticsReply(body);
  if (!s.ok()) return Status::Unavailable("malformed statistics reply: " + s.status().message());
  return s;
}

Result<ShardHealth> HttpShard::Health(const ShardCall& call) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/health", ""));
  Result<ShardHealth> h = DecodeHealthReply(body);
  if (!h.ok()) return Status::Unavailable("malformed health reply: " + h.status().message());
  return h;
}

Result<SearchResult> HttpShard::Search(const ShardCall& call, const SearchOptions& options, const ShardStatistics& global,
                                       uint64_t shard_snapshot) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body,
                          Call(call, "/internal/v1/search", EncodeSearchRequest(options, global, shard_snapshot)));
  Result<SearchResult> r = DecodeSearchReply(body);
  if (!r.ok()) return Status::Unavailable("malformed search reply: " + r.status().message());
  return r;
}

Result<DocumentInfo> HttpShard::Document(const ShardCall& call, const SearchFilter& filter,
                                         const std::string& id) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/document", EncodeDocumentRequest(filter, id)));
  Result<DocumentInfo> d = DecodeDocumentReply(body);
  if (!d.ok()) return Status::Unavailable("malformed document reply: " + d.status().message());
  return d;
}

Result<ShardStatistics> HttpShard::TermStatistics(const ShardCall& call, const SearchFilter& filter,
                                                  const std::vector<std::string>& terms) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body,
                          Call(call, "/internal/v1/term_statistics", EncodeTermStatisticsRequest(filter, terms)));
  Result<ShardStatistics> s = DecodeStatisticsReply(body);
  if (!s.ok()) return Status::Unavailable("malformed term statistics reply: " + s.status().message());
  return s;
}

Result<std::vector<ChunkContent>> HttpShard::Chunks(const ShardCall& call, const SearchFilter& filter,
                                                    const std::vector<ChunkId>& ids) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/chunks", EncodeChunksRequest(filter, ids)));
  Result<std::vector<ChunkContent>> c = DecodeChunksReply(body);
  if (!c.ok()) return Status::Unavailable("malformed chunks reply: " + c.status().message());
  return c;
}

Result<std::vector<CitationState>> HttpShard::Citations(const ShardCall& call, const SearchFilter& filter,
                                                        const std::vector<CitedChunk>& cited) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body,
                          Call(call, "/internal/v1/citations", EncodeCitationsRequest(filter, cited)));
  Result<std::vector<CitationState>> s = DecodeCitationsReply(body);
  if (!s.ok()) return Status::Unavailable("malformed citations reply: " + s.status().message());
  return s;
}

Result<std::vector<SourceInfo>> HttpShard::Sources(const ShardCall& call, const SearchFilter& filter,
                                                   const std::vector<std::string>& ids) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/sources", EncodeSourcesRequest(filter, ids)));
  Result<std::vector<SourceInfo>> s = DecodeSourcesReply(body);
  if (!s.ok()) return Status::Unavailable("malformed sources reply: " + s.status().message());
  return s;
}

Result<DocumentListing> HttpShard::Documents(const ShardCall& call, const ListDocumentsOptions& options) const {
  ATTEST_ASSIGN_OR_RETURN(std::string body, Call(call, "/internal/v1/documents", EncodeListingRequest(options)));
  Result<DocumentListing> l = DecodeListingReply(body);
  if (!l.ok()) return Status::Unavailable("malformed listing reply: " + l.status().message());
  return l;
}

}  // namespace attest
