#include "rerank/http_reranker.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_guard.h"

namespace attest {
namespace {

using nlohmann::json;

constexpr size_t kMaxBatch = 1024;
constexpr std::string_view kClient = "http reranker";
constexpr int kMaxJsonDepth = 64;
constexpr size_t kMaxNamedMissing = 10;

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }


Status ValidateOptions(const HttpRerankerOptions& o) {
  if (o.max_batch < 1 || o.max_batch > kMaxBatch) {
    return Status::InvalidArgument(std::string(kClient) + ": max_batch must be in 1.." + std::to_string(kMaxBatch) +
                                   ", got " + std::to_string(o.max_batch));
  }
  return Status::Ok();
}

ModelPath RerankPath(RerankApi api) {
  switch (api) {
    case RerankApi::kTei: return {"", "/rerank", "/rerank"};
    case RerankApi::kJina:
    case RerankApi::kCohere: return {"/v1", "/rerank", "/rerank"};
    case RerankApi::kCohereV2: return {"/v2", "/rerank", "/rerank"};
  }
  return {"", "/rerank", "/rerank"};
}

// Indices [first, last] of a batch, for error context.
std::string BatchContext(size_t first, size_t last, size_t total) {
  return "reranking passages " + std::to_string(first) + ".." + std::to_string(last) + " of " + std::to_string(total);
}

}  // namespace

std::string_view RerankApiName(RerankApi api) {
  switch (api) {
    case RerankApi::kTei: return "tei";
    case RerankApi::kJina: return "jina";
    case RerankApi::kCohere: return "cohere";
    case RerankApi::kCohereV2: return "cohere-v2";
  }
  return "unknown";
}

Result<RerankApi> ParseRerankApi(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "tei") return RerankApi::kTei;
  if (n == "jina") return RerankApi::kJina;
  if (n == "cohere") return RerankApi::kCohere;
  if (n == "cohere-v2" || n == "cohere_v2" || n == "cohere2") return RerankApi::kCohereV2;
  return Status::InvalidArgument("unknown rerank API \"" + std::string(name) +
                                 "\" (expected tei, jina, cohere or cohere-v2)");
}

Result<std::string> ResolveRerankEndpoint(std::string_view base_url, RerankApi api) {
  return ResolveModelUrl(kClient, base_url, RerankPath(api));
}

std::string_view TruncateUtf8(std::string_view text, size_t max_chars) {
  if (max_chars == 0 || text.size() <= max_chars) return text;  // bytes >= code points
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (chars == max_chars) return text.substr(0, i);
      ++chars;
    }
  }
  return text;
}

std::string BuildRerankRequestBody(RerankApi api, std::string_view model, std::string_view query,
                                   const std::vector<std::string>& passages) {
  json body;
  if (api == RerankApi::kTei) {
    body = {{"query", query}, {"texts", passages}, {"raw_scores", false}, {"truncate", true}};
  } else {
    body = {{"model", model}, {"query", query}, {"documents", passages}, {"top_n", passages.size()}};
  }
  // Invalid UTF-8 is replaced (U+FFFD) rather than failing the whole call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::vector<double>> ParseRerankResponse(RerankApi api, std::string_view body, size_t count) {
  auto corrupt = [](const std::string& m) { return Status::Corruption("rerank response: " + m); };
  if (JsonNestingExceeds(body, kMaxJsonDepth)) {
    return corrupt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for numbers that overflow a double (e.g. 1e400).
    return corrupt("malformed JSON: " + CleanJsonErrorMessage(e.what()));
  }
  const bool tei = api == RerankApi::kTei;
  const char* score_key = tei ? "score" : "relevance_score";
  const json* items = &j;
  std::string prefix;
  if (tei) {
    if (!j.is_array()) {
      return corrupt(std::string("expected a JSON array of {\"index\", \"score\"} (TEI), got ") + j.type_name() +
                     (j.is_object() && j.contains("results") ? " with \"results\" (a Jina/Cohere answer?)" : ""));
    }
  } else {
    if (!j.is_object()) {
      return corrupt(std::string("expected a JSON object with \"results\", got ") + j.type_name() +
                     (j.is_array() ? " (a TEI answer?)" : ""));
    }
    auto it = j.find("results");
    if (it == j.end()) return corrupt("missing \"results\"");
    if (!it->is_array()) return corrupt(std::string("\"results\" must be an array, not ") + it->type_name());
    items = &*it;
    prefix = "results";
  }
  std::vector<double> scores(count, 0.0);
  std::vector<bool> seen(count, false);
  for (size_t k = 0; k < items->size(); ++k) {
    const json& item = (*items)[k];
    const std::string where = prefix + "[" + std::to_string(k) + "]";
    if (!item.is_object()) return corrupt(where + " must be an object, not " + item.type_name());
    auto index_it = item.find("index");
    if (index_it == item.end()) return corrupt(where + " has no \"index\"");
    if (!index_it->is_number_integer()) {
      return corrupt(where + ".index must be an integer, not " + std::string(index_it->type_name()));
    }
    const int64_t index = index_it->is_number_unsigned() && index_it->get<uint64_t>() > uint64_t{INT64_MAX}
                              ? -1
                              : index_it->get<int64_t>();
    if (index < 0 || static_cast<uint64_t>(index) >= count) {
      return corrupt(where + ".index " + index_it->dump() + " is out of range 0.." + std::to_string(count - 1) +
                     (count == 0 ? " (no passages were sent)" : ""));
    }
    if (seen[index]) return corrupt("duplicate index " + std::to_string(index) + " at " + where);
    seen[index] = true;
    auto score_it = item.find(score_key);
    if (score_it == item.end()) return corrupt(where + " has no \"" + score_key + "\"");
    if (!score_it->is_number()) {
      return corrupt(where + "." + score_key + " must be a number, not " + score_it->type_name());
    }
    const double s = score_it->get<double>();
    if (!std::isfinite(s)) return corrupt(where + "." + score_key + " is not a finite number");
    scores[index] = s;
  }
  std::vector<size_t> missing;
  for (size_t i = 0; i < count; ++i) {
    if (!seen[i]) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t m = 0; m < missing.size() && m < kMaxNamedMissing; ++m) {
      list += (m ? ", " : "") + std::to_string(missing[m]);
    }
    if (missing.size() > kMaxNamedMissing) list += ", ...";
    return corrupt(std::to_string(missing.size()) + " of " + std::to_string(count) +
                   " passages not scored (index " + list + ")");
  }
  return scores;
}

Result<std::unique_ptr<HttpReranker>> HttpReranker::Create(HttpRerankerOptions options) {
  ATTEST_RETURN_IF_ERROR(ValidateOptions(options));
  const std::string label = std::string(RerankApiName(options.api)) + ":" + options.endpoint.model;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ModelHttpClient> client,
                          ModelHttpClient::Create(kClient, options.endpoint, RerankPath(options.api), label));
  return std::unique_ptr<HttpReranker>(new HttpReranker(std::move(options), std::move(client)));
}

HttpReranker::HttpReranker(HttpRerankerOptions options, std::unique_ptr<ModelHttpClient> client)
    : options_(std::move(options)), client_(std::move(client)) {}

std::string HttpReranker::name() const {
  return std::string(RerankApiName(options_.api)) + ":" + options_.endpoint.model;
}

HttpRerankerStats HttpReranker::stats() const {
  const ModelHttpStats http = client_->stats();
  MutexLock lock(mu_);
  return HttpRerankerStats{.requests = http.requests, .retries = http.retries, .passages = passages_,
                           .truncated = truncated_};
}

Status HttpReranker::ScoreBatch(std::string_view query, const std::vector<std::string>& inputs,
                                std::vector<double>* out) const {
  ATTEST_ASSIGN_OR_RETURN(HttpResponse response,
                          client_->Post(BuildRerankRequestBody(options_.api, options_.endpoint.model, query, inputs)));
  Result<std::vector<double>> scores = ParseRerankResponse(options_.api, response.body, inputs.size());
  if (!scores.ok()) return client_->MalformedAnswer(scores.status());
  *out = std::move(scores).value();
  return Status::Ok();
}

Result<std::vector<double>> HttpReranker::Score(std::string_view query,
                                                const std::vector<std::string>& passages) const {
  if (passages.empty()) return std::vector<double>{};
  if (IsBlank(query)) return Status::InvalidArgument("http reranker: the query is empty");
  // Passages the server sees: the non-blank ones, cut to max_passage_chars.
  std::vector<size_t> rows;
  rows.reserve(passages.size());
  for (size_t i = 0; i < passages.size(); ++i) {
    if (!IsBlank(passages[i])) rows.push_back(i);
  }
  std::vector<double> result(passages.size(), 0.0);
  std::vector<std::string> inputs;
  std::vector<double> batch_scores;
  double lowest = 0.0;
  for (size_t begin = 0; begin < rows.size(); begin += options_.max_batch) {
    const size_t end = std::min(rows.size(), begin + options_.max_batch);
    inputs.clear();
    uint64_t truncated = 0;
    for (size_t r = begin; r < end; ++r) {
      const std::string_view p = passages[rows[r]];
      const std::string_view cut = TruncateUtf8(p, options_.max_passage_chars);
      truncated += cut.size() < p.size();
      inputs.emplace_back(cut);
    }
    Status st = ScoreBatch(query, inputs, &batch_scores);
    if (!st.ok()) return st.WithContext(BatchContext(rows[begin], rows[end - 1], passages.size()));
    for (size_t r = begin; r < end; ++r) {
      const double s = batch_scores[r - begin];
      result[rows[r]] = s;
      lowest = (r == 0) ? s : std::min(lowest, s);
    }
    MutexLock lock(mu_);
    passages_ += end - begin;
    truncated_ += truncated;
  }
  if (rows.size() < passages.size()) {
    size_t next = 0;
    for (size_t i = 0; i < passages.size(); ++i) {
      if (next < rows.size() && rows[next] == i) {
        ++next;
      } else {
        result[i] = lowest;
      }
    }
  }
  return result;
}

}  // namespace attest
